package layers

import (
	"testing"

	"slimroute/fabric"
	"slimroute/slimfly"
)

// TestMendingGivesShortPairsPaths routes generated fabrics (those of
// TestBalanceKeepsItsPromises, which judges the mending's promises) with
// and without the mending of short pairs, and counts by walking the
// tables the (source switch, endpoint) pairs with at least min(3, layers)
// disjoint in-bounds paths: over the cases, mending must give more
// pairs their paths than balancing alone.
func TestMendingGivesShortPairsPaths(t *testing.T) {
	var with, without int
	forBalanceCases(t, 11, 12, 6, func(i int, f *fabric.Fabric, o Options) {
		u := o
		u.unmended = true
		r0, err := Compute(f, u)
		if err != nil {
			return // a draw that split the fabric
		}
		r1, err := Compute(f, o)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		a, b := pairsWithThree(r0), pairsWithThree(r1)
		t.Logf("case %d (%d layers): %d pairs with three paths unmended, %d mended", i, o.Layers, a, b)
		without += a
		with += b
	})
	if with <= without {
		t.Fatalf("mended routings give %d pairs three disjoint paths, unmended %d", with, without)
	}
}

// TestMendingOnSlimFly checks the same on Slim Fly q = 7 with default
// settings, where pairs of switches two hops apart lost their third path
// to the tails of other sources' paths.
func TestMendingOnSlimFly(t *testing.T) {
	f, err := slimfly.Build(slimfly.Params{Q: 7})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Layers: 4, Workers: 2, NoRegrow: true}
	u := o
	u.unmended = true
	r0, err := Compute(f, u)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := Compute(f, o)
	if err != nil {
		t.Fatal(err)
	}
	a, b := pairsWithThree(r0), pairsWithThree(r1)
	if b <= a {
		t.Fatalf("q = 7: %d pairs with three disjoint paths mended, %d unmended", b, a)
	}
	t.Logf("q = 7: %d pairs with three disjoint paths unmended, %d mended", a, b)
}

// pairsWithThree counts the (source switch, endpoint) pairs of r with
// at least min(3, layers) disjoint paths, layer 0's and those of layers
// ≥ 1 within the bounds, walking the tables.
func pairsWithThree(r *Routing) int {
	n := 0
	for d := 0; d < r.NumEndpoints(); d++ {
		for s := 0; s < r.NumSwitches(); s++ {
			if s == r.DestSwitch(d) || r.Hosts(s) == 0 {
				continue
			}
			var paths [][]int
			for k := 0; k < r.NumLayers(); k++ {
				p, _ := r.PathChannels(k, s, d, nil)
				paths = append(paths, p)
			}
			dist := len(paths[0])
			lo, hi := r.Bounds.Min, r.Bounds.Max
			if r.Bounds.PerPair {
				lo, hi = dist, min(dist+1, MaxSearchLen)
			}
			in := func(k, h int) bool { return k == 0 || (h >= lo && h <= hi) }
			if mostDisjoint(paths, in) >= min(3, r.NumLayers()) {
				n++
			}
		}
	}
	return n
}
