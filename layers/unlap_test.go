package layers

import (
	"slices"
	"testing"

	"slimroute/fabric"
)

// TestUnlapTakesOverlapsOff routes generated Slim Flies (regrowCase)
// regrown with and without unlap and judges the difference by walking the
// tables (nothing of unlap.go or regrow.go is used):
//   - the routing rules hold (checkRouting);
//   - no fewer pairs have three disjoint paths;
//   - no channel of a layer ≥ 1 ends above the busier of its load
//     without unlap and 1.29 × the layer's mean, none over all layers
//     above the busiest without;
//   - no case has more overlaps — two routes of a (source switch,
//     destination endpoint) pair that start on the same channel, or end
//     on the same channel — and some case has fewer.
func TestUnlapTakesOverlapsOff(t *testing.T) {
	fewer := 0
	forRegrowCases(t, 41, func(t *testing.T, i int, f *fabric.Fabric, o Options) {
		o.unlapped = true
		r0, err := Compute(f, o)
		if err != nil {
			t.Skipf("%v", err) // a draw that split the fabric
		}
		o.unlapped = false
		r1, err := Compute(f, o)
		if err != nil {
			t.Fatal(err)
		}
		checkRouting(t, f, r1)
		if a, b := pairsWithThree(r0), pairsWithThree(r1); b < a {
			t.Errorf("%d pairs with three disjoint paths with unlap, %d without", b, a)
		}
		before, after := walkedLoads(r0), walkedLoads(r1)
		L := len(before) - 1
		for k := 1; k < L; k++ {
			target := int64(1.29 * mean(before[k]))
			for c, a := range after[k] {
				if a > max(before[k][c], target) {
					t.Errorf("layer %d channel %d: %d routes with unlap, %d without, target %d", k, c, a, before[k][c], target)
				}
			}
		}
		if b, a := slices.Max(before[L]), slices.Max(after[L]); a > b {
			t.Errorf("busiest channel over all layers %d with unlap, %d without", a, b)
		}
		b, a := overlapsOf(r0), overlapsOf(r1)
		t.Logf("overlaps %d → %d", b, a)
		if a > b {
			t.Errorf("%d overlaps with unlap, %d without", a, b)
		}
		if a < b {
			fewer++
		}
	})
	if fewer == 0 {
		t.Fatal("no case has fewer overlaps: the generator does not exercise unlap")
	}
}

// overlapsOf counts, over the (source switch with hosts, destination
// endpoint) pairs of r and the pairs of their routes, those that start on
// the same channel and those that end on the same channel.
func overlapsOf(r *Routing) int {
	n := 0
	paths := make([][]int, r.NumLayers())
	for d := 0; d < r.NumEndpoints(); d++ {
		for s := 0; s < r.NumSwitches(); s++ {
			if s == r.DestSwitch(d) || r.Hosts(s) == 0 {
				continue
			}
			for k := range paths {
				paths[k], _ = r.PathChannels(k, s, d, paths[k][:0])
			}
			for i := range paths {
				for j := i + 1; j < len(paths); j++ {
					p, q := paths[i], paths[j]
					if p[0] == q[0] {
						n++
					}
					if p[len(p)-1] == q[len(q)-1] {
						n++
					}
				}
			}
		}
	}
	return n
}
