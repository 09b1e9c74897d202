package layers

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"slimroute/fabric"
	"slimroute/slimfly"
)

// TestRegrowKeepsTheRulesAndGainsPaths routes generated Slim Flies (q = 4,
// 5 and 7, intact, with failed cables or without a switch, shared and own
// trees, seeds) with and without Options.NoRegrow and judges the regrown
// routing by walking its tables (nothing of regrow.go is used):
//   - every route reaches its destination over cabled ports, no longer
//     than the bounds or its distance allow, layer 0 minimal;
//   - the tables are the same on one worker and on two;
//   - no fewer (source switch, destination endpoint) pairs have three
//     disjoint paths of an allowed length than without regrowing;
//
// and requires that some case gains pairs, and some damaged one (a failed
// cable or switch leaves some pairs three hops apart: the pass once
// required every pair within two and left those fabrics alone).
func TestRegrowKeepsTheRulesAndGainsPaths(t *testing.T) {
	gained, gainedDamaged := 0, 0
	forRegrowCases(t, 15, func(t *testing.T, i int, f *fabric.Fabric, o Options) {
		o.NoRegrow = true
		r0, err := Compute(f, o)
		if err != nil {
			t.Skipf("%v", err) // a draw that split the fabric
		}
		o.NoRegrow = false
		r1, err := Compute(f, o)
		if err != nil {
			t.Fatal(err)
		}
		checkRouting(t, f, r1)
		if i%2 == 0 {
			o.Workers = 3 - o.Workers
			r2, err := Compute(f, o)
			if err != nil {
				t.Fatal(err)
			}
			for k := range r1.next {
				if !slices.Equal(r1.next[k], r2.next[k]) {
					t.Fatalf("layer %d differs between %d workers and %d", k, 3-o.Workers, o.Workers)
				}
			}
		}
		a, b := pairsWithThree(r0), pairsWithThree(r1)
		t.Logf("q-case %d: %d pairs with three disjoint paths, %d regrown", i, a, b)
		if b < a {
			t.Errorf("%d pairs with three disjoint paths regrown, %d without", b, a)
		}
		if b > a {
			gained++
			if len(o.AvoidLinks) > 0 || failedSwitch(i) {
				gainedDamaged++
			}
		}
	})
	if gained == 0 || gainedDamaged == 0 {
		t.Fatalf("%d cases gained pairs, %d of them damaged: the generator does not exercise the pass", gained, gainedDamaged)
	}
}

// forRegrowCases calls fn with 8 drawn cases (3 with -short), each in a
// subtest.
func forRegrowCases(t *testing.T, seed uint64, fn func(t *testing.T, i int, f *fabric.Fabric, o Options)) {
	rng := rand.New(rand.NewPCG(seed, 0))
	n := 8
	if testing.Short() {
		n = 3
	}
	for i := 0; i < n; i++ {
		f, o := regrowCase(t, rng, i)
		t.Run(fmt.Sprintf("case=%d", i), func(t *testing.T) { fn(t, i, f, o) })
	}
}

// regrowCase draws Slim Fly number i and its options.
func regrowCase(t *testing.T, rng *rand.Rand, i int) (*fabric.Fabric, Options) {
	o := Options{Layers: 4, Seed: uint64(i), Trees: []int{-1, 3, 6}[rng.IntN(3)], Workers: 1 + rng.IntN(2)}
	q := []int{7, 4, 7, 5}[i%4]
	f, err := slimfly.Build(slimfly.Params{Q: q})
	if err != nil {
		t.Fatal(err)
	}
	if i%3 == 2 {
		for j, l := range f.Links() {
			if f.Node(l.A.Node).Kind == fabric.Switch && f.Node(l.B.Node).Kind == fabric.Switch && rng.IntN(300) == 0 {
				o.AvoidLinks = append(o.AvoidLinks, j)
			}
		}
	}
	if failedSwitch(i) { // some pairs three hops apart
		sw := f.IDsOf(fabric.Switch)
		if f, err = f.Without([]fabric.NodeID{sw[rng.IntN(len(sw))]}, nil); err != nil {
			t.Fatal(err)
		}
	}
	return f, o
}

// failedSwitch tells whether regrowCase i loses a switch.
func failedSwitch(i int) bool { return i%4 == 1 }

// TestOwnHopFollowsTheTable: the layer-0 route of a tree's other endpoint
// is read as its second switch and its last switch before t, also when
// failures made it three hops long (it was once taken for two), and
// refused past three.
func TestOwnHopFollowsTheTable(t *testing.T) {
	// t = 0; 1 → 0, 2 → 1, 3 → 2, 4 → 3
	gt := growTree{t: 0, l0: [][]int32{{-1, 0, 1, 2, 3}}}
	for _, c := range []struct {
		s    int
		f, l int32
		ok   bool
	}{{1, 0, 1, true}, {2, 1, 1, true}, {3, 2, 1, true}, {4, 0, 0, false}} {
		f, l, ok := gt.ownHop(0, c.s)
		if f != c.f || l != c.l || ok != c.ok {
			t.Errorf("switch %d: (%d, %d, %v), want (%d, %d, %v)", c.s, f, l, ok, c.f, c.l, c.ok)
		}
	}
}
