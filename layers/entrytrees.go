package layers

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// Per-tree colourings (for regrow.go).
//
// The shared colouring keeps its colours' sizes within maxSpread of each
// other, so that no cable into t delivers for much more than its share of
// t's trees in a layer. On Slim Fly q = 7 and 11 that costs adjacent pairs
// their paths: a neighbour across t's group gets three disjoint paths only
// if two of t's group neighbours deliver in one layer each, and on q = 7
// one of them then delivers alone (docs/quality.md). With several trees
// per destination switch the trees need not share a colouring: each takes
// one of the colourings of any sizes whose cables, added to those of the
// trees before it, stay within lastHopCap of their mean share in every
// layer — a cable alone in one tree's layer is then one that t's other
// trees use little there.

// lastHopCap bounds, per layer, a cable's share of t's trees delivering
// over it, as a multiple of the mean share (trees / neighbours): 1.64 of
// q = 7's six trees over eleven cables, a cable alone in one tree and
// sharing with another neighbour in a second (2.75, 1.5 trees, left the
// trees whose routes split unevenly without a colouring: docs/quality.md).
const lastHopCap = 3

// treeColourer chooses the colourings of one destination switch's trees,
// tree after tree, keeping account of each cable's share of the trees
// delivering over it in every layer.
type treeColourer struct {
	p      *entryPlan
	groups int
	base   []int8   // the shared colouring
	cands  [][]int8 // colourings of any sizes, better than base
	served []int    // per candidate: the sources it can serve (serves)
	perms  [][]int8
	load   []int64 // [layer*N + neighbour]: trees delivering there (pathUnit a tree)
	limit  int64
}

// colourer returns p's tree colourer for trees of the given total weight,
// or nil when no colouring of any sizes gives more neighbours disjoint
// alternatives than the shared one. far lists the routes of two and three
// hops of every source two hops from t (see serves).
func (p *entryPlan) colourer(groups int, weight int64, far [][]entryRoute) *treeColourer {
	base := slices.Clone(p.colour)
	cands := p.freeColourings(groups, base)
	if len(cands) == 0 {
		return nil
	}
	N := len(p.nbs)
	served := make([]int, len(cands))
	for i, c := range cands {
		served[i] = p.serves(c, groups, far)
	}
	return &treeColourer{p: p, groups: groups, base: base, cands: cands, served: served,
		perms: permutations(groups), load: make([]int64, groups*N),
		limit: mulDiv(lastHopCap*weight, pathUnit, int64(max(N, 1)))}
}

// rotated is the shared colouring as planEntries applies it to tree e:
// the value of a neighbour is the layer, from 0, in which it delivers.
func (tc *treeColourer) rotated(e int) []int8 {
	rot := make([]int8, len(tc.base))
	for i, c := range tc.base {
		rot[i] = int8((int(c) + e) % tc.groups)
	}
	return rot
}

// ranked returns at most n colourings for a tree of weight w, one per
// candidate (the order of its colours that keeps the cables' shares
// lowest), that give more neighbours disjoint alternatives than the
// shared one and keep every cable's share within the cap: those serving
// most sources first (serves), then the best scores, then the lowest
// peaks.
func (tc *treeColourer) ranked(w int64, n int) [][]int8 {
	type cand struct {
		col    []int8
		served int
		score  int
		peak   int64
	}
	p, N := tc.p, len(tc.base)
	baseScore := p.total(tc.base, tc.groups)
	var all []cand
	for ci, c := range tc.cands {
		var best *cand
		for _, perm := range tc.perms {
			col := make([]int8, N)
			for i, x := range c {
				col[i] = perm[x]
			}
			sc, pk := p.total(col, tc.groups), p.peak(tc.load, col, w, tc.groups)
			if pk <= tc.limit && sc > baseScore && (best == nil || pk < best.peak) {
				best = &cand{col, tc.served[ci], sc, pk}
			}
		}
		if best != nil {
			all = append(all, *best)
		}
	}
	slices.SortStableFunc(all, func(x, y cand) int {
		if x.served != y.served {
			return y.served - x.served
		}
		if x.score != y.score {
			return y.score - x.score
		}
		return cmp.Compare(x.peak, y.peak)
	})
	var out [][]int8
	for _, c := range all[:min(n, len(all))] {
		out = append(out, c.col)
	}
	return out
}

// serves counts the sources colouring col (of groups colours) can give
// three disjoint paths at all: the neighbours of t whose alternatives
// reach both other colours disjointly (score), and the sources two hops
// out that have a minimal route and routes in two layers, or routes in
// three, pairwise disjoint — a route ending on a neighbour of colour c
// serves in layer c unless it passes a neighbour of that colour, which
// delivers there. It ignores the tree: a switch on the way must route
// that way too, which the annealing has to make fit.
func (p *entryPlan) serves(col []int8, groups int, far [][]entryRoute) int {
	n := 0
	saved := p.colour
	p.colour = col
	for i := range p.nbs {
		if p.score(i, groups) == groups-1 {
			n++
		}
	}
	p.colour = saved
	for _, routes := range far {
		if farServed(col, groups, routes) {
			n++
		}
	}
	return n
}

// farServed tells whether a source two hops from t with the given routes
// can have three disjoint paths under colouring col (see serves).
func farServed(col []int8, groups int, routes []entryRoute) bool {
	layer := func(r entryRoute) int { // the colour r serves in, -1 none
		if r.last < 0 {
			return -1
		}
		c := int(col[r.last])
		if r.via >= 0 && int(col[r.via]) == c {
			return -1
		}
		return c
	}
	for i, x := range routes {
		lx := layer(x)
		for j := i + 1; j < len(routes); j++ {
			y := routes[j]
			ly := layer(y)
			if !disjoint(x, y) {
				continue
			}
			// one of x and y minimal in layer 0, the other and z in two
			// other layers
			if x.n == 2 || y.n == 2 {
				for _, z := range routes {
					lz := layer(z)
					if lz < 0 || !disjoint(x, z) || !disjoint(y, z) {
						continue
					}
					if x.n == 2 && ly >= 0 && ly != lz || y.n == 2 && lx >= 0 && lx != lz {
						return true
					}
				}
			}
			// x, y and z in three layers
			if lx >= 0 && lx != ly && groups >= 3 {
				for _, z := range routes[j+1:] {
					if lz := layer(z); lz >= 0 && lz != lx && lz != ly && disjoint(x, z) && disjoint(y, z) {
						return true
					}
				}
			}
		}
	}
	return false
}

// budget returns, per layer and neighbour, the share of a tree of weight
// w that may enter t there within the cap, in out's storage.
func (tc *treeColourer) budget(w int64, out []int64) []int64 {
	out = append(out[:0], tc.load...)
	for i, x := range out {
		out[i] = max(tc.limit-x, 0) / max(w, 1)
	}
	return out
}

// commit records a tree of weight w whose routes enter t, per layer and
// neighbour, in the given shares (lastHops).
func (tc *treeColourer) commit(shares []int64, w int64) {
	for i, x := range shares {
		tc.load[i] += w * x
	}
}

// colourStarts is how many starts freeColourings searches from: a few
// regular deals, the rest drawn by a generator seeded by t.
const colourStarts = 24

// freeColourings returns colourings of any sizes, found from several
// starts, distinct up to the order of the colours (canonical: colours
// numbered by first appearance), each giving more neighbours disjoint
// alternatives than base.
func (p *entryPlan) freeColourings(groups int, base []int8) [][]int8 {
	N := len(p.nbs)
	var out [][]int8
	baseScore := p.total(base, groups)
	rng := rand.New(rand.NewPCG(uint64(p.t), 0x636f6c))
	for start := 0; start < colourStarts; start++ {
		for i := range p.colour {
			switch {
			case start < groups:
				p.colour[i] = int8((i + start) % groups)
			case start < 2*groups:
				p.colour[i] = int8((i/2 + start) % groups)
			default:
				p.colour[i] = int8(rng.IntN(groups))
			}
		}
		p.improve(groups, N)
		if p.total(p.colour, groups) <= baseScore {
			continue
		}
		c := canonical(p.colour)
		if !slices.ContainsFunc(out, func(x []int8) bool { return slices.Equal(x, c) }) {
			out = append(out, c)
		}
	}
	copy(p.colour, base)
	return out
}

// canonical renumbers the colours of col by first appearance.
func canonical(col []int8) []int8 {
	out := make([]int8, len(col))
	rename := map[int8]int8{}
	for i, c := range col {
		if _, ok := rename[c]; !ok {
			rename[c] = int8(len(rename))
		}
		out[i] = rename[c]
	}
	return out
}

// total is the sum of the neighbours' scores under colouring col.
func (p *entryPlan) total(col []int8, groups int) int {
	saved := p.colour
	p.colour = col
	n := 0
	for i := range p.nbs {
		n += p.score(i, groups)
	}
	p.colour = saved
	return n
}

// peak is the highest share of a cable in a layer once a tree of weight
// w coloured col is added to load ([layer*N + neighbour]).
func (p *entryPlan) peak(load []int64, col []int8, w int64, groups int) int64 {
	N := len(col)
	size := make([]int, groups)
	for _, c := range col {
		size[c]++
	}
	pk := slices.Max(load)
	for i, c := range col {
		pk = max(pk, load[int(c)*N+i]+w*pathUnit/int64(size[c]))
	}
	return pk
}

// permutations returns every permutation of 0..n−1.
func permutations(n int) [][]int8 {
	if n == 0 {
		return [][]int8{{}}
	}
	var out [][]int8
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			out = append(out, slices.Insert(slices.Clone(p), i, int8(n-1)))
		}
	}
	return out
}
