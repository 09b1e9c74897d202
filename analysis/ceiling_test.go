package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"slimroute/clos"
	"slimroute/dragonflyplus"
	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/layers"
	"slimroute/slimfly"
)

// randomSwitches builds a switch view of S switches, each with an
// endpoint, joined by random cables, parallel cables included; port
// numbers follow cable order.
func randomSwitches(rng *rand.Rand, S, cables int) *fabric.SwitchView {
	v := &fabric.SwitchView{IDs: make([]fabric.NodeID, S), Adj: make([][]fabric.Channel, S), Endpoints: make([][]fabric.PortRef, S)}
	for i := range v.IDs {
		v.IDs[i] = fabric.NodeID(i)
		v.Endpoints[i] = []fabric.PortRef{{Node: fabric.NodeID(S + i), Port: 1}}
	}
	for l := 0; l < cables; l++ {
		a, b := rng.IntN(S), rng.IntN(S)
		if a == b {
			continue
		}
		pa, pb := len(v.Adj[a])+1, len(v.Adj[b])+1
		v.Adj[a] = append(v.Adj[a], fabric.Channel{Port: pa, Peer: b, PeerPort: pb, Link: l})
		v.Adj[b] = append(v.Adj[b], fabric.Channel{Port: pb, Peer: a, PeerPort: pa, Link: l})
	}
	return v
}

// bruteCeiling lists every simple path from s to t by depth-first search
// without pruning, keeps those of an allowed length (d, or within the
// bounds: lo..hi, per pair d..d+1; the search stops at that length), and
// tries every subset.
func bruteCeiling(v *fabric.SwitchView, s, t, d int, b layers.Bounds) int {
	lo, hi := b.Min, b.Max
	if b.PerPair {
		lo, hi = d, d+1
	}
	type channel struct{ from, port int }
	var paths [][]channel
	on := map[int]bool{}
	var walk func(x int, path []channel)
	walk = func(x int, path []channel) {
		if x == t {
			if n := len(path); n == d || (n >= lo && n <= hi) {
				paths = append(paths, append([]channel(nil), path...))
			}
			return
		}
		if len(path) >= max(d, hi) {
			return // longer paths are not allowed
		}
		on[x] = true
		for _, c := range v.Adj[x] {
			if !on[c.Peer] {
				walk(c.Peer, append(path, channel{x, c.Port}))
			}
		}
		on[x] = false
	}
	walk(s, nil)
	used := map[channel]bool{}
	var best func(i int) int
	best = func(i int) int {
		if i == len(paths) {
			return 0
		}
		n := best(i + 1) // without path i
		for _, c := range paths[i] {
			if used[c] {
				return n
			}
		}
		for _, c := range paths[i] {
			used[c] = true
		}
		n = max(n, 1+best(i+1))
		for _, c := range paths[i] {
			used[c] = false
		}
		return n
	}
	return best(0)
}

func randomBounds(rng *rand.Rand) layers.Bounds {
	switch rng.IntN(3) {
	case 0:
		return layers.Bounds{PerPair: true}
	case 1:
		return layers.Bounds{} // the default rule
	}
	lo := 1 + rng.IntN(3)
	return layers.Bounds{Min: lo, Max: lo + rng.IntN(5-lo)}
}

// Both methods, the flow network (bounds of at most 3 hops) and the
// enumeration with branch and bound (any bounds), agree with a brute force
// on every pair of thousands of small random fabrics.
func TestCeilingMatchesBruteForceOnRandomFabrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2026))
	pairs, flows := 0, 0
	seen := map[int]int{}
	for n := 0; n < 3000; n++ {
		S := 2 + rng.IntN(6)
		v := randomSwitches(rng, S, rng.IntN(5*S/2+1))
		b := randomBounds(rng)
		limit := 1 + rng.IntN(6)
		if rng.IntN(2) == 0 {
			limit = 255
		}
		c, err := computeCeilings(v, b, limit, nil)
		if err != nil {
			t.Fatalf("case %d: %v", n, err)
		}
		// the default rule as layers.Compute resolves it
		if (b == layers.Bounds{}) {
			b = resolveBounds(b, c.dist)
		}
		if c.bounds != b {
			t.Fatalf("case %d: bounds %+v, want %+v", n, c.bounds, b)
		}
		fn := newFlowNet(S)
		off := channelOffsets(v)
		pk := &packer{used: make([]bool, off[S]), chOff: off, v: v, dist: c.dist, S: S, name: func(s int) string { return fmt.Sprint(s) }}
		for s := 0; s < S; s++ {
			for u := 0; u < S; u++ {
				d := c.dist[s*S+u]
				if s == u || d == unreachable {
					continue
				}
				want := min(limit, bruteCeiling(v, s, u, int(d), b))
				seen[want]++
				if got := int(c.value[s*S+u]); got != want {
					t.Fatalf("case %d (%d switches, bounds %+v, limit %d): %d → %d ceiling %d, brute force %d; adjacency %v", n, S, b, limit, s, u, got, want, v.Adj)
				}
				allowed := allowedLengths(b, int(d))
				got, err := pk.ceiling(s, u, allowed, limit)
				if err != nil || got != want {
					t.Fatalf("case %d: %d → %d enumeration %d (%v), brute force %d", n, s, u, got, err, want)
				}
				if allowed>>4 == 0 {
					flows++
					if got := fn.maxFlow(v, s, u, allowed, limit); got != want {
						t.Fatalf("case %d: %d → %d flow %d, brute force %d", n, s, u, got, want)
					}
				}
				pairs++
			}
		}
	}
	t.Logf("%d pairs, %d within 3 hops (both methods); pairs by ceiling %v", pairs, flows, seen)
}

// On Slim Fly the ceiling at ≤ 3 hops (layers' default bounds: the
// distance, and 2..3) matches the brute force on every pair of q = 5 and
// sampled pairs of q = 7;
// the share of (source switch, destination endpoint) pairs that can have
// three disjoint paths then comes out as issue 15 measured it, and on q = 5
// the pairs that cannot are exactly the adjacent ones.
func TestSlimFlyCeilingAtThreeHops(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	for _, c := range []struct {
		q     int
		share float64 // issue 15's table, a sanity check only
	}{{5, 0.857}, {7, 1}, {11, 1}} {
		f, err := slimfly.Build(slimfly.Params{Q: c.q})
		if err != nil {
			t.Fatal(err)
		}
		v := f.SwitchView()
		S := len(v.IDs)
		ceil, err := computeCeilings(v, layers.Bounds{}, 255, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := (layers.Bounds{Min: 2, Max: 3}); ceil.bounds != want {
			t.Fatalf("q=%d: bounds %v, want %v (diameter 2)", c.q, ceil.bounds, want)
		}
		pairs, three, shortAdjacent, adjacent := 0, 0, 0, 0
		for s := 0; s < S; s++ {
			for u := 0; u < S; u++ {
				if s == u {
					continue
				}
				d, n := int(ceil.dist[s*S+u]), int(ceil.value[s*S+u])
				if c.q == 5 || (c.q == 7 && rng.IntN(100) == 0) { // the brute force is exponential in the paths
					if want := bruteCeiling(v, s, u, d, ceil.bounds); n != want {
						t.Fatalf("q=%d: %d → %d (distance %d): ceiling %d, brute force %d", c.q, s, u, d, n, want)
					}
				}
				eps := len(v.Endpoints[u])
				pairs += eps
				if n >= 3 {
					three += eps
				}
				if d == 1 {
					adjacent += eps
					if n < 3 {
						shortAdjacent += eps
					}
					if c.q == 5 && n != 1 {
						t.Fatalf("q=5: adjacent %d → %d has ceiling %d; girth 5 leaves only the cable", s, u, n)
					}
				}
			}
		}
		share := float64(three) / float64(pairs)
		t.Logf("q=%d: %.1f %% of pairs can have ≥ 3 disjoint paths at ≤ 3 hops; adjacent pairs below 3: %d of %d", c.q, 100*share, shortAdjacent, adjacent)
		if math.Abs(share-c.share) > 0.0005 {
			t.Errorf("q=%d: share %.4f, issue 15 measured %.3f", c.q, share, c.share)
		}
		// q = 5 is the Hoffman–Singleton graph (degree 7, girth 5): no
		// triangle or 4-cycle, so an adjacent pair has only its cable within
		// 3 hops (ceiling 1) and 3 is possible for the 42 of 49 others.
		if c.q == 5 && (pairs-three != adjacent || shortAdjacent != adjacent || three*49 != pairs*42) {
			t.Errorf("q=5: %d of %d pairs below 3, want exactly the %d adjacent ones (42/49 at 3)", pairs-three, pairs, adjacent)
		}
	}
}

// go test ./analysis -run - -bench Ceilings: every switch pair of Slim Fly
// q = 13 (338 switches; the flow network) and of a three-level fat tree of
// radix 16 (320 switches, 128 leaves; the enumeration: 4 hops) at the
// default bounds, capped at 4 layers.
func BenchmarkCeilingsSlimFly13(b *testing.B) {
	f, err := slimfly.Build(slimfly.Params{Q: 13})
	if err != nil {
		b.Fatal(err)
	}
	benchmarkCeilings(b, f)
}

func BenchmarkCeilingsClos3(b *testing.B) {
	f, err := clos.Build(clos.Params{Levels: 3, Radix: 16})
	if err != nil {
		b.Fatal(err)
	}
	benchmarkCeilings(b, f)
}

func benchmarkCeilings(b *testing.B, f *fabric.Fabric) {
	v := f.SwitchView()
	for b.Loop() {
		if _, err := computeCeilings(v, layers.Bounds{}, 4, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// Zero bounds resolve as layers.Compute resolves them, so the ceiling of
// another engine's tables uses the bounds slimroute would route with.
func TestDefaultBoundsAreThoseOfLayers(t *testing.T) {
	sf, _ := slimfly.Build(slimfly.Params{Q: 5})
	two, err := clos.Build(clos.Params{Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	three, err := clos.Build(clos.Params{Levels: 3, Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	dfp, err := dragonflyplus.Build(dragonflyplus.Params{Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*fabric.Fabric{sf, two, three, dfp} {
		r, err := layers.Compute(f, layers.Options{Layers: 2})
		if err != nil {
			t.Fatal(err)
		}
		c, err := computeCeilings(f.SwitchView(), layers.Bounds{}, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.bounds != r.Bounds {
			t.Errorf("%d switches: bounds %v, layers routes with %v", len(f.SwitchView().IDs), c.bounds, r.Bounds)
		}
	}
}

// With no bounds given, the ceiling takes the bounds layers.Compute routes
// with: 2..3 hops on a Slim Fly, intact or with cables or switches failed
// (seeded draws on q = 5 and 7, up to 5 % of the cables and 2 switches),
// per pair on a three-level fat tree.
func TestCeilingBoundsAreTheRoutingsOnDamagedFabrics(t *testing.T) {
	var fabrics []*fabric.Fabric
	for _, q := range []int{5, 7} {
		f, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		fabrics = append(fabrics, f)
		n := len(failures.InterSwitch(f))
		for seed := uint64(1); seed <= 20; seed++ {
			g, err := failures.Draw(f, int(seed)%(n/20+1), int(seed)%3, seed)
			if err != nil {
				t.Fatal(err)
			}
			fabrics = append(fabrics, g)
		}
	}
	ft, err := clos.Build(clos.Params{Levels: 3, Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	fabrics = append(fabrics, ft)
	for i, f := range fabrics {
		r, err := layers.Compute(f, layers.Options{Layers: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		c, err := computeCeilings(f.SwitchView(), layers.Bounds{}, 4, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.bounds != r.Bounds {
			t.Errorf("fabric %d: the ceiling takes bounds %v, the routing %v", i, c.bounds, r.Bounds)
		}
	}
}
