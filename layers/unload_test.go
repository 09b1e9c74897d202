package layers

import (
	"slices"
	"testing"

	"slimroute/fabric"
)

// TestUnloadKeepsItsPromises runs the unloading pass on generated Slim
// Flies (q = 4, 5 and 7, intact, with failed cables or without a switch,
// shared and own trees, seeds), routed without balancing so that their
// layers have hot channels, and judges the result by walking the tables
// (nothing of unload.go or regrow.go is used):
//   - every route reaches its destination within its bounds, layer 0
//     minimal (checkRouting);
//   - no fewer (source switch, destination endpoint) pairs have three
//     disjoint paths;
//   - no channel of a layer ≥ 1 gains routes beyond 1.29 × the layer's
//     mean before (the pass's target), and no channel's load over all
//     layers ends above the busiest before (all-to-all traffic);
//   - where the pass lowers the busiest channel over all layers of an
//     intact fabric, that ends within 1.16 × the mean (its second phase's
//     target, 1.15: they leave it room; a q = 4 without a switch ended at
//     1.18);
//
// and requires that some case lowers a layer's busiest channel, and some
// the busiest over all layers.
func TestUnloadKeepsItsPromises(t *testing.T) {
	lowered, loweredTotal := 0, 0
	forRegrowCases(t, 29, func(t *testing.T, i int, f *fabric.Fabric, o Options) {
		o.Unbalanced = true
		r, err := Compute(f, o)
		if err != nil {
			t.Skipf("%v", err) // a draw that split the fabric
		}
		before, three := walkedLoads(r), pairsWithThree(r)
		if regrowApplies(r.g, r) {
			unload(r.g, r, o.Seed, true, readLedger(r.g, r))
			if r.g.sym != nil { // the pass moves the representatives' routes: map them, as Compute does
				r.g.sym.expand(r.g, r)
			}
		}
		after := walkedLoads(r)
		checkRouting(t, f, r)
		if n := pairsWithThree(r); n < three {
			t.Errorf("%d pairs with three disjoint paths after unloading, %d before", n, three)
		}
		for k := 1; k < len(before)-1; k++ {
			target := int64(1.29 * mean(before[k]))
			for c, a := range after[k] {
				if a > max(before[k][c], target) {
					t.Errorf("layer %d channel %d: %d routes after, %d before, target %d", k, c, a, before[k][c], target)
				}
			}
			if b, a := slices.Max(before[k]), slices.Max(after[k]); a < b {
				lowered++
			}
		}
		if b, a := slices.Max(before[len(before)-1]), slices.Max(after[len(after)-1]); a > b {
			// the pass's cap over all layers
			t.Errorf("busiest channel over all layers %d after, %d before", a, b)
		} else if a < b {
			loweredTotal++
			intact := len(o.AvoidLinks) == 0 && !failedSwitch(i)
			if x := float64(a) / mean(after[len(after)-1]); intact && x > 1.16 {
				t.Errorf("busiest channel over all layers %.3f × the mean, above the second phase's 1.15", x)
			}
		}
	})
	if lowered == 0 || loweredTotal == 0 {
		t.Fatalf("%d layers' and %d cases' busiest channel over all layers lowered: the generator does not exercise the pass", lowered, loweredTotal)
	}
}

// walkedLoads returns the routes over every channel, walking r's tables:
// per layer, then (last) over all layers; a route counts its source
// switch's hosts.
func walkedLoads(r *Routing) [][]int64 {
	L := r.NumLayers()
	out := make([][]int64, L+1)
	C := r.g.chOff[len(r.g.adj)]
	for k := range out {
		out[k] = make([]int64, C)
	}
	var buf []int
	for k := 0; k < L; k++ {
		for d := 0; d < r.NumEndpoints(); d++ {
			for s := 0; s < r.NumSwitches(); s++ {
				if s == r.DestSwitch(d) || r.Hosts(s) == 0 {
					continue
				}
				buf, _ = r.PathChannels(k, s, d, buf[:0])
				for _, c := range buf {
					out[k][c] += int64(r.Hosts(s))
					out[L][c] += int64(r.Hosts(s))
				}
			}
		}
	}
	return out
}

func mean(load []int64) float64 {
	var sum int64
	for _, v := range load {
		sum += v
	}
	return float64(sum) / float64(max(len(load), 1))
}
