package layers

import (
	"cmp"
	"slices"
)

// Balancing the layers ≥ 1 once they are built.
//
// The searches route one source at a time and price a channel by its load
// over all layers, and the entry plan lets a third of a destination's
// cables deliver in each layer: a layer's busiest channels carried up to
// twice its mean. balance then moves routes, tree by tree: a switch whose
// route crosses a channel above the layer's target takes another next hop
// when
//
//   - the tree stays a tree (the new next hop's route avoids the switch),
//   - every switch behind it keeps a route within its length bounds if it
//     had one, and none grows past the longer of its upper bound and its
//     distance (the deadlock schemes' VL counts stay),
//   - no channel of the new route rises above the target in the layer, or
//     above the busiest channel's load over all layers at the start (so
//     all-to-all traffic, which splits every flow over the layers, gets no
//     worse), and
//   - no (source switch, destination endpoint) pair behind it gets fewer
//     disjoint in-bounds paths over the layers — in the first passes; the
//     later ones may take a pair's paths down to keepPaths, no lower.
//
// The moves that relieve the hottest channel come first, then those whose
// new channels end least loaded, then switch and port order. The pass is
// sequential and its order fixed: the tables are the same on any number of
// cores.

const (
	// balanceSlack is the target of a layer's busiest channel over its
	// mean at the start (per mille).
	balanceSlack permille = 1250
	// strictPasses sweeps keep every pair's disjoint paths; relaxedPasses
	// more keep keepPaths of them.
	strictPasses, relaxedPasses = 2, 2
	// keepPaths is the deployment's aim: the minimal path and two
	// almost-minimal ones, disjoint.
	keepPaths = 3
	// triesPerMove bounds the candidates whose pairs are checked for one
	// move: the lowest peaks. 8 left q = 13's layer 3 at 1.37 × its mean
	// (the lowest eight each cost a pair a path); 32 reach the target at
	// no measurable cost.
	triesPerMove = 32
	// missesPerChannel bounds the trees in a row without a move that a
	// channel's relief looks at.
	missesPerChannel = 32
	// balanceLayers is the most layers balanced: a move's check weighs
	// every subset of a pair's paths.
	balanceLayers = 8
)

// balancer is the state of the pass: the loads, and the tree at hand.
type balancer struct {
	g       *graph
	r       *Routing
	k       int
	layer   []int64 // per channel: routes of layer k over it
	total   []int64 // the same over all layers
	led     *ledger // every layer's loads (layer is led.layer[k])
	cap     int64   // busiest channel's total at the start
	target  int64
	floor   int        // a move may take a pair's disjoint paths down to this many
	members [][]int    // per representative endpoint: those sharing its trees
	dists   []uint16   // [t*S + s]: hops from s to t
	dist    []uint16   // the row of the current tree's destination switch
	tree    *treeState // the tree at hand: own, or one of visited
	own     treeState
	// visited keeps, while a layer is balanced, the trees relieve has
	// read and measured, per representative endpoint (nil: none kept),
	// so that a tree visited again for another hot channel is not read
	// again; moves keep them current (see treeState.move)
	visited []*treeState
	ms      mendScratch
	moves   []move
	hotCh   []int // the layer's channels above target, hottest first
	sc      scratch
}

// move is a candidate: switch v of the current tree takes next hop j; peak
// is the highest layer load on its new channels.
type move struct {
	v, j int
	peak int64
}

// scratch holds the buffers of one move's evaluation.
type scratch struct {
	path    []int
	subtree []int32
	paths   [][]int
}

// balance balances layers ≥ 1 and mends them (if mend), weighing led's
// loads and keeping them current, and returns the balancer to recount
// their statistics with (nil when there is nothing to balance).
func balance(g *graph, r *Routing, mend bool, led *ledger) *balancer {
	S := len(g.adj)
	if r.layers < 2 || g.chOff[S] == 0 {
		return nil // one layer, or one switch: no channel to balance
	}
	b := newBalancer(g, r)
	b.led, b.total = led, led.total
	b.cap = slices.Max(b.total)
	b.sc.paths = make([][]int, r.layers)
	for k := 1; k < r.layers; k++ {
		b.balanceLayer(k)
	}
	if mend {
		b.cap = slices.Max(b.total) // what balance reached
		b.mend()
	}
	return b
}

func newBalancer(g *graph, r *Routing) *balancer {
	b := &balancer{g: g, r: r, own: newTreeState(len(g.adj)), dists: allDistances(g), members: sharers(r)}
	b.tree = &b.own
	return b
}

// sharers lists, per representative endpoint, the endpoints sharing its
// trees (itself first); empty for the others.
func sharers(r *Routing) [][]int {
	out := make([][]int, len(r.share))
	for e, d := range r.share {
		out[d] = append(out[d], e)
	}
	return out
}

// recount sets the statistics of layers ≥ 1 from their tables, once the
// passes that move routes are done.
func (b *balancer) recount() {
	for k := 1; k < b.r.layers; k++ {
		b.r.Stats[k] = b.stats(k)
	}
}

// build reads layer k's tree of endpoint d into b.tree.
func (b *balancer) build(k, d int) {
	S := len(b.g.adj)
	w := int64(1)
	if k > 0 {
		w = int64(len(b.members[d]))
	}
	t := b.g.dests[d].Switch
	b.tree = &b.own
	b.tree.build(b.g, b.r.next[k][d*S:(d+1)*S], t, w)
	b.dist = b.dists[t*S : (t+1)*S]
}

// visit makes layer b.k's tree of representative d, measured, the tree at
// hand: the one kept from an earlier visit in this layer, else read (and
// kept, when trees are kept).
func (b *balancer) visit(d int) {
	if b.visited == nil {
		b.build(b.k, d)
		b.tree.measure(b)
		return
	}
	t, S := b.g.dests[d].Switch, len(b.g.adj)
	b.dist = b.dists[t*S : (t+1)*S]
	if ts := b.visited[d]; ts != nil {
		b.tree = ts
		return
	}
	b.build(b.k, d)
	b.tree.measure(b)
	kept := newTreeState(S)
	kept.copyFrom(b.tree)
	b.visited[d], b.tree = &kept, &kept
}

// keptTreesMax bounds the memory of the trees balance keeps per layer
// (bytes; see visit): about 40 bytes per switch and tree. A variable for
// the test that compares the pass with and without them.
var keptTreesMax = 64 << 20

// allDistances returns the hops between every two switches of g, a
// connected graph: [t*S + s] from s to t. A breadth-first search per
// switch once costs less than one per tree visited (the pass visits a
// destination's trees many times, in no order).
func allDistances(g *graph) []uint16 {
	S := len(g.adj)
	all := make([]uint16, S*S)
	dist, order := make([]int32, S), make([]int32, 0, S)
	for t := 0; t < S; t++ {
		order = g.bfs(t, dist, order)
		for s, h := range dist {
			all[t*S+s] = uint16(h)
		}
	}
	return all
}

// slackTarget is the target of a layer with channel loads load:
// balanceSlack × their mean.
func slackTarget(load []int64) int64 {
	var sum int64
	for _, v := range load {
		sum += v
	}
	return mulDiv(sum, int64(balanceSlack), 1000*int64(max(len(load), 1)))
}

// balanceLayer moves routes of layer k off its channels above target.
func (b *balancer) balanceLayer(k int) {
	b.k = k
	b.layer = b.led.layer[k]
	b.target = slackTarget(b.layer)
	b.visited = nil
	if b.g.nEP*len(b.g.adj)*40 <= keptTreesMax {
		b.visited = make([]*treeState, b.g.nEP)
	}
	defer func() { b.visited = nil }()
	for pass := 0; pass < strictPasses+relaxedPasses; pass++ {
		b.floor = 1 << 30
		if pass >= strictPasses {
			b.floor = keepPaths
		}
		b.hotCh = b.hotCh[:0]
		for c, v := range b.layer {
			if v > b.target {
				b.hotCh = append(b.hotCh, c)
			}
		}
		slices.SortStableFunc(b.hotCh, func(x, y int) int { return cmp.Compare(b.layer[y], b.layer[x]) })
		for _, c := range b.hotCh {
			b.relieve(c)
		}
	}
}

// relieve moves routes off channel c, tree by tree, until its load is
// within target or no tree that crosses it has a move left.
func (b *balancer) relieve(c int) {
	g := b.g
	S := len(g.adj)
	u := b.g.tail(c)
	i := uint8(c - g.chOff[u])
	misses := 0
	for d := 0; d < g.nEP && b.layer[c] > b.target && misses < missesPerChannel; d++ {
		if b.r.share[d] != d || b.r.next[b.k][d*S+u] != i || !g.searched(d) {
			continue
		}
		misses++
		b.visit(d)
		for b.layer[c] > b.target && b.r.next[b.k][d*S+u] == i && b.moveFrom(d, int32(u)) {
			misses = 0
		}
	}
}

// moveFrom applies the best qualifying move of the current tree (of
// representative d) that takes routes off u's next hop, among the switches
// behind u, and reports whether there was one.
func (b *balancer) moveFrom(d int, u int32) bool {
	g := b.g
	ts := b.tree
	b.moves = b.moves[:0]
	b.sc.subtree = ts.subtree(u, b.sc.subtree[:0])
	for _, v := range b.sc.subtree {
		if ts.sub[v] == 0 {
			continue
		}
		for j := range g.adj[v] {
			if uint8(j) != ts.tab[v] {
				if p, ok := b.peak(int(v), j, u); ok {
					b.keep(move{int(v), j, p})
				}
			}
		}
	}
	for _, mv := range b.moves {
		if b.keepsPairs(d, mv) {
			b.apply(d, mv)
			return true
		}
	}
	return false
}

// keep enters mv in b.moves, the triesPerMove candidates with the lowest
// peak so far, in order (ties as found).
func (b *balancer) keep(mv move) {
	n := len(b.moves)
	if n == triesPerMove {
		if mv.peak >= b.moves[n-1].peak {
			return
		}
		n--
		b.moves = b.moves[:n]
	}
	i := n
	for i > 0 && mv.peak < b.moves[i-1].peak {
		i--
	}
	b.moves = slices.Insert(b.moves, i, mv)
}

// peak checks next hop j for switch v behind u: no loop, v's subtree
// keeps its lengths, the new route leaves u's channel, and v's routes
// leave every channel of it that v's route does not cross now within
// target (and cap over all layers). It returns the highest layer load on
// those.
func (b *balancer) peak(v, j int, u int32) (int64, bool) {
	g := b.g
	ts := b.tree
	ch := g.chOff[v] + j
	y := int(g.peer[ch])
	if delta := ts.hops[y] + 1 - ts.hops[v]; delta > ts.up[v] || delta < ts.down[v] || ts.inSubtree(y, v) {
		return 0, false
	}
	m := ts.sub[v]
	p, tot := b.layer[ch]+m, b.total[ch]+m
	x := y
	for ; x != ts.t && !ts.inSubtree(v, x); x = int(ts.par[x]) {
		c := g.chOff[x] + int(ts.tab[x])
		p, tot = max(p, b.layer[c]+m), max(tot, b.total[c]+m)
	}
	if x != ts.t && ts.inSubtree(x, int(u)) {
		return 0, false // it rejoins v's route before u's channel
	}
	if p > b.target || tot > b.cap {
		return 0, false
	}
	return p, true
}

// keepsPairs reports whether move mv leaves every pair of the switches
// behind it at least min(its disjoint paths, b.floor) disjoint in-bounds
// paths to every endpoint sharing the tree.
func (b *balancer) keepsPairs(d int, mv move) bool {
	g := b.g
	ts := b.tree
	b.sc.subtree = ts.subtree(int32(mv.v), b.sc.subtree[:0])
	for _, s := range b.sc.subtree {
		if g.hosts[s] == 0 {
			continue
		}
		for _, e := range b.members[d] {
			before := b.pairPathsTo(e, int(s), -1, nil)
			// the new path: s's channels up to v, then j and the route on
			p := b.sc.paths[b.k][:ts.hops[s]-ts.hops[mv.v]]
			p = append(p, g.chOff[mv.v]+mv.j)
			b.sc.paths[b.k] = ts.path(g, g.adj[mv.v][mv.j].Peer, p)
			if b.disjoint(int(s)) < min(before, b.floor) {
				return false
			}
		}
	}
	return true
}

// disjoint returns the most pairwise channel-disjoint paths among
// b.sc.paths (one per layer) that count for source switch s: layer 0's,
// and those of layers ≥ 1 within the bounds.
func (b *balancer) disjoint(s int) int {
	L := len(b.sc.paths)
	var ok [8]uint16 // ok[i]: the layers whose paths are disjoint from i's
	var in uint16
	lo, hi := b.r.Bounds.of(int(b.dist[s]))
	for i := 0; i < L; i++ {
		if n := len(b.sc.paths[i]); i == 0 || (n >= lo && n <= hi) {
			in |= 1 << i
		}
		for j := 0; j < i; j++ {
			if !sharesChannel(b.sc.paths[i], b.sc.paths[j]) {
				ok[i] |= 1 << j
				ok[j] |= 1 << i
			}
		}
	}
	best := 0
	for set := uint16(1); set < 1<<L; set++ {
		if set&^in != 0 {
			continue
		}
		n, good := 0, true
		for i := 0; i < L && good; i++ {
			if set&(1<<i) != 0 {
				n++
				good = set&^(1<<i)&^ok[i] == 0
			}
		}
		if good {
			best = max(best, n)
		}
	}
	return best
}

func sharesChannel(x, y []int) bool {
	for _, c := range x {
		if slices.Contains(y, c) {
			return true
		}
	}
	return false
}

// apply moves v's routes in the current tree (of representative d) to
// next hop j, in the tables of every endpoint sharing it, and the loads
// with them.
func (b *balancer) apply(d int, mv move) {
	g := b.g
	ts := b.tree
	S := len(g.adj)
	m := ts.sub[mv.v]
	b.sc.path = ts.path(g, mv.v, b.sc.path[:0])
	for _, c := range b.sc.path {
		g.chargeBoth(b.layer, b.total, c, -m)
	}
	ts.move(b, mv.v, mv.j)
	for _, e := range b.members[d] {
		b.r.next[b.k][e*S+mv.v] = uint8(mv.j)
	}
	b.sc.path = ts.path(g, mv.v, b.sc.path[:0])
	for _, c := range b.sc.path {
		g.chargeBoth(b.layer, b.total, c, m)
	}
}

// stats recounts layer k's statistics after the moves: once per tree,
// for every endpoint sharing it (their tables are copies).
func (b *balancer) stats(k int) LayerStats {
	g := b.g
	st := LayerStats{Layer: k}
	for d := 0; d < g.nEP; d++ {
		if b.r.share[d] != d || !g.searched(d) {
			continue
		}
		b.build(k, d)
		t := b.tree.t
		for s, h := range b.tree.hops {
			if s == t || g.hosts[s] == 0 {
				continue
			}
			lo, hi := b.r.Bounds.of(int(b.dist[s]))
			for range b.members[d] {
				st.add(int(h), int(h) >= lo && int(h) <= hi)
			}
		}
	}
	return st
}
