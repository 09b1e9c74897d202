package deadlock_test

import (
	"testing"

	"slimroute/deadlock"
	"slimroute/hyperx"
	"slimroute/layers"
)

// TestLargeHyperXFitsSixteenSLs: on a 16 × 16 HyperX, where a DSatur
// colouring of the hop-indexed scheme needed 18 SLs, the scheme colours
// the switches by their grid (16 colours, the clique of a line) and fits
// InfiniBand's 16 SLs and 3 VLs; the verifier finds the tables acyclic on
// those VLs. A 6 × 6 one keeps DSatur's colours (fewer than 16).
func TestLargeHyperXFitsSixteenSLs(t *testing.T) {
	for _, c := range []struct {
		dims []int
		sls  int // the SLs the grid colouring takes; 0: DSatur's stay
	}{{[]int{16, 16}, 16}, {[]int{6, 6}, 0}} {
		f, err := hyperx.Build(hyperx.Params{Dims: c.dims, Endpoints: 2})
		if err != nil {
			t.Fatal(err)
		}
		r, err := layers.Compute(f, layers.Options{Layers: 4, Seed: 1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		a, err := deadlock.AssignHops(r, deadlock.Options{VLs: 4, Workers: 2})
		if err != nil {
			t.Fatalf("%v: %v", c.dims, err)
		}
		rep := check(t, r, a)
		if !rep.Acyclic() || rep.VLs > 3 || a.VLs > 3 || a.SLs > 16 {
			t.Fatalf("%v: %d VLs (verifier %d), %d SLs, acyclic %v", c.dims, a.VLs, rep.VLs, a.SLs, rep.Acyclic())
		}
		if c.sls > 0 && a.SLs != c.sls || c.sls == 0 && a.SLs >= 16 {
			t.Errorf("%v: %d SLs", c.dims, a.SLs)
		}
		t.Logf("%v: %d VLs, %d SLs; verifier: %d paths, acyclic", c.dims, a.VLs, a.SLs, rep.Walks)
	}
}
