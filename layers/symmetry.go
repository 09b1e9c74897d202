package layers

import (
	"slices"

	"slimroute/hyperx"
	"slimroute/slimfly"
)

// Symmetric expansion.
//
// A Slim Fly is mapped onto itself by the q² shears of its design
// (slimfly.DesignShears: (0, x, y) → (0, x + a, y + a·x + f), (1, m, c) →
// (1, m + a, c − a·m − a² + f)), a group acting freely on the switches
// with the two sides of the design as its orbits. An automorphism maps a
// destination's layered trees onto trees of its image with the same
// route lengths and the same disjoint paths, so Compute searches the
// trees of one destination switch per orbit (2 of the 2q²) and maps them
// onto the others (expand): a routing invariant under the group. Where
// the shears do not pay (below q = 7, or channel maps past shearEntries)
// it takes their subgroup of the q translations (y and c shifted alike:
// 2q orbits of q switches).
//
// The passes keep their per-channel ledgers as if every tree were there:
// a representative tree's load on a channel is charged to every channel
// of the channel's orbit (charge), which is exactly the load of the
// expanded routing, since the group acts freely; a move priced on several
// channels keys them by their orbit (chanRep), whose channels all carry
// the same load. The statistics count the representatives' pairs once per
// element of the group.
// Recognising the fabric depends on its switch graph only, not on names,
// GUIDs or the order of the input; a fabric with a failed cable or switch
// is no Slim Fly and is routed in full.
//
// A HyperX of one or two dimensions is routed the same way under its
// grid's translations (hyperx.Match, hyperx.DesignTranslations): they act
// on the switches transitively and freely, so one destination switch is
// searched — for a 12×8 HyperX, 1 of 96.

// symmetry is the group a routing is built invariant under.
type symmetry struct {
	n       int
	sw      [][]int32 // [i][s]: image of switch s under element i (0: identity)
	ch      [][]int32 // [i][c]: image of channel c
	rep     []int32   // [s]: the least switch of s's orbit
	from    []int32   // [s]: the element mapping rep[s] onto s
	chanRep []int32   // [c]: the least channel of c's orbit
	// orbits lists the channels orbit by orbit, each orbit's from
	// orbits[orbitAt[c]] on (n of them: the group acts freely)
	orbits  []int32
	orbitAt []int32 // [c]: where c's orbit starts in orbits
	first   []int32 // [s]: index into g.dests of s's first endpoint
}

// findSymmetry returns g in its design's order, with the group recognise
// gives, when g's switch graph is a Slim Fly's or a HyperX's of one or two
// dimensions without parallel cables (recognise): switch s renumbered to
// the Index of the switch it plays, each switch's channels in the
// design's order (a Slim Fly's as slimfly.Build gives its ports, a
// HyperX's by the Index of the peer). Every numbering of the same design
// is then routed alike, up to an automorphism of the design. The
// group is returned when every switch of an orbit has as many
// endpoints, else nil; g itself and nil when it is no such design. Cost:
// recognising the graph (a Slim Fly: milliseconds up to q = 13; a
// HyperX: Σ sizes breadth-first searches) and O(elements·C) for the
// channel maps.
func findSymmetry(g *graph) (*graph, *symmetry) {
	g, tr, ok := inDesignOrder(g)
	if !ok {
		return g, nil
	}
	S := len(g.adj)
	sym := &symmetry{n: len(tr), sw: tr, rep: make([]int32, S), from: make([]int32, S), first: make([]int32, S)}
	for s := range sym.first {
		sym.first[s] = -1
	}
	for d := g.nEP - 1; d >= 0; d-- {
		sym.first[g.dests[d].Switch] = int32(d)
	}
	for s := range S {
		sym.rep[s] = int32(s)
		for _, p := range tr {
			if g.hosts[p[s]] != g.hosts[s] {
				return g, nil
			}
			sym.rep[s] = min(sym.rep[s], p[s])
		}
	}
	for i, p := range tr {
		for s := range S {
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
	sym.listOrbits()
	return g, sym
}

// designOrder is findSymmetry without the group: g in its design's order
// when it is a Slim Fly or a HyperX of one or two dimensions, else g
// itself. A template's fabric needs no more (template.go). Cost:
// recognising the graph (q = 11: 2 ms of findSymmetry's 10).
func designOrder(g *graph) *graph {
	g, _, _ = inDesignOrder(g)
	return g
}

// inDesignOrder returns g renumbered as its design (recognise) and the
// design's group as recognise gives it, or g itself and ok false when g
// is no such design (the matchers take simple graphs only).
func inDesignOrder(g *graph) (_ *graph, tr [][]int32, ok bool) {
	if !g.parallelFree() {
		return g, nil, false
	}
	phi, key, tr := recognise(switchAdjacency(g), g.chOff[len(g.adj)], g.hosts)
	if phi == nil {
		return g, nil, false
	}
	return g.renumbered(phi, key), tr, true
}

// switchAdjacency lists every switch's peers, channel by channel (views
// of g.peer).
func switchAdjacency(g *graph) [][]int32 {
	adj := make([][]int32, len(g.adj))
	for s := range adj {
		adj[s] = g.peer[g.chOff[s]:g.chOff[s+1]]
	}
	return adj
}

// listOrbits lays the channels out orbit by orbit (orbits, orbitAt), so
// that charge reads an orbit's channels in a row.
func (sym *symmetry) listOrbits() {
	C := len(sym.chanRep)
	sym.orbitAt = make([]int32, C)
	sym.orbits = make([]int32, 0, C)
	for c := range C {
		if sym.chanRep[c] != int32(c) {
			continue
		}
		sym.orbitAt[c] = int32(len(sym.orbits))
		for _, m := range sym.ch {
			sym.orbits = append(sym.orbits, m[c])
		}
	}
	for c := range C {
		sym.orbitAt[c] = sym.orbitAt[sym.chanRep[c]]
	}
}

// recognise returns, when adj (a simple graph with c channels) is a Slim
// Fly's or a HyperX's of one or two dimensions, an isomorphism onto its
// design (rank), the design's order of a switch's channels (key: by the
// rank of the peer switch) and a group of the design's automorphisms: a
// Slim Fly's shears or translations (shearsFrom), a HyperX's translations,
// a subgroup when all of them would map more than symmetryEntries
// channels. A HyperX is taken only with as many endpoints
// on every switch (else the grid is something else: a 2-ary 2-tree is a
// 2×2 grid with endpoints on two switches). One of three dimensions or
// more is searched in full: on 3×3×3 and 4×4×4 its invariant routing had
// fewer pairs with three disjoint paths (69.2 % and 88.1 % against
// 70.8 % and 93.4 %), where on two it has more or as many.
func recognise(adj [][]int32, c int, hosts []int) (rank, key []int32, tr [][]int32) {
	if phi := slimfly.Match(adj, slimfly.TranslationBudget); phi != nil {
		q := slimfly.QOf(len(adj))
		if q >= shearsFrom && q*q*c <= shearEntries {
			return phi, slimfly.PortOrder(q), slimfly.DesignShears(q)
		}
		return phi, slimfly.PortOrder(q), slimfly.DesignTranslations(q)
	}
	if dims, phi := hyperx.Match(adj); phi != nil && len(dims) <= 2 && !slices.ContainsFunc(hosts, func(h int) bool { return h != hosts[0] }) {
		key = make([]int32, len(adj))
		for s := range key {
			key[s] = int32(s)
		}
		return phi, key, hyperx.DesignTranslations(dims, max(1, symmetryEntries/max(c, 1)))
	}
	return nil, nil, nil
}

// symmetryEntries bounds the channel maps of a HyperX's translations
// (elements × channels): 64 MB of them.
const symmetryEntries = 1 << 24

// A Slim Fly is routed under its shears from q = shearsFrom on, while
// their channel maps (q² × channels) stay within shearEntries; else under
// its translations. Every channel's load is charged to its whole orbit
// (charge), q² channels under the shears: on q = 19 (7.3 M map entries)
// the passes that do little searching, minimal and almost, took 1.7 ×
// longer than under the translations, and the whole layers stage 2.4 ×.
// Below q = 7 the translations leave little to search (the layers stage
// takes milliseconds) and the shears' orbits of q² switches did worse:
// on q = 4 two pairs of a representative short of the ceiling (1.1
// points of all pairs), on q = 3 all-to-all load 1.500 against 1.458.
const (
	shearsFrom   = 7
	shearEntries = 1 << 22
)

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
	for _, x := range g.sym.orbit(c) {
		load[x] += v
	}
}

// orbit returns the channels of c's orbit.
func (sym *symmetry) orbit(c int) []int32 {
	at := int(sym.orbitAt[c])
	return sym.orbits[at : at+sym.n]
}

// chargeBoth is charge into two ledgers at once (a layer's and the
// total over all layers).
func (g *graph) chargeBoth(layer, total []int64, c int, v int64) {
	if g.sym == nil {
		layer[c] += v
		total[c] += v
		return
	}
	for _, x := range g.sym.orbit(c) {
		layer[x] += v
		total[x] += v
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
