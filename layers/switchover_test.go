package layers

import (
	"math/rand/v2"
	"slices"
	"testing"

	"slimroute/slimfly"
)

// TestSwitchGuardAgreesWithEveryMixedWalk holds switchGuard.allows to a
// walk of every mix, written here without it: on Slim Fly q = 5 and 7,
// over drawn colourings (2 to 7 colours), destinations, layers and
// chains of drawn moves (one switch, or two: x over y to y's new next
// switch), each move allowed is made and the next judged from there. A
// move is good when, toward the destination, every walk from every switch
// that takes at each switch its previous or its current next hop reaches
// the destination switch without coming back to a switch, within three
// hops, and from a switch with hosts the SL (the colour of its next
// switch) is the same before and after and gives VLs that rise hop by
// hop: VL 0 out of the first switch, then VL 1 where the SL is the
// switch's colour, else VL 2.
func TestSwitchGuardAgreesWithEveryMixedWalk(t *testing.T) {
	for _, q := range []int{5, 7} {
		f, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		prev, err := Compute(f, Options{Layers: 4})
		if err != nil {
			t.Fatal(err)
		}
		g := prev.g
		S := len(g.adj)
		rng := rand.New(rand.NewPCG(uint64(q), 7))
		judged, allowed := 0, 0
		for chain := 0; chain < 200; chain++ {
			colour := make([]int, S)
			n := 2 + rng.IntN(6)
			for s := range colour {
				colour[s] = rng.IntN(n)
			}
			cur := *prev
			cur.next = make([][]uint8, len(prev.next))
			for k := range prev.next {
				cur.next[k] = slices.Clone(prev.next[k])
			}
			k, d := rng.IntN(4), rng.IntN(g.nEP)
			sg := &switchGuard{prev: prev, colour: colour, r: &cur}
			for step := 0; step < 40; step++ {
				mv, ok := drawMove(rng, g, d)
				if !ok {
					continue
				}
				got, want := sg.allows(k, d, mv, g), everyMixedWalkRises(prev, &cur, colour, k, d, mv)
				if got != want {
					t.Fatalf("q=%d chain %d step %d, move %+v toward %d in layer %d: the guard says %v, the walks %v", q, chain, step, mv, d, k, got, want)
				}
				judged++
				if got {
					allowed++
					y := g.adj[mv.x][mv.e].Peer
					cur.next[k][d*S+mv.x] = uint8(mv.e)
					if mv.via >= 0 {
						cur.next[k][d*S+y] = uint8(mv.via)
					}
				}
			}
		}
		t.Logf("q=%d: %d moves judged, %d allowed", q, judged, allowed)
		if allowed == 0 || allowed == judged {
			t.Fatalf("q=%d: %d of %d moves allowed: the draws test nothing", q, allowed, judged)
		}
	}
}

// drawMove draws a move of a switch other than d's: a new next hop, or,
// a third of the time, a new next hop whose switch takes a new one too.
func drawMove(rng *rand.Rand, g *graph, d int) (trafficMove, bool) {
	x := rng.IntN(len(g.adj))
	if x == g.dests[d].Switch {
		return trafficMove{}, false
	}
	mv := trafficMove{x: x, e: rng.IntN(len(g.adj[x])), via: -1}
	y := g.adj[x][mv.e].Peer
	if rng.IntN(3) == 0 && y != g.dests[d].Switch {
		mv.via = rng.IntN(len(g.adj[y]))
		if g.adj[y][mv.via].Peer == x {
			return trafficMove{}, false
		}
	}
	return mv, true
}

// everyMixedWalkRises follows every walk toward d in layer k that takes
// at each switch prev's next switch or cur's with mv made.
func everyMixedWalkRises(prev, cur *Routing, colour []int, k, d int, mv trafficMove) bool {
	g := cur.g
	y := g.adj[mv.x][mv.e].Peer
	next := func(v int) []int {
		n := cur.NextSwitch(k, v, d)
		switch {
		case v == mv.x:
			n = y
		case mv.via >= 0 && v == y:
			n = g.adj[y][mv.via].Peer
		}
		return []int{prev.NextSwitch(k, v, d), n}
	}
	t := g.dests[d].Switch
	var walk func(path []int, sl int) bool
	walk = func(path []int, sl int) bool {
		x := path[len(path)-1]
		if x == t {
			vl := 0 // out of the first switch
			for _, s := range path[1 : len(path)-1] {
				now := 2
				if sl == colour[s] {
					now = 1
				}
				if sl >= 0 && now <= vl {
					return false
				}
				vl = now
			}
			return true
		}
		if len(path) > 3 {
			return false // a fourth hop
		}
		for _, n := range next(x) {
			if n < 0 || slices.Contains(path, n) || !walk(append(slices.Clip(path), n), sl) {
				return false
			}
		}
		return true
	}
	for v0 := range g.adj {
		if v0 == t {
			continue
		}
		ns := next(v0)
		sl := -1 // no host: no SL, no VLs
		if g.hosts[v0] > 0 {
			if ns[0] < 0 || ns[1] < 0 || colour[ns[0]] != colour[ns[1]] {
				return false
			}
			sl = colour[ns[0]]
		}
		if !walk([]int{v0}, sl) {
			return false
		}
	}
	return true
}
