package lft_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/slimfly"
)

// TestSL2VLNamesACableAddedSinceItWasWritten: over seeded cases, the SL2VL
// file of a Slim Fly (q = 3 or 4) missing a few cables (switch and HCA
// cables) reads back onto that fabric, and MaxVL is the highest VL digit
// of its text; read onto the fabric with some of those cables plugged
// back in, it is a *NewCableError naming a switch port that only the
// second fabric cables.
func TestSL2VLNamesACableAddedSinceItWasWritten(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 5))
		intact, err := slimfly.Build(slimfly.Params{Q: 3 + rng.IntN(2)})
		if err != nil {
			t.Fatal(err)
		}
		cut := rng.Perm(intact.NumLinks())[:1+rng.IntN(3)]
		before, err := intact.Without(nil, cut)
		if err != nil {
			continue // split: other tests cover that
		}
		back := 1 + rng.IntN(1<<len(cut)-1) // a nonempty subset plugged back in
		var still []int
		for i, l := range cut {
			if back>>i&1 == 0 {
				still = append(still, l)
			}
		}
		after, err := intact.Without(nil, still)
		if err != nil {
			t.Fatal(err)
		}
		var file bytes.Buffer
		tab := tablesOn(t, before)
		if err := lft.WriteSL2VL(&file, tab); err != nil {
			t.Fatal(err)
		}
		got, err := lft.ReadSL2VL(bytes.NewReader(file.Bytes()), "sl2vl.txt", tab)
		if err != nil {
			t.Fatalf("seed %d: onto its own fabric: %v", seed, err)
		}
		if got.MaxVL() != maxVLDigit(file.String()) {
			t.Fatalf("seed %d: MaxVL %d, the file's highest VL %d", seed, got.MaxVL(), maxVLDigit(file.String()))
		}
		_, err = lft.ReadSL2VL(bytes.NewReader(file.Bytes()), "sl2vl.txt", tablesOn(t, after))
		var nc *lft.NewCableError
		if !errors.As(err, &nc) {
			t.Fatalf("seed %d: onto the fabric with cables back: %v", seed, err)
		}
		if added := addedSwitchPorts(intact, cut, still); !slices.Contains(added, nc.Port) {
			t.Fatalf("seed %d: names %s, the cables plugged back in are on %v", seed, nc.Port, added)
		}
	}
}

// addedSwitchPorts names the switch ends of the cables in cut but not in still.
func addedSwitchPorts(f *fabric.Fabric, cut, still []int) []string {
	var out []string
	for _, i := range cut {
		if slices.Contains(still, i) {
			continue
		}
		l := f.Link(i)
		for _, end := range []fabric.PortRef{l.A, l.B} {
			if f.Kind(end.Node) == fabric.Switch {
				out = append(out, f.PortString(end))
			}
		}
	}
	return out
}

// maxVLDigit is the highest hex digit among the 0xVV bytes of SL2VL text,
// but 15 (dropped: no data VL).
func maxVLDigit(text string) int {
	vl := 0
	for _, line := range strings.Split(text, "\n") {
		fs := strings.Fields(line)
		for _, b := range fs[min(3, len(fs)):] {
			for _, d := range strings.TrimPrefix(b, "0x") {
				if v, _ := strconv.ParseUint(string(d), 16, 8); v != 15 {
					vl = max(vl, int(v))
				}
			}
		}
	}
	return vl
}
