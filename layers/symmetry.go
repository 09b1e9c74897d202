package layers

import (
	"slimroute/slimfly"
)

// Symmetric expansion.
//
// A Slim Fly is mapped onto itself by its q translations (slimfly.
// Translations), a group acting freely on the switches: every switch's
// orbit has q switches. An automorphism maps a destination's layered trees
// onto trees of its image with the same route lengths and the same
// disjoint paths, so Compute searches the trees of one destination switch
// per orbit (2q of the 2q²) and maps them onto the others (expand): a
// routing invariant under the group.
//
// The passes keep their per-channel ledgers as if every tree were there:
// a representative tree's load on a channel is charged to every channel
// of the channel's orbit (charge), which is exactly the load of the
// expanded routing, since the group acts freely; a move priced on several
// channels keys them by their orbit (chanRep), whose channels all carry
// the same load. The statistics count the representatives' pairs q times.
// Recognising the fabric depends on its switch graph only, not on names,
// GUIDs or the order of the input; a fabric with a failed cable or switch
// is no Slim Fly and is routed in full.

// symmetry is the group a routing is built invariant under.
type symmetry struct {
	n       int
	sw      [][]int32 // [i][s]: image of switch s under element i (0: identity)
	ch      [][]int32 // [i][c]: image of channel c
	rep     []int32   // [s]: the least switch of s's orbit
	from    []int32   // [s]: the element mapping rep[s] onto s
	chanRep []int32   // [c]: the least channel of c's orbit
	first   []int32   // [s]: index into g.dests of s's first endpoint
}

// findSymmetry returns g in its design's order, with the translations,
// when g's switch graph is a Slim Fly's without parallel cables: switch s
// renumbered to the Index of the router it plays (slimfly.Match), each
// switch's channels in the order slimfly.Build gives its ports (PortOrder).
// Every numbering of the
// same Slim Fly is then routed alike, up to an automorphism of the design.
// The translations are returned when every switch of an orbit has as many
// endpoints, else nil; g itself and nil when it is no Slim Fly. Cost:
// recognising the graph (milliseconds up to q = 13) and O(q·C) for the
// channel maps.
func findSymmetry(g *graph) (*graph, *symmetry) {
	S := len(g.adj)
	adj := make([][]int32, S)
	for s := range adj {
		adj[s] = g.peer[g.chOff[s]:g.chOff[s+1]]
	}
	phi := slimfly.Match(adj, slimfly.TranslationBudget)
	if phi == nil {
		return g, nil
	}
	q := slimfly.QOf(S)
	g = g.renumbered(phi, slimfly.PortOrder(q))
	tr := slimfly.DesignTranslations(q)
	sym := &symmetry{n: len(tr), sw: tr, rep: make([]int32, S), from: make([]int32, S), first: make([]int32, S)}
	for s := range sym.first {
		sym.first[s] = -1
	}
	for d := g.nEP - 1; d >= 0; d-- {
		sym.first[g.dests[d].Switch] = int32(d)
	}
	for s := range adj {
		sym.rep[s] = int32(s)
		for _, p := range tr {
			if g.hosts[p[s]] != g.hosts[s] {
				return g, nil
			}
			sym.rep[s] = min(sym.rep[s], p[s])
		}
	}
	for i, p := range tr {
		for s := range adj {
			if int32(s) == sym.rep[s] {
				sym.from[p[s]] = int32(i)
			}
		}
		if !sym.mapChannels(g, p) {
			return g, nil
		}
	}
	sym.chanRep = make([]int32, g.chOff[S])
	for c := range sym.chanRep {
		sym.chanRep[c] = int32(c)
		for _, m := range sym.ch {
			sym.chanRep[c] = min(sym.chanRep[c], m[c])
		}
	}
	return g, sym
}

// mapChannels appends p's map of the channels, false when a channel has
// no image (p is no automorphism of the channels).
func (sym *symmetry) mapChannels(g *graph, p []int32) bool {
	m := make([]int32, g.chOff[len(g.adj)])
	for s := range g.adj {
		for c := g.chOff[s]; c < g.chOff[s+1]; c++ {
			x, y := p[s], p[g.peer[c]]
			m[c] = -1
			for e := g.chOff[x]; e < g.chOff[x+1]; e++ {
				if g.peer[e] == y {
					m[c] = int32(e)
				}
			}
			if m[c] < 0 {
				return false
			}
		}
	}
	sym.ch = append(sym.ch, m)
	return true
}

// charge adds v to the load of channel c and, on a symmetric routing, of
// every channel of its orbit.
func (g *graph) charge(load []int64, c int, v int64) {
	if g.sym == nil {
		load[c] += v
		return
	}
	for _, m := range g.sym.ch {
		load[m[c]] += v
	}
}

// chanRep returns the channel that stands for c's orbit (c itself
// without symmetry): all of the orbit's channels carry the same load.
func (g *graph) chanRep(c int) int {
	if g.sym == nil {
		return c
	}
	return int(g.sym.chanRep[c])
}

// searched tells whether destination d's trees are searched, not mapped
// from another destination's.
func (g *graph) searched(d int) bool {
	if g.sym == nil {
		return true
	}
	s := g.dests[d].Switch
	return g.sym.rep[s] == int32(s)
}

// expand fills the tables of every destination that was not searched
// with the image of its representative's, each layer's destinations in
// batch parts, in parallel when g.parallel (each table is written once,
// from tables that are searched, so the parts do not meet). Cost:
// O(L × dests × S).
func (sym *symmetry) expand(g *graph, r *Routing) {
	S := len(g.adj)
	for _, next := range r.next {
		n := len(next) / S
		eachWorker(batch, g.parallel, func(w int) {
			for d := w * n / batch; d < (w+1)*n/batch; d++ {
				t := g.dests[d].Switch
				if sym.rep[t] == int32(t) {
					continue
				}
				d0 := g.nEP + int(sym.rep[t]) // a switch: its own LID
				if d < g.nEP {
					d0 = int(sym.first[sym.rep[t]]) + d - int(sym.first[t])
				}
				sym.mapTable(g, next[d0*S:(d0+1)*S], next[d*S:(d+1)*S], int(sym.from[t]))
			}
		})
	}
}

// mapTable writes into to the image of table from under element i.
func (sym *symmetry) mapTable(g *graph, from, to []uint8, i int) {
	p, m := sym.sw[i], sym.ch[i]
	for s, h := range from {
		x := p[s]
		if h == hopLocal || h == hopNone {
			to[x] = h
			continue
		}
		to[x] = uint8(int(m[g.chOff[s]+int(h)]) - g.chOff[x])
	}
}

// times multiplies st's counts by n (each searched pair standing for n).
func (st LayerStats) times(n int) LayerStats {
	st.Pairs *= n
	st.InBounds *= n
	st.Fallback *= n
	st.Lengths = append([]int(nil), st.Lengths...)
	for h := range st.Lengths {
		st.Lengths[h] *= n
	}
	return st
}
