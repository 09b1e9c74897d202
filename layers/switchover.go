package layers

import (
	"errors"
	"slices"
)

// A safe switch-over from one routing for jobs to the next.
//
// While a subnet manager programs new tables switch after switch, and
// while hosts keep path records (SLs) from before, packets follow any
// mix of the previous and the new entries, with an SL from either — or,
// on a connection older than the previous routing, from any routing
// before. Under the hop-indexed VLs (deadlock.AssignHops: a switch colour
// each; a route's SL is the colour of its second switch; a switch puts a
// packet on VL 0 from an HCA, VL 1 when the SL is its own colour, else VL
// 2) every mix stays deadlock-free when, toward each destination in each
// layer:
//
//   - every switch with hosts keeps the colour of its next switch, so its
//     hosts' SL never changes (colour(new next) = colour(previous next));
//     a switch-over after a switch-over then meets no SL but the current
//     one;
//   - every walk that takes at each switch its previous or its new next
//     hop reaches the destination switch in at most three hops, and every
//     such walk of three hops v0 → a → b → t has colour(b) ≠ SL, where SL
//     = colour(a), v0's SL by the first rule.
//
// Then hop i of every mixed walk travels on VL i, the proof of AssignHops
// (under its four-hop rule too, on a fabric with cables out: a third
// switch fed by the second still puts the walk on VL 2; a tree with a
// four-hop route is not moved, as some mixed walk of it has four hops).
// (Without the first rule a switch whose walks all take two hops could
// change its SL, and a later switch-over lengthen them to three hops under
// an SL its hosts still hold: VLs 0, 2, 1.) The mixes are of two routings
// at a time: a subnet manager programs every switch in a sweep, so the
// previous routing is in place when the next is made. With the colours
// kept, the SL-to-VL tables stay as they are. The jobs' traffic pass,
// given a SwitchOver, starts from the previous routing's tables and makes
// only moves that keep this (switchGuard); a destination no move touches
// keeps its entries.

// SwitchOver asks Compute to route for Options.Traffic starting from
// Previous, a routing of the same fabric that Compute made with the same
// options (but traffic), and to make only moves whose mixes with
// Previous's tables stay deadlock-free under the hop-indexed VLs of
// Colours (a switch colour per switch index, deadlock.Assignment.Colors
// of Previous's assignment, kept for the new routing).
type SwitchOver struct {
	Previous *Routing
	Colours  []int
}

// ErrSwitchOver is Compute's error for a SwitchOver whose previous
// routing is not one of the same fabric and layers.
var ErrSwitchOver = errors.New("the switch-over's previous routing is not of this fabric in its numbering, with as many layers, or its colours are not one per switch")

// startFrom puts the tables, sharing and statistics of so.Previous into
// r, a new routing of g, and returns the guard of the traffic pass.
func startFrom(g *graph, r *Routing, so *SwitchOver) (*switchGuard, error) {
	p := so.Previous
	if p == nil || p.layers != r.layers || len(so.Colours) != len(g.ids) || !sameNodes(p.g, g) {
		return nil, ErrSwitchOver
	}
	spent := lostPairs(g, r, p) // r holds the routing without the jobs
	r.Trees, r.share, r.fatTree = p.Trees, slices.Clone(p.share), p.fatTree
	for k := range r.next {
		copy(r.next[k], p.next[k])
	}
	r.Stats = r.Stats[:0]
	for _, st := range p.Stats {
		st.Lengths = slices.Clone(st.Lengths)
		r.Stats = append(r.Stats, st)
	}
	r.template = nil
	return &switchGuard{prev: p, colour: so.Colours, r: r, spent: spent}, nil
}

// pairRoutes lists s's routes to d in every layer of r as channels of g.
func (g *graph) pairRoutes(r *Routing, s, d int) [][]int32 {
	var rs [][]int32
	for k := 0; k < r.layers; k++ {
		var chs []int32
		r.walk(k, s, d, func(x, e int) { chs = append(chs, int32(g.chOff[x]+e)) })
		rs = append(rs, chs)
	}
	return rs
}

// lostPairs counts the pairs (switch with hosts, destination endpoint)
// with keepPaths disjoint routes over the layers in base and fewer in
// cur: what earlier passes for jobs spent of the pass's budget
// (lossPermille). Cost: O(endpoints × S × layers) to compare the tables,
// and O(S × layers) walks per destination whose tables differ (those of
// the jobs' hosts).
func lostPairs(g *graph, base, cur *Routing) int {
	lost := 0
	S := len(g.adj)
	for d := 0; d < g.nEP; d++ {
		same := true
		for k := 0; k < base.layers && same; k++ {
			same = slices.Equal(base.next[k][d*S:(d+1)*S], cur.next[k][d*S:(d+1)*S])
		}
		if same {
			continue // every route toward d as it was: no pair lost
		}
		for s := range g.adj {
			if g.hosts[s] > 0 && s != g.dests[d].Switch && disjointRoutes(g.pairRoutes(base, s, d)) >= keepPaths && disjointRoutes(g.pairRoutes(cur, s, d)) < keepPaths {
				lost++
			}
		}
	}
	return lost
}

// sameNodes tells whether a and b number the same switches, by GUID,
// cabled alike, with the same endpoints.
func sameNodes(a, b *graph) bool {
	if len(a.ids) != len(b.ids) || a.nEP != b.nEP || !slices.Equal(a.peer, b.peer) || !slices.Equal(a.chOff, b.chOff) || !slices.Equal(a.hosts, b.hosts) {
		return false
	}
	for s := range a.ids {
		if a.f.GUID(a.ids[s]) != b.f.GUID(b.ids[s]) {
			return false
		}
	}
	for d := range a.dests[:a.nEP] {
		if a.dests[d].Switch != b.dests[d].Switch || a.f.GUID(a.dests[d].Port.Node) != b.f.GUID(b.dests[d].Port.Node) || a.dests[d].Port.Port != b.dests[d].Port.Port {
			return false
		}
	}
	return true
}

// switchGuard judges the traffic pass's moves against the previous
// routing (see the top of this file).
type switchGuard struct {
	prev   *Routing
	colour []int
	r      *Routing // the routing being built, before the move
	// spent counts the pairs the previous routing's pass for jobs took
	// below keepPaths disjoint routes (lostPairs): the pass starts there
	spent int
}

// allows tells whether every mix of the previous tables toward d in
// layer k with the current ones after move mv keeps the rule above.
// Cost: O(S) walks of at most three hops.
func (sg *switchGuard) allows(k, d int, mv trafficMove, g *graph) bool {
	y := g.adj[mv.x][mv.e].Peer
	now := func(v int) int {
		switch {
		case v == mv.x:
			return y
		case mv.via >= 0 && v == y:
			return g.adj[y][mv.via].Peer
		}
		return sg.r.NextSwitch(k, v, d)
	}
	t := g.dests[d].Switch
	for v0 := range g.adj {
		if v0 != t && !sg.walksAllowed(k, d, v0, t, now) {
			return false
		}
	}
	return true
}

// walksAllowed checks v0's SL and every mixed walk from v0 toward d in
// layer k (now: the current next switches, the move made).
func (sg *switchGuard) walksAllowed(k, d, v0, t int, now func(int) int) bool {
	both := func(v int) [2]int { return [2]int{sg.prev.NextSwitch(k, v, d), now(v)} }
	first := both(v0)
	if first[0] < 0 || first[1] < 0 {
		return false // (a finished routing reaches every destination)
	}
	hosts := sg.r.g.hosts[v0] > 0
	sl := sg.colour[first[0]]
	if hosts && sg.colour[first[1]] != sl {
		return false // the hosts' SL would change
	}
	for _, a := range first {
		if a == t {
			continue
		}
		for _, b := range both(a) {
			if b < 0 || b == v0 {
				return false
			}
			if b == t {
				continue
			}
			for _, c := range both(b) {
				if c != t {
					return false // a fourth hop, or a loop
				}
			}
			if hosts && sg.colour[b] == sl {
				return false // hop 2 would not rise above hop 1's VL 1
			}
		}
	}
	return true
}
