package fabric_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/slimfly"
)

// Every fabric written in a read format is recognised as that format from
// any head of its bytes that holds its first node record, whatever the file
// is called.
func TestSniffRecognisesWhatWasWritten(t *testing.T) {
	var fabrics []*fabric.Fabric
	for _, q := range []int{3, 4, 5, 7} {
		f, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		fabrics = append(fabrics, f)
	}
	for _, p := range []clos.Params{{Radix: 8}, {Levels: 3, Radix: 8}, {Radix: 12, Oversubscription: "2:1"}} {
		f, err := clos.Build(p)
		if err != nil {
			t.Fatal(err)
		}
		fabrics = append(fabrics, f)
	}
	kary, err := clos.KAryNTree(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	fabrics = append(fabrics, kary)
	rng := rand.New(rand.NewPCG(1, 2))
	for i, f := range fabrics {
		for _, format := range fabric.ReadFormats() {
			if !slices.Contains(fabric.WriteFormats(), format) {
				continue // read only (OpenSM's subnet list: TestReadOpenSMSubnet)
			}
			var b bytes.Buffer
			if err := fabric.Write(&b, f, format); err != nil {
				t.Fatal(err)
			}
			whole := b.Bytes()
			for range 50 {
				// past the first record's header and first port line
				n := min(len(whole), 600+rng.IntN(len(whole)))
				if got := fabric.Sniff(whole[:n]); got != format {
					t.Fatalf("fabric %d written as %s: the first %d bytes sniff as %q", i, format, n, got)
				}
			}
		}
	}
}

// The ibnetdiscover dumps of the reader's tests are ibnetdiscover (those the
// reader takes), the ibsim file is ibsim, and binary or other text is
// nothing.
func TestSniffOnFilesAndNonsense(t *testing.T) {
	for _, name := range []string{"ibnd-small-plain.txt", "ibnd-small-full.txt", "ibnd-small-fulllids.txt", "ibnd-small-g.txt", "ibnd-small-map.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fabric.Sniff(b); got != fabric.FormatIBNetDiscover {
			t.Errorf("%s sniffs as %q", name, got)
		}
	}
	if b, _ := os.ReadFile("testdata/small.net"); fabric.Sniff(b) != fabric.FormatIBSim {
		t.Errorf("small.net sniffs as %q", fabric.Sniff(b))
	}
	// a hand-written ibsim file may comment its headers
	if got := fabric.Sniff([]byte("Switch 8 \"leaf1\"  # rack 3\n[1] \"h1\"[1]\n")); got != fabric.FormatIBSim {
		t.Errorf("commented ibsim header sniffs as %q", got)
	}
	for _, s := range []string{"", "{\x00\x01", "hello\n", "SW     0  1 0x5346100000010000 4x SDR", "[1] \"x\"[1]\n"} {
		if got := fabric.Sniff([]byte(s)); got != "" {
			t.Errorf("%q sniffs as %q", s, got)
		}
	}
}
