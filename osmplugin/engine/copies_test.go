package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/internal/disguise"
	"slimroute/internal/failures"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

// TestEveryCopyRoutesAlike generates copies of Slim Flies, Clos fabrics
// and damaged ones — nodes, cables and cable ends in random orders,
// written as an ibsim net file, ibnetdiscover output or JSON and read back
// — and routes each through the plugin engine with its own LIDs (LMC 2).
// Every copy must forward exactly as `slimroute route` does on the fabric
// as built: per switch GUID, destination port GUID and LID offset, the
// same egress port.
func TestEveryCopyRoutesAlike(t *testing.T) {
	bases := copyBases(t)
	want := make([]map[forwardKey]uint8, len(bases))
	for i, f := range bases {
		g, err := f.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		res, err := pipeline.Run(g, pipeline.Config{LMC: -1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = forwarding(res.Tables)
	}
	n := 200
	if testing.Short() {
		n = 30
	}
	rng := rand.New(rand.NewPCG(27, 11))
	formats := []fabric.Format{fabric.FormatIBSim, fabric.FormatIBNetDiscover, fabric.FormatJSON}
	for c := 0; c < n; c++ {
		b := c % len(bases)
		format := formats[rng.IntN(len(formats))]
		s, err := disguise.Shuffled(bases[b], rng)
		if err != nil {
			t.Fatal(err)
		}
		g := reformatted(t, s, format)
		_, js := withLIDs(t, g, 2)
		st, err := Compute(js, "", 2, nil)
		if err != nil {
			t.Fatalf("copy %d of fabric %d (%s): %v", c, b, format, err)
		}
		got := forwarding(st.tables)
		if len(got) != len(want[b]) {
			t.Fatalf("copy %d of fabric %d (%s): %d entries, the fabric as built %d", c, b, format, len(got), len(want[b]))
		}
		for k, p := range want[b] {
			if got[k] != p {
				t.Fatalf("copy %d of fabric %d (%s): switch %s toward %s port %d offset %d: port %d, as built %d", c, b, format, k.sw, k.dst, k.port, k.off, got[k], p)
			}
		}
	}
}

// forwardKey names an LFT entry independently of the LIDs: the switch, the
// destination port and the LID offset.
type forwardKey struct {
	sw, dst   fabric.GUID
	port, off int
}

// forwarding returns t's LFT entries by forwardKey.
func forwarding(t *lft.Tables) map[forwardKey]uint8 {
	f, lids := t.Fabric(), t.LIDs()
	out := map[forwardKey]uint8{}
	for _, sw := range t.Switches() {
		for _, p := range lids.Ports() {
			for off := 0; off < 1<<p.LMC; off++ {
				k := forwardKey{sw: f.GUID(sw), dst: f.GUID(p.Port.Node), port: p.Port.Port, off: off}
				out[k] = t.Port(sw, p.Base+lft.LID(off))
			}
		}
	}
	return out
}

// copyBases returns the fabrics the copies are made of: Slim Flies q = 3,
// 4, 5, two Clos fabrics, and damaged ones (cables and a switch gone).
func copyBases(t *testing.T) []*fabric.Fabric {
	t.Helper()
	var out []*fabric.Fabric
	for _, q := range []int{3, 4, 5} {
		f, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	for _, p := range []clos.Params{{Radix: 8}, {Levels: 3, Radix: 8}} {
		f, err := clos.Build(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	for i, d := range []struct{ base, cables, switches int }{{2, 3, 0}, {2, 0, 1}, {3, 2, 0}, {1, 1, 1}} {
		g, err := failures.Draw(out[d.base], d.cables, d.switches, uint64(40+i))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

// reformatted writes f in format and reads it back.
func reformatted(t *testing.T, f *fabric.Fabric, format fabric.Format) *fabric.Fabric {
	t.Helper()
	var b bytes.Buffer
	if err := fabric.Write(&b, f, format); err != nil {
		t.Fatal(err)
	}
	g, err := fabric.Read(&b, fmt.Sprintf("copy%s", format.Extension()), format)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
