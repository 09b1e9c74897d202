package layers

import (
	"math/bits"
	"slices"
)

// Regrowing trees under their own colourings (unless Options.NoRegrow).
//
// The searches build a layer one source at a time under the colouring
// shared by a destination switch's trees, and on Slim Fly q = 7 and 11
// that colouring leaves adjacent pairs short of three disjoint paths: a
// neighbour across t's group has them only if two of t's group neighbours
// deliver in one layer each, one of them alone (docs/quality.md). regrow
// rebuilds every tree of a destination switch that has better colourings
// of any sizes (treeColourer), each under its own colouring, and searches
// the tree's next switches in every layer at once, by annealing:
//
//   - a step gives one switch of one layer another next switch, keeping
//     the tree loop-free, the neighbours of the colouring delivering and
//     no other, every route of layers ≥ 1 at most three hops and layer 0
//     minimal;
//   - a step is scored by the disjoint paths (at most three) it gives or
//     takes from the switches behind it, less the load it costs: the
//     square of how far the channels it loads rise above regrowTarget ×
//     their layer's mean, a little of every channel's load, and the
//     share of the tree entering t over a cable beyond what the
//     colourer's cap leaves it (so that one cable does not deliver alone
//     for two of t's trees in a layer), and the overlaps it adds to the
//     routes behind it (lapWeight); no channel may rise above layer 0's
//     busiest (in layer 0), or regrowTotalSlack × the busiest channel
//     over all layers, as they were before the pass;
//   - once no pair of the tree is short, regrowPolish steps per switch
//     at random switches follow (overlaps and loads).
//
// Each tree is grown under a few colourings, until one leaves at most
// one of its pairs short of three disjoint paths (regrowEnough), and
// kept regrown under the one that leaves fewest short, if fewer than
// before; when every one leaves more short, the tree as it was is
// annealed too, under its own colouring, and kept if it does better
// (mending, which follows, keeps a tree's colouring: a regrown tree with
// fewer pairs short than the tree as built may keep more than the
// mended one would). With diameter 2 and routes of at most three hops,
// two routes from s to t share no channel exactly when their second
// switches differ and so do their last switches before t: that is how a
// step is scored, in O(1) per switch behind it. The trees are regrown
// one after the other with a generator seeded by the tree: the tables
// are the same on any number of cores. Balancing and mending follow,
// then unloading (unload.go).

const (
	// regrowSteps is the annealing budget per switch of a tree, per
	// colouring; a tree stops early once no pair is short.
	regrowSteps = 400
	// regrowMaxSwitches bounds the fabrics regrown (a channel table of
	// S² entries).
	regrowMaxSwitches = 1024
	// regrowTarget is the load, over its layer's mean, above which a
	// channel costs: a channel at regrowTarget × (1 + 1/regrowLoadScale)
	// costs as much as one disjoint path; regrowSpread weighs the square
	// of every channel's load over the target (its share of a path).
	regrowTarget    = permille(1100)
	regrowLoadScale = 10
	regrowSpread    = 50
	// regrowTotalSlack bounds the busiest channel over all layers, as a
	// multiple of the busiest before the pass.
	regrowTotalSlack = 2
	// lastHopWeight: a tree's whole routes entering t over a cable beyond
	// its share under the colourer's cap cost this many disjoint paths.
	lastHopWeight = 300
	// overCapUnit: moving this many routes off a channel above the
	// caps is worth one disjoint path.
	overCapUnit = 8
	// regrowTries is how many colourings a tree is grown under, the
	// shared one (rotated) last.
	regrowTries = 8
	// regrowEnough: a tree that a colouring leaves with at most this
	// many pairs short keeps it, and is not grown under the next ones
	// nor annealed as it was. A pair left short holds the annealing to
	// its whole budget (regrowSteps × S steps), so each further try
	// costs the most for one pair at best: such tries found it for 3
	// of q = 11's 16 trees (0.2 % of its switch pairs), never on q = 7,
	// and took 60–75 % of regrowing on Slim Flies routed as they are
	// after failures (q = 11 less 1.5 % of its cables: 28 s → 11 s).
	regrowEnough = 1
	// regrowPolish is the annealing budget per switch once no pair of
	// the tree is short: steps at random switches that take overlaps
	// off the routes (lapWeight) and even the loads. 60 since the Slim
	// Flies route under their shears (two destination switches
	// searched): with 20, q = 11's regrown layers loaded random
	// permutations 1.8 % more than the construction alone (3.763
	// against 3.695), with 60 0.6 % (3.718).
	regrowPolish = 60
	// lapWeight is what an overlap costs, in disjoint paths: two routes
	// of a pair that start on the same channel, or end on the same
	// channel. A flow whose routes share a channel loads it twice when
	// split over the layers: without the cost (and regrowPolish) random
	// permutations loaded q = 11's regrown layers 5 % more than the
	// default ones, with it 0.3–2.8 % (docs/quality.md).
	lapWeight = 4
)

// regrower holds the loads of every layer and the tree being regrown.
type regrower struct {
	g        *graph
	r        *Routing
	layer    [][]int64 // [k][channel]
	total    []int64
	cap0     int64 // layer 0's busiest channel at the start
	capTotal int64 // regrowTotalSlack × the busiest over all layers at the start
	target   []int64
	chanOf   []int32 // [x*S + y]: the first channel from x to y, -1 none
	dist     []int32
	order    []int32
	members  [][]int
	clock    [2]int // the annealing's step and its budget (keep)
	rng      draws
	seed     uint64
	cur, old growTree
	deltas   []chanDelta // the channel loads a step changes
	pending  []chanDelta // changes judged but not moved (two-switch moves: tryVia, unload's tryMove)
	kept     [][]int32   // the best regrown tree's next switches, per layer
	// last hops of the tree being regrown: [(k-1)*N + i] its share of
	// routes entering t from neighbour i of the plan in layer k, and the
	// share the colourer's cap leaves it (pathUnit: the whole tree), and
	// the tree's routes in all
	nbIdx        []int32 // switch -> index into the plan's neighbours, -1 none
	N            int
	cell, budget []int64
	sumW         int64
}

// chanDelta is a change of one channel's load.
type chanDelta struct {
	c int32
	v int64
}

// regrowApplies tells whether the fabric's trees can be regrown: layers
// of 2 to 3 hops on a connected fabric designed with diameter 2 (a few
// pairs may be further apart once cables or switches failed: their trees
// are regrown where every switch still finds a route of at most three
// hops) without parallel cables, three or four layers (one colour per
// layer ≥ 1) and at least a tree per colour for every destination switch.
func regrowApplies(g *graph, r *Routing) bool {
	S := len(g.adj)
	if r.layers < 3 || r.layers > 4 || r.Bounds != (Bounds{Min: 2, Max: 3}) || S > regrowMaxSwitches || S < 2 {
		return false // (one switch: no channel, no route to regrow)
	}
	if r.Trees >= 0 && r.Trees < entryGroups(r.layers) {
		return false
	}
	return g.parallelFree() && designedDiameter2(g) // (Compute has refused a disconnected fabric)
}

// regrow regrows the trees of every destination switch that has better
// colourings than the shared one. The caller has checked regrowApplies.
// The destination switches go in fixed batches of two (batch), one worker
// each, the members of a batch in parallel when g.parallel is set: a
// worker sees the loads of the batch start plus its own changes, then
// takes the other's trees into its loads — the same tables on any number
// of cores. Each worker starts from a copy of led; led ends with the
// loads the workers reached (all alike after the last batch). Cost: O(regrowSteps × S) annealing steps per tree and
// colouring tried, most trees stopping early.
func regrow(g *graph, r *Routing, seed uint64, led *ledger) {
	var ts []int
	for t := range g.adj {
		if g.sym == nil || g.sym.rep[t] == int32(t) { // else mapped from its orbit's representative
			ts = append(ts, t)
		}
	}
	var ws [batch]*regrowWorker
	for w := range ws {
		ws[w] = &regrowWorker{rg: newRegrower(g, r, seed, led.clone()), planner: newAlmost(g, r, make([]int64, g.chOff[len(g.adj)]), seed, nil)}
	}
	for i := 0; i < len(ts); i += batch {
		m := min(batch, len(ts)-i)
		eachWorker(m, g.parallel, func(w int) { ws[w].regrowSwitch(ts[i+w]) })
		for w := 0; w < m; w++ {
			for o := range ws {
				if o != w {
					for _, c := range ws[w].changed {
						ws[o].rg.addRoutes(c.old, -1)
						ws[o].rg.addRoutes(c.now, 1)
					}
				}
			}
			ws[w].changed = ws[w].changed[:0]
		}
	}
	led.set(&ledger{layer: ws[0].rg.layer, total: ws[0].rg.total}) // (every worker's loads are the whole's)
}

// regrowWorker regrows the trees of one destination switch at a time,
// and lists the trees it changed.
type regrowWorker struct {
	rg      *regrower
	planner *almost
	changed []treeChange
}

// treeChange is a tree's routes before and after regrowing.
type treeChange struct{ old, now routes }

// routes are a tree's next switches in every layer and what each switch
// sends over them (layers ≥ 1, then layer 0).
type routes struct {
	par   [][]int32
	w, w0 []int64
}

// routesOf copies gt's routes.
func routesOf(gt *growTree) routes {
	rt := routes{w: slices.Clone(gt.w), w0: slices.Clone(gt.w0)}
	for _, p := range gt.par {
		rt.par = append(rt.par, slices.Clone(p))
	}
	return rt
}

// regrowSwitch regrows the trees of destination switch t, if it has
// better colourings than the shared one.
func (rw *regrowWorker) regrowSwitch(t int) {
	rg, g, r := rw.rg, rw.rg.g, rw.rg.r
	var reps []int
	var weights []int64
	var sum int64
	for d := 0; d < g.nEP; d++ {
		if g.dests[d].Switch == t && r.share[d] == d {
			reps = append(reps, d)
			weights = append(weights, int64(len(rg.members[d])))
			sum += weights[len(weights)-1]
		}
	}
	if len(reps) == 0 {
		return
	}
	p := rw.planner.planWithAlternatives(t)
	tc := p.colourer(entryGroups(r.layers), sum, rg.farRoutes(rw.planner, p))
	if tc == nil {
		return
	}
	rg.start(t, p)
	// the cap counts every tree of t: those regrown by their new
	// routes, the others by their routes now (a tree may keep them)
	var was [][]int64
	for i, d := range reps {
		rg.read(&rg.old, d)
		was = append(was, rg.lastHopShares(&rg.old, nil))
		tc.commit(was[i], weights[i])
	}
	for i, d := range reps {
		tc.commit(was[i], -weights[i])
		rg.budget = tc.budget(weights[i], rg.budget)
		kept := rg.regrowTree(d, p.nbs, append(tc.ranked(weights[i], regrowTries-1), tc.rotated(i)))
		if kept == &rg.cur { // rg.old still holds the tree as it was
			rw.changed = append(rw.changed, treeChange{routesOf(&rg.old), routesOf(kept)})
		}
		tc.commit(rg.lastHopShares(kept, nil), weights[i])
	}
}

// start prepares the regrowing of destination switch t's trees (p: its
// colouring's plan).
func (rg *regrower) start(t int, p *entryPlan) {
	rg.order = rg.g.bfs(t, rg.dist, rg.order)
	rg.N = len(p.nbs)
	for i := range rg.nbIdx {
		rg.nbIdx[i] = -1
	}
	for i, n := range p.nbs {
		rg.nbIdx[n] = int32(i)
	}
}

func newRegrower(g *graph, r *Routing, seed uint64, led *ledger) *regrower {
	S := len(g.adj)
	rg := &regrower{g: g, r: r, seed: seed, layer: led.layer, total: led.total,
		dist: make([]int32, S), order: make([]int32, 0, S),
		cur: newGrowTree(S, r.layers), old: newGrowTree(S, r.layers)}
	rg.rng.seed(seed, 0)
	rg.kept = make([][]int32, r.layers)
	rg.nbIdx = make([]int32, S)
	rg.members = sharers(r)
	rg.chanOf = make([]int32, S*S)
	for i := range rg.chanOf {
		rg.chanOf[i] = -1
	}
	for x := 0; x < S; x++ {
		for c := g.chOff[x+1] - 1; c >= g.chOff[x]; c-- {
			rg.chanOf[x*S+int(g.peer[c])] = int32(c)
		}
	}
	for k, l := range rg.layer {
		rg.target = append(rg.target, mulDiv(slackTarget(l), int64(regrowTarget), int64(balanceSlack)))
		if k == 0 {
			rg.cap0 = slices.Max(l)
		}
	}
	rg.capTotal = regrowTotalSlack * slices.Max(rg.total)
	return rg
}

// growTree is one destination tree in every layer (tree.go), with the
// disjoint paths and overlaps of its pairs.
type growTree struct {
	t, d  int
	lay   []tree    // [k]
	par   [][]int32 // [k]: lay[k].par, for the loops over every layer
	fixed [][]bool  // [k][s]: the next switch may not change
	w     []int64   // routes s sends in layers ≥ 1: its hosts × the tree's endpoints
	w0    []int64   // in layer 0: its hosts (the other endpoints have their own tables)
	l0    [][]int32 // layer-0 next switch of the tree's other endpoints
	score []int32   // per switch: disjoint paths summed over the endpoints
	lap   []int32   // per switch: its routes' shared channels (overlaps), summed over the endpoints
	buf   []int32
}

func newGrowTree(S, layers int) growTree {
	gt := growTree{w: make([]int64, S), w0: make([]int64, S), score: make([]int32, S), lap: make([]int32, S)}
	for k := 0; k < layers; k++ {
		gt.lay = append(gt.lay, newTree(S))
		gt.par = append(gt.par, gt.lay[k].par)
		gt.fixed = append(gt.fixed, make([]bool, S))
	}
	return gt
}

// read loads endpoint d's tables, every layer, into gt.
func (rg *regrower) read(gt *growTree, d int) {
	g, S := rg.g, len(rg.g.adj)
	gt.t, gt.d = g.dests[d].Switch, d
	ms := rg.members[d]
	for s := range gt.w {
		gt.w0[s] = int64(g.hosts[s])
		gt.w[s] = gt.w0[s] * int64(len(ms))
		gt.fixed[0][s] = s == gt.t || rg.dist[s] <= 1
	}
	for k := range gt.par {
		readTable(g, rg.r.next[k][d*S:(d+1)*S], gt.par[k])
		gt.derive(k)
	}
	gt.l0 = gt.l0[:0]
	for _, e := range ms[1:] {
		p := make([]int32, S)
		readTable(g, rg.r.next[0][e*S:(e+1)*S], p)
		gt.l0 = append(gt.l0, p)
	}
	gt.rescoreAll(rg.want())
}

// want is the disjoint paths a pair is aimed at.
func (rg *regrower) want() int { return min(keepPaths, rg.r.layers) }

// derive brings layer k's tree up to date with its next switches.
func (gt *growTree) derive(k int) {
	w := gt.w
	if k == 0 {
		w = gt.w0
	}
	gt.lay[k].derive(gt.t, w)
}

// hop returns s's route in layer k as its second switch and its last
// switch before t (s itself when it delivers); ok is false when the
// route is longer than three hops (out of bounds, and not judged by the
// two switches).
func (gt *growTree) hop(k, s int) (f, l int32, ok bool) {
	if gt.lay[k].hops[s] > 3 {
		return 0, 0, false
	}
	return gt.par[k][s], gt.lay[k].ent[s], true
}

// disjoint returns how many of s's routes to the tree's m-th endpoint,
// at most want, share no channel.
func (gt *growTree) disjoint(s, m, want int) int {
	f, l, n := gt.routes(s, m)
	return min(maxDisjoint(f[:n], l[:n]), want)
}

// overlaps counts, over the pairs of routes given by their second and
// last switches, those that start on the same channel and those that end
// on the same channel.
func overlaps(f, l []int32) int {
	c := 0
	for i := range f {
		for j := i + 1; j < len(f); j++ {
			if f[i] == f[j] {
				c++
			}
			if l[i] == l[j] {
				c++
			}
		}
	}
	return c
}

// routes returns s's routes of at most three hops to the tree's m-th
// endpoint, one per layer, as their second and last switches.
func (gt *growTree) routes(s, m int) (f, l [4]int32, n int) {
	for k := range gt.par {
		a, b, ok := gt.hop(k, s)
		if k == 0 && m > 0 {
			a, b, ok = gt.ownHop(m-1, s)
		}
		if ok {
			f[n], l[n] = a, b
			n++
		}
	}
	return f, l, n
}

// ownHop is hop for the layer-0 table of the tree's (i+1)-th endpoint:
// minimal, two hops on a fabric of diameter 2, three between switches
// that failures put three hops apart.
func (gt *growTree) ownHop(i, s int) (f, l int32, ok bool) {
	p, t := gt.l0[i], int32(gt.t)
	f, l = p[s], int32(s)
	for h := 1; h <= 3; h++ {
		if p[l] == t {
			return f, l, true
		}
		l = p[l]
	}
	return 0, 0, false
}

// maxDisjoint is the largest set of routes of at most three hops, given
// by their second and last switches, that pairwise differ in both.
func maxDisjoint(f, l []int32) int {
	n := len(f)
	var clash [8]uint8 // clash[i]: the routes that share a channel with i
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if f[i] == f[j] || l[i] == l[j] {
				clash[i] |= 1 << j
				clash[j] |= 1 << i
			}
		}
	}
	best := min(n, 1)
	for m := 1; m < 1<<n; m++ {
		c := bits.OnesCount8(uint8(m))
		if c <= best {
			continue
		}
		ok := true
		for i := 0; i < n && ok; i++ {
			ok = m>>i&1 == 0 || clash[i]&uint8(m) == 0
		}
		if ok {
			best = c
		}
	}
	return best
}

// judge returns switch s's disjoint paths (at most want) and overlaps,
// summed over the tree's endpoints (none for a switch without hosts: it
// has no pair).
func (gt *growTree) judge(s, want int, hosts int) (paths, laps int32) {
	if hosts == 0 || s == gt.t {
		return 0, 0
	}
	for m := 0; m <= len(gt.l0); m++ {
		f, l, n := gt.routes(s, m)
		paths += int32(min(maxDisjoint(f[:n], l[:n]), want))
		laps += int32(overlaps(f[:n], l[:n]))
	}
	return paths, laps
}

func (gt *growTree) rescoreAll(want int) {
	// hosts are folded into w: w > 0 exactly when s has hosts
	for s := range gt.score {
		gt.score[s], gt.lap[s] = gt.judge(s, want, int(min(gt.w[s], 1)))
	}
}

// short counts the pairs of the tree with fewer than want disjoint paths.
func (gt *growTree) short(want int) int {
	n := 0
	for s := range gt.score {
		if gt.w[s] > 0 && s != gt.t {
			for m := 0; m <= len(gt.l0); m++ {
				if gt.disjoint(s, m, want) < want {
					n++
				}
			}
		}
	}
	return n
}

// addTree adds sign × gt's routes to the loads: every layer's, the
// representative's own layer 0 included (its other endpoints' layer-0
// tables are theirs, and unchanged).
func (rg *regrower) addTree(gt *growTree, sign int64) {
	rg.addRoutes(routes{par: gt.par, w: gt.w, w0: gt.w0}, sign)
}

// addRoutes adds sign × rt to the loads.
func (rg *regrower) addRoutes(rt routes, sign int64) {
	S := len(rg.g.adj)
	for k, par := range rt.par {
		for s := range par {
			w := rt.w[s]
			if k == 0 {
				w = rt.w0[s]
			}
			for x := s; par[x] >= 0; x = int(par[x]) {
				c := int(rg.chanOf[x*S+int(par[x])])
				rg.g.chargeBoth(rg.layer[k], rg.total, c, sign*w)
			}
		}
	}
}

// seedLayer builds layer k of gt under a colouring: the neighbours of t
// for which deliver holds deliver, every other switch takes the least
// loaded next switch that gives it a route of two or three hops (two
// first). It fails when some switch has none.
func (rg *regrower) seedLayer(gt *growTree, k int, deliver func(n int) bool) bool {
	g, S, t := rg.g, len(rg.g.adj), gt.t
	par, dep := gt.par[k], gt.lay[k].hops
	for s := range par {
		par[s], dep[s] = -2, -1
		gt.fixed[k][s] = s == t
	}
	par[t], dep[t] = -1, 0
	for _, n := range g.peer[g.chOff[t]:g.chOff[t+1]] {
		if deliver(int(n)) {
			par[n], dep[n] = int32(t), 1
			gt.fixed[k][n] = true
		}
	}
	for round := 0; round < 2; round++ {
		rg.seedPasses(gt, k)
		// a neighbour with no route through the others delivers itself
		for _, n := range g.peer[g.chOff[t]:g.chOff[t+1]] {
			if par[n] == -2 {
				par[n], dep[n] = int32(t), 1
				gt.fixed[k][n] = true
			}
		}
	}
	for s := 0; s < S; s++ {
		if par[s] == -2 {
			return false
		}
	}
	gt.derive(k)
	return true
}

// seedPasses gives the switches of layer k without a next switch the
// least loaded one that makes their route two or three hops (two first).
func (rg *regrower) seedPasses(gt *growTree, k int) {
	g, t := rg.g, gt.t
	par, dep := gt.par[k], gt.lay[k].hops
	for pass := 0; pass < 3; pass++ {
		for _, s := range rg.order {
			if par[s] != -2 {
				continue
			}
			best, bestDep, bestLoad := int32(-1), int32(3), int64(0)
			for c := g.chOff[s]; c < g.chOff[s+1]; c++ {
				u := g.peer[c]
				if int(u) == t || dep[u] < 1 || dep[u] > 2 {
					continue
				}
				l := rg.layer[k][c]
				if dep[u] < bestDep || dep[u] == bestDep && l < bestLoad {
					best, bestDep, bestLoad = u, dep[u], l
				}
			}
			if best >= 0 {
				par[s], dep[s] = best, bestDep+1
			}
		}
	}
}

// regrowTree grows endpoint d's tree under each of the colourings cols
// (per neighbour of nbs: the layer, from 0, in which it delivers) until
// one leaves at most regrowEnough of its pairs short, and keeps the one
// that leaves fewest short, if no more than the tree had and the caps
// hold. It
// returns the tree as it now is in the tables: rg.cur regrown, or rg.old.
func (rg *regrower) regrowTree(d int, nbs []int, cols [][]int8) *growTree {
	cur, old := &rg.cur, &rg.old
	want := rg.want()
	rg.read(old, d)
	best := old.short(want) + 1
	rg.addTree(old, -1)
	regrown := false
	for _, col := range cols {
		if best == 0 || regrown && best <= regrowEnough {
			break
		}
		if !rg.grow(cur, d, nbs, col) {
			continue
		}
		regrown = rg.annealKept(cur, d, &best) || regrown
	}
	if best > regrowEnough {
		// still short: the tree as it was, annealed under its own
		// colouring, may do better (the colouring mending would keep)
		rg.read(cur, d)
		rg.fixDeliverers(cur)
		cur.rescoreAll(want)
		regrown = rg.annealKept(cur, d, &best) || regrown
	}
	if !regrown {
		rg.addTree(old, 1)
		return old
	}
	for k := range cur.par {
		copy(cur.par[k], rg.kept[k])
		cur.derive(k)
	}
	rg.addTree(cur, 1)
	rg.write(cur)
	return cur
}

// annealKept anneals gt, tree of endpoint d, in the loads, and keeps its
// next switches in rg.kept if it leaves fewer pairs short than *best
// within the caps (then *best is its count, and it reports true).
func (rg *regrower) annealKept(gt *growTree, d int, best *int) bool {
	rg.cell = rg.lastHopShares(gt, rg.cell)
	rg.addTree(gt, 1)
	defer rg.addTree(gt, -1)
	rg.rng.seed(rg.seed, uint64(d)|1<<40)
	rg.anneal(gt, regrowSteps*len(rg.g.adj))
	n := gt.short(rg.want())
	if n >= *best || !rg.withinCaps() {
		return false
	}
	*best = n
	for k := range gt.par {
		rg.kept[k] = append(rg.kept[k][:0], gt.par[k]...)
	}
	return true
}

// grow sets gt to endpoint d's tree with layers ≥ 1 seeded under
// colouring col; false when a layer cannot be seeded.
func (rg *regrower) grow(gt *growTree, d int, nbs []int, col []int8) bool {
	rg.read(gt, d)
	for k := 1; k < len(gt.par); k++ {
		deliver := func(n int) bool {
			i := slices.Index(nbs, n)
			return i < 0 || int(col[i]) == k-1
		}
		if !rg.seedLayer(gt, k, deliver) {
			return false
		}
	}
	gt.rescoreAll(rg.want())
	return true
}

// withinCaps tells whether no channel is above the caps of the start.
func (rg *regrower) withinCaps() bool {
	return slices.Max(rg.layer[0]) <= rg.cap0 && slices.Max(rg.total) <= rg.capTotal
}

// write stores gt in the tables of its endpoints: layers ≥ 1 for every
// endpoint sharing the tree, layer 0 for its representative.
func (rg *regrower) write(gt *growTree) {
	g, S := rg.g, len(rg.g.adj)
	for k, par := range gt.par {
		es := rg.members[gt.d]
		if k == 0 {
			es = es[:1]
		}
		for _, e := range es {
			tab := rg.r.next[k][e*S : (e+1)*S]
			for s, p := range par {
				tab[s] = hopLocal
				if p >= 0 {
					tab[s] = uint8(int(rg.chanOf[s*S+int(p)]) - g.chOff[s])
				}
			}
		}
	}
}

// anneal changes next switches of gt for the given number of steps, half
// of them at switches of pairs still short, and stops early once none is.
func (rg *regrower) anneal(gt *growTree, steps int) {
	g, want := rg.g, rg.want()
	var short []int32
	polishing := false
	for i := 0; i < steps; i++ {
		if i%64 == 0 {
			short = short[:0]
			for s, sc := range gt.score {
				if gt.w[s] > 0 && s != gt.t && int(sc) < want*(len(gt.l0)+1) {
					short = append(short, int32(s))
				}
			}
			if len(short) == 0 && !polishing {
				polishing = true
				steps = min(steps, i+regrowPolish*len(g.adj))
			}
		}
		rg.clock = [2]int{i, steps}
		k := rg.rng.intN(len(gt.par))
		move := rg.rng.intN(3)
		if polishing {
			move = 2
		}
		switch move {
		case 0: // a short source or its next switch
			v := int(short[rg.rng.intN(len(short))])
			if p := gt.par[k][v]; rg.rng.intN(2) == 0 && p >= 0 && int(p) != gt.t {
				v = int(p)
			}
			rg.try(gt, k, v, rg.randomPeer(v))
		case 1: // a short source over a neighbour to its neighbour
			s := int(short[rg.rng.intN(len(short))])
			y := rg.randomPeer(s)
			if m := rg.randomPeer(int(y)); int(y) != gt.t && int(m) != s {
				rg.tryVia(gt, k, s, y, m)
			}
		default:
			v := rg.rng.intN(len(g.adj))
			rg.try(gt, k, v, rg.randomPeer(v))
		}
	}
}

// try gives switch v of layer k the next switch u, if the tree allows it,
// and keeps the change by the annealing rule (keep). Most steps are not
// kept: the loads move only once one is.
func (rg *regrower) try(gt *growTree, k, v int, u int32) {
	old := gt.par[k][v]
	gain, ok := rg.stepTree(gt, k, v, u)
	switch {
	case !ok:
	case rg.keep(gain):
		rg.shiftLoads(k)
	default:
		rg.unstep(gt, k, v, old)
	}
}

// tryVia routes s in layer k over its neighbour y to m: y takes next
// switch m, then s takes y; both are kept or undone together.
func (rg *regrower) tryVia(gt *growTree, k, s int, y, m int32) {
	oldY, oldS := gt.par[k][y], gt.par[k][s]
	if oldS == y {
		rg.try(gt, k, int(y), m)
		return
	}
	gain := cost(0)
	if oldY != m {
		g, ok := rg.stepTree(gt, k, int(y), m)
		if !ok {
			return
		}
		gain = g
		rg.pending = append(rg.pending[:0], rg.deltas...)
	}
	g, ok := rg.stepTree(gt, k, s, y) // priced with y's change pending
	if ok && rg.keep(gain+g) {
		rg.deltas = append(rg.deltas, rg.pending...)
		rg.shiftLoads(k)
		rg.pending = rg.pending[:0]
		return
	}
	rg.pending = rg.pending[:0]
	if ok {
		rg.unstep(gt, k, s, oldS)
	}
	if oldY != m {
		rg.unstep(gt, k, int(y), oldY)
	}
}

// unstep gives v its next switch old back in layer k after stepTree,
// whose loads were never moved.
func (rg *regrower) unstep(gt *growTree, k, v int, old int32) {
	tr := &gt.lay[k]
	rg.moveEntry(gt, k, v, tr.ent[v], tr.ent[old])
	tr.relink(int32(v), old)
	gt.buf = tr.subtree(int32(v), gt.buf[:0])
	gt.rescore(rg, gt.buf)
}

// keep is the annealing rule: a gain ≥ 0 always, a loss with probability
// e^(gain/temp) at the temperature of the annealing's step (rg.clock;
// found only for a loss, as most gains are).
func (rg *regrower) keep(gain cost) bool {
	return gain >= 0 || accepts(-gain, annealTemp(rg.clock[0], rg.clock[1]), rg.rng.uint32())
}

// annealTemp is the temperature of step i of steps: from 0.62 disjoint
// paths down to 0.02, linearly.
func annealTemp(i, steps int) cost {
	return mulDiv(600*pathUnit/1000, int64(steps-i), int64(max(steps, 1))) + 20*pathUnit/1000
}

// stepTree makes u v's next switch in layer k in the tree if the tree
// and the caps allow it, and returns the disjoint paths gained behind v
// less the load cost; the loads (read with any pending change) stay as
// they were: rg.deltas holds the move's change (shiftLoads applies it,
// unstep takes the move back).
func (rg *regrower) stepTree(gt *growTree, k, v int, u int32) (gain cost, ok bool) {
	if v == gt.t || gt.fixed[k][v] || !rg.canMove(gt, k, v, u) {
		return 0, false
	}
	rg.shiftDeltas(gt, k, v, u)
	price, ok := rg.price(k)
	if !ok {
		return 0, false
	}
	price += rg.moveEntry(gt, k, v, gt.lay[k].ent[v], gt.lay[k].ent[u])
	paths, laps := rg.relinkRescored(gt, k, v, u)
	return cost(paths-lapWeight*laps)*pathUnit - price, true
}

// relinkRescored makes u v's next switch in layer k and returns the
// disjoint paths and the overlaps the switches behind v gain; the loads
// stay as they were (rg.deltas holds their change: shiftLoads).
func (rg *regrower) relinkRescored(gt *growTree, k, v int, u int32) (paths, laps int) {
	gt.buf = gt.lay[k].subtree(int32(v), gt.buf[:0])
	before, lapsBefore := 0, 0
	for _, x := range gt.buf {
		before += int(gt.score[x])
		lapsBefore += int(gt.lap[x])
	}
	gt.lay[k].relink(int32(v), u)
	p, l := gt.rescore(rg, gt.buf)
	return p - before, l - lapsBefore
}

// moveEntry moves the share of the routes through v in layer k from
// entering t at from to entering at to, and returns the change in their
// cost: lastHopWeight per tree's share above the budget.
func (rg *regrower) moveEntry(gt *growTree, k, v int, from, to int32) cost {
	if k == 0 || from == to {
		return 0
	}
	x := mulDiv(gt.lay[k].sub[v], pathUnit, max(rg.sumW, 1))
	var price cost
	for _, e := range [2]struct {
		n int32
		d int64
	}{{from, -x}, {to, x}} {
		i := rg.nbIdx[e.n]
		if i < 0 {
			continue
		}
		c := (k-1)*rg.N + int(i)
		over := func(v int64) int64 { return max(v-rg.budget[c], 0) }
		price += lastHopWeight * (over(rg.cell[c]+e.d) - over(rg.cell[c]))
		rg.cell[c] += e.d
	}
	return price
}

// undo gives v its next switch old back, with the loads and scores.
func (rg *regrower) undo(gt *growTree, k, v int, old int32) {
	rg.shiftDeltas(gt, k, v, old)
	rg.shiftLoads(k)
	rg.unstep(gt, k, v, old)
}

// canMove tells whether v may take next switch u in layer k: t is not
// among v's next switches unless v delivers by the colouring (then it is
// fixed), u's route avoids v, no route behind v grows past three hops,
// and layer 0 stays minimal.
func (rg *regrower) canMove(gt *growTree, k, v int, u int32) bool {
	t := int32(gt.t)
	if u == t || u == gt.par[k][v] {
		return false
	}
	if k == 0 {
		return rg.dist[u] == rg.dist[v]-1
	}
	for x := u; x != t; x = gt.par[k][x] {
		if int(x) == v {
			return false
		}
	}
	return gt.lay[k].hops[u]+1+gt.lay[k].height(int32(v)) <= 3
}

// rescore recomputes the scores of the switches in list and returns
// their sum.
func (gt *growTree) rescore(rg *regrower, list []int32) (paths, laps int) {
	want := rg.want()
	for _, x := range list {
		gt.score[x], gt.lap[x] = gt.judge(int(x), want, int(min(gt.w[x], 1)))
		paths += int(gt.score[x])
		laps += int(gt.lap[x])
	}
	return paths, laps
}

// shiftDeltas sets rg.deltas to the change of moving the routes
// through v in layer k from v's route onto v → u and u's route.
func (rg *regrower) shiftDeltas(gt *growTree, k, v int, u int32) {
	S := len(rg.g.adj)
	W := gt.lay[k].sub[v]
	rg.deltas = rg.deltas[:0]
	add := func(c int32, w int64) {
		c = int32(rg.g.chanRep(int(c))) // an orbit's channels carry the same load
		for i := range rg.deltas {
			if rg.deltas[i].c == c {
				rg.deltas[i].v += w
				return
			}
		}
		rg.deltas = append(rg.deltas, chanDelta{c, w})
	}
	par := gt.par[k]
	for x := int32(v); par[x] >= 0; x = par[x] {
		add(rg.chanOf[int(x)*S+int(par[x])], -W)
	}
	add(rg.chanOf[v*S+int(u)], W)
	for x := u; par[x] >= 0; x = par[x] {
		add(rg.chanOf[int(x)*S+int(par[x])], W)
	}
}

// price is the cost of rg.deltas in layer k: the change in the channels'
// squared excess over the layer's target, in disjoint paths, and in their
// load above the caps of the start; ok is false when a channel would rise
// above a cap.
func (rg *regrower) price(k int) (price cost, ok bool) {
	for _, d := range rg.deltas {
		if d.v == 0 {
			continue
		}
		p := rg.pend(d.c) // (a two-switch move's first change)
		x, y := rg.layer[k][d.c]+p, rg.total[d.c]+p
		if d.v > 0 && (k == 0 && x+d.v > rg.cap0 || y+d.v > rg.capTotal) {
			return 0, false
		}
		price += excess(x+d.v, rg.target[k]) - excess(x, rg.target[k])
		// a seeded layer may start above the caps: leaving them is worth it
		price += (max(y+d.v-rg.capTotal, 0) - max(y-rg.capTotal, 0)) * (pathUnit / overCapUnit)
	}
	return price, true
}

// excess is the cost of a channel at load x in a layer with the given
// target: the square of its excess in units of target/regrowLoadScale.
func excess(x, target int64) cost {
	if target <= 0 {
		return 0
	}
	q := mulDiv(x, pathUnit, target) // x / target
	spread := regrowSpread * mulDiv(q, q, pathUnit)
	if x <= target {
		return spread
	}
	e := mulDiv(x-target, regrowLoadScale*pathUnit, target)
	return mulDiv(e, e, pathUnit) + spread
}

// shiftLoads applies the changes shiftCost priced to layer k's loads.
func (rg *regrower) shiftLoads(k int) {
	for _, d := range rg.deltas {
		rg.g.chargeBoth(rg.layer[k], rg.total, int(d.c), d.v)
	}
}

// farRoutes lists, for every switch with hosts two hops from p's
// destination switch, its routes of two and three hops (planner's
// distances are those of p.t).
func (rg *regrower) farRoutes(planner *almost, p *entryPlan) [][]entryRoute {
	var out [][]entryRoute
	for s, h := range planner.dist {
		if h == 2 && rg.g.hosts[s] > 0 {
			out = append(out, planner.alternatives(p, s))
		}
	}
	return out
}

// randomPeer returns a neighbour of v, drawn evenly over its channels.
func (rg *regrower) randomPeer(v int) int32 {
	g := rg.g
	return g.peer[g.chOff[v]+rg.rng.intN(g.chOff[v+1]-g.chOff[v])]
}

// lastHopShares returns, per layer ≥ 1 (from 0) and neighbour of the
// plan, the share of gt's routes that enter t from that neighbour,
// weighted by the sources' hosts ([layer*N + neighbour], pathUnit the
// whole tree, in out's storage), and sets rg.sumW to their total.
func (rg *regrower) lastHopShares(gt *growTree, out []int64) []int64 {
	out = append(out[:0], make([]int64, (len(gt.par)-1)*rg.N)...)
	rg.sumW = 0
	for s, w := range gt.w {
		if s == gt.t || w == 0 {
			continue
		}
		rg.sumW += w
		for k := 1; k < len(gt.par); k++ {
			if i := rg.nbIdx[gt.lay[k].ent[s]]; i >= 0 {
				out[(k-1)*rg.N+int(i)] += w
			}
		}
	}
	for i := range out {
		out[i] = mulDiv(out[i], pathUnit, max(rg.sumW, 1))
	}
	return out
}
