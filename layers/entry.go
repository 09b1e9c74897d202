package layers

import (
	"math/bits"
	"slices"
	"sync"
)

// Entry planning for layers ≥ 1.
//
// Every route to a destination switch t ends on a cable from one of t's
// neighbours. A neighbour n that delivers directly (n → t) in a layer is
// pinned to that cable for every route through it — and, when the length
// bounds start at two hops, n itself then gets no path in bounds in that
// layer: its pair repeats layer 0's cable. Left to the searches, most
// neighbours end up delivering directly (the routes of the far sources
// pass through them), and adjacent pairs, whose alternatives are few, get
// none although the graph has them.
//
// So the entries are planned before any search. t's neighbours with
// endpoints get one of entryGroups colours; in layer k only the neighbours
// of colour (k−1+tree) mod entryGroups deliver directly (tree: the
// destination tree's index among t's trees, so that every cable into t
// delivers for some of t's endpoints in every layer), the others must reach
// t over two or three hops through a delivering neighbour. A neighbour thus
// gets a path in bounds in every layer but one — if its alternatives end on
// neighbours of the right colours. The colouring is chosen for that: each
// neighbour n lists its alternatives of two or three hops (n → m → t,
// n → a → m → t), and a local search, from a round-robin deal, recolours
// neighbours while that gives more neighbours disjoint alternatives ending
// on each other colour, keeping the colours' sizes within four of each
// other (fewer delivering neighbours in a layer leave the switches two
// hops out short of transit switches: docs/quality.md). Neighbours without
// endpoints have no pair to protect and deliver in every layer. The
// colouring depends on t only, so it is computed once per destination
// switch and shared by its trees and layers.

// entryGroups returns how many colours the neighbours get with the given
// number of layers: one per layer ≥ 1, at least two and at most three (so
// that a colour's cables carry a third of the deliveries, not a seventh,
// when there are eight layers).
func entryGroups(layers int) int {
	return min(max(layers-1, 2), 3)
}

// entryPlan is the colouring of one destination switch's neighbours.
type entryPlan struct {
	t      int
	nbs    []int          // neighbours with endpoints, in port order
	colour []int8         // per neighbour (index into nbs)
	index  map[int]int    // switch -> index into nbs
	alts   [][]entryRoute // per neighbour: its alternatives
	mask   []uint8        // scratch of score: the colours each alternative fits
}

// entryRoute is one alternative of a neighbour: its channels (two or
// three) and the neighbour it ends on, -1 when that one has no endpoints
// (it may deliver in any layer).
type entryRoute struct {
	chans [3]int
	n     int // channels used
	last  int // index into nbs of the neighbour it ends on, -1: no endpoints
	via   int // index into nbs of a neighbour it passes on the way, -1: none
}

// planEntries marks in a.noDirect the neighbours of a.t that must not
// deliver directly in layer a.k of the destination's tree number tree. It
// marks none when the bounds let a neighbour use its direct cable
// (per-pair bounds start at the distance, 1).
func (a *almost) planEntries(tree int) {
	for _, n := range a.entryBan {
		a.noDirect[n] = false
	}
	a.entryBan = a.entryBan[:0]
	if lo, _ := a.r.Bounds.of(1); lo <= 1 {
		return
	}
	p := a.plans[a.t]
	groups := entryGroups(a.r.layers)
	for i, n := range p.nbs {
		if (int(p.colour[i])+tree)%groups != (a.k-1)%groups {
			a.noDirect[n] = true
			a.entryBan = append(a.entryBan, n)
		}
	}
}

// planFor computes the colouring for destination switch t.
func (a *almost) planFor(t int) *entryPlan {
	p := a.planWithAlternatives(t)
	p.alts, p.index, p.mask = nil, nil, nil // the layers read nbs and colour only
	return p
}

// planWithAlternatives computes the colouring for destination switch t
// and keeps what it was computed from: every neighbour's alternatives.
func (a *almost) planWithAlternatives(t int) *entryPlan {
	p := &entryPlan{t: t, index: map[int]int{}}
	g := a.g
	a.order = g.bfs(t, a.dist, a.order)
	for _, y := range g.peer[g.chOff[t]:g.chOff[t+1]] {
		if n := int(y); g.hosts[n] > 0 && !slices.Contains(p.nbs, n) {
			p.index[n] = len(p.nbs)
			p.nbs = append(p.nbs, n)
		}
	}
	groups := entryGroups(a.r.layers)
	p.colour = make([]int8, len(p.nbs))
	for i := range p.nbs {
		p.colour[i] = int8(i % groups)
	}
	p.alts = make([][]entryRoute, len(p.nbs))
	for i, n := range p.nbs {
		p.alts[i] = a.alternatives(p, n)
	}
	p.improve(groups, maxSpread)
	return p
}

// alternatives lists neighbour n's paths of two and three hops to t that
// end on another neighbour's cable into t.
func (a *almost) alternatives(p *entryPlan, n int) []entryRoute {
	g := a.g
	t := p.t
	into := func(m int) int { // m's first channel into t
		for i, y := range g.peer[g.chOff[m]:g.chOff[m+1]] {
			if int(y) == t {
				return g.chOff[m] + i
			}
		}
		return -1
	}
	last := func(m int) int {
		if i, ok := p.index[m]; ok {
			return i
		}
		return -1
	}
	var out []entryRoute
	for i, y := range g.peer[g.chOff[n]:g.chOff[n+1]] {
		c1, y := g.chOff[n]+i, int(y)
		if y == t {
			continue
		}
		if a.dist[y] == 1 {
			out = append(out, entryRoute{[3]int{c1, into(y), -1}, 2, last(y), -1})
		}
		for j, m := range g.peer[g.chOff[y]:g.chOff[y+1]] {
			if m := int(m); m != t && m != n && a.dist[m] == 1 {
				out = append(out, entryRoute{[3]int{c1, g.chOff[y] + j, into(m)}, 3, last(m), last(y)})
			}
		}
	}
	return out
}

// score is how many of the other colours neighbour i reaches through
// mutually disjoint alternatives (at most two colours are needed: there
// are at most three).
func (p *entryPlan) score(i, groups int) int {
	c := int(p.colour[i])
	need := (1<<groups - 1) &^ (1 << c) // colours i needs alternatives in
	alts := p.alts[i]
	p.mask = p.mask[:0]
	reach := 0
	for _, r := range alts {
		m := need
		if r.last >= 0 {
			m &= 1 << p.colour[r.last]
		}
		if r.via >= 0 {
			m &^= 1 << p.colour[r.via]
		}
		p.mask = append(p.mask, uint8(m))
		reach |= m
	}
	if reach != need || groups == 2 {
		return bits.OnesCount(uint(reach))
	}
	x := need & -need // the lower needed colour; the other is need &^ x
	for a, r := range alts {
		if int(p.mask[a])&x == 0 {
			continue
		}
		for b, s := range alts {
			if int(p.mask[b])&(need&^x) != 0 && disjoint(r, s) {
				return 2
			}
		}
	}
	return 1
}

func disjoint(r, s entryRoute) bool {
	return !sharesChannel(r.chans[:r.n], s.chans[:s.n])
}

// maxSpread is the most the colours' sizes of the shared colouring differ.
const maxSpread = 4

// improve recolours neighbours, by swaps and by moves that keep the
// colours' sizes within spread of each other, while the sum of the
// neighbours' scores grows (three passes at most: more gained nothing on
// q = 5 … 13).
func (p *entryPlan) improve(groups, spread int) {
	N := len(p.nbs)
	deps := make([][]int, N) // deps[j]: the neighbours whose score reads j's colour
	for i, alts := range p.alts {
		deps[i] = append(deps[i], i)
		for _, r := range alts {
			for _, j := range [2]int{r.last, r.via} {
				if j >= 0 && !slices.Contains(deps[j], i) {
					deps[j] = append(deps[j], i)
				}
			}
		}
	}
	scores := make([]int, N)
	size := make([]int, groups)
	for i := range scores {
		scores[i] = p.score(i, groups)
		size[p.colour[i]]++
	}
	var touched []int
	// try recolours i (and j, when j ≥ 0) and keeps the change if it gains
	try := func(i, ci, j, cj int) bool {
		oi, oj := p.colour[i], int8(-1)
		touched = append(touched[:0], deps[i]...)
		p.colour[i] = int8(ci)
		if j >= 0 {
			oj = p.colour[j]
			p.colour[j] = int8(cj)
			touched = append(touched, deps[j]...)
		}
		slices.Sort(touched)
		touched = slices.Compact(touched)
		gain := 0
		for _, x := range touched {
			gain += p.score(x, groups) - scores[x]
		}
		if gain > 0 {
			for _, x := range touched {
				scores[x] = p.score(x, groups)
			}
			return true
		}
		p.colour[i] = oi
		if j >= 0 {
			p.colour[j] = oj
		}
		return false
	}
	// only a recolouring of a neighbour short of its best score, or of one
	// its alternatives end on or pass, can raise a score
	open := make([]bool, N)
	for pass := 0; pass < 3; pass++ {
		clear(open)
		for i, sc := range scores {
			if sc < groups-1 {
				open[i] = true
				for _, r := range p.alts[i] {
					for _, j := range [2]int{r.last, r.via} {
						if j >= 0 {
							open[j] = true
						}
					}
				}
			}
		}
		improved := false
		for i := 0; i < N; i++ {
			for j := i + 1; j < N; j++ {
				if !open[i] && !open[j] {
					continue
				}
				if ci, cj := p.colour[i], p.colour[j]; ci != cj && try(i, int(cj), j, int(ci)) {
					improved = true
				}
			}
			for x := 0; x < groups && open[i]; x++ {
				c := int(p.colour[i])
				if x == c {
					continue
				}
				size[c]--
				size[x]++
				if slices.Max(size)-slices.Min(size) <= spread && try(i, x, -1, 0) {
					improved = true
					continue
				}
				size[c]++
				size[x]--
			}
		}
		if !improved {
			return
		}
	}
}

// planAll computes the colouring of every switch the destinations reps
// hang off before the layers are built (only those are searched: on a
// symmetric fabric one switch per orbit), the switches split over the
// workers (each colouring depends on its switch only). It plans nothing
// when the bounds let a neighbour use its direct cable.
func planAll(g *graph, r *Routing, ws []*almost, reps []int) []*entryPlan {
	if lo, _ := r.Bounds.of(1); lo <= 1 {
		return nil
	}
	var ts []int
	seen := make([]bool, len(g.adj))
	for _, d := range reps {
		if t := g.dests[d].Switch; !seen[t] {
			seen[t] = true
			ts = append(ts, t)
		}
	}
	plans := make([]*entryPlan, len(g.adj))
	work := func(w int) {
		for i := w; i < len(ts); i += len(ws) {
			plans[ts[i]] = ws[w].planFor(ts[i])
		}
	}
	if !g.parallel {
		for w := range ws {
			work(w)
		}
		return plans
	}
	var wg sync.WaitGroup
	for w := range ws {
		wg.Add(1)
		go func() { defer wg.Done(); work(w) }()
	}
	wg.Wait()
	return plans
}
