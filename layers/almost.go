package layers

import (
	"container/heap"
	"math/rand/v2"
	"sort"
)

// almost builds the almost-minimal layers 1..L−1. It is one worker's
// state, reused from group to group: its parts below are the scratch of one
// step each (the embedded ones keep the hot loops' field access short).
type almost struct {
	loads // this worker's copy
	g     *graph
	r     *Routing
	seed  uint64
	level []uint8 // [d*S + s]: layers that gave s a new in-bounds path to d, shared by the workers
	pcg   *rand.PCG
	rng   *rand.Rand
	near  nearChannels

	destination
	sourceSearch
	fallbackState
}

// destination is the group being routed in one layer: its tree as it
// grows, and what every switch knows about the destination switch.
type destination struct {
	k, d    int   // layer and the group's first endpoint
	t       int   // destination switch
	weight  int64 // endpoints whose trees this search builds
	group   []int // those endpoints, d first
	penalty int64 // load-equivalent cost of one collateral switch
	tab     []uint8
	dist    []int32 // hops to t
	order   []int32 // switches by distance from t (BFS order)
	hops    []int32 // pinned path length; -1 while unpinned
	srcs    []int   // sources in priority order
	rank    []int   // seeded shuffle breaking ties among sources
	fresh   []bool  // the route from s is new to layers 1..k−1
	// entries planned for this layer (entry.go)
	plans    []*entryPlan // per destination switch: the colouring of its neighbours, shared
	noDirect []bool       // [s]: s is a neighbour of t that may not deliver directly
	class    []int8       // [s]: source class (sourceClass)
	entryBan []int        // the switches marked in noDirect
}

// sourceSearch is the depth-first search for one source's path: the
// partial path, the source's earlier paths it should avoid, and the best
// complete path found so far.
type sourceSearch struct {
	lo, hi int     // length bounds of this source's path
	own    []int   // channel ids of the source's earlier-layer paths
	path   []int32 // switches of the partial path, source first
	pidx   []uint8 // channel index taken at each of them
	pch    []int   // channel ids taken
	best   candidate
	chain  []int // pinned channels from where the path joins the tree
	buf    []int
}

// fallbackState is fill's Dijkstra over the switches left unpinned.
type fallbackState struct {
	fh       []int32 // route length
	fc       []int64 // route load
	fnext    []uint8 // channel index toward the destination
	settled  []bool
	fallback []bool // routed by fill, not by a search
	sub      []int64
	pq       fallbackHeap
}

// nearChannels lists, per switch, its channels whose peer is at distance
// ≤ 1 from the destination switch t, and = 0 (t itself), in port order.
type nearChannels struct {
	t                int
	nearOff, toOff   []int32
	nearChan, toChan []uint8
}

type candidate struct {
	found      bool
	overlap    int
	collateral int // new intermediate switches (with endpoints) left without a new in-bounds path
	cost       int64
	length     int
	nodes      []int32 // new switches, source first
	idx        []uint8 // channel index each of them takes
	chans      []int   // every channel of the path, to the destination
}

func newAlmost(g *graph, r *Routing, load []int64, seed uint64, level []uint8) *almost {
	S := len(g.adj)
	pcg := rand.NewPCG(seed, 0)
	return &almost{loads: newLoads(load), near: nearChannels{t: -1},
		g: g, r: r, seed: seed,
		pcg: pcg, rng: rand.New(pcg),
		level: level,
		destination: destination{
			dist: make([]int32, S), order: make([]int32, 0, S),
			hops: make([]int32, S), srcs: make([]int, 0, S), rank: make([]int, S),
			fresh: make([]bool, S), noDirect: make([]bool, S), class: make([]int8, S),
		},
		fallbackState: fallbackState{
			fh: make([]int32, S), fc: make([]int64, S), fnext: make([]uint8, S),
			settled: make([]bool, S), fallback: make([]bool, S), sub: make([]int64, S),
		},
	}
}

// buildAlmost builds layers 1..L−1: in each, the destination groups in
// batches (see inBatches), one worker per member of a batch.
func buildAlmost(g *graph, r *Routing, load []int64, seed uint64) {
	var ws [batch]*almost
	var ls [batch]*loads
	level := make([]uint8, g.nEP*len(g.adj)) // shared: groups are disjoint
	for w := range ws {
		ws[w] = newAlmost(g, r, load, seed, level)
		ls[w] = &ws[w].loads
	}
	var reps []int
	for d := 0; d < g.nEP; d++ {
		if r.share[d] == d && g.searched(d) {
			reps = append(reps, d)
		}
	}
	plans := planAll(g, r, ws[:], reps)
	for w := range ws {
		ws[w].plans = plans
	}
	for k := 1; k < r.layers; k++ {
		var stats [batch]LayerStats
		inBatches(len(reps), g.parallel, ls, func(w, i int) { ws[w].route(k, reps[i], &stats[w]) })
		st := LayerStats{Layer: k}
		for _, x := range stats {
			st.merge(x)
		}
		r.Stats = append(r.Stats, st)
	}
}

// route builds layer k for destination group d (its first endpoint) and
// copies the trees to the group's other endpoints.
func (a *almost) route(k, d int, st *LayerStats) {
	a.start(k, d)
	a.prioritiseSources()
	for _, s := range a.srcs {
		if a.hops[s] >= 0 {
			continue // pinned by an earlier source's path
		}
		a.prepareSearch(s)
		a.search(s)
		if a.best.found {
			a.pin()
		}
	}
	a.fill()
	a.markFresh()
	for _, e := range a.group {
		a.finish(e, st)
	}
}

// start resets the destination state for group d in layer k: its members,
// an empty tree holding only the destination switch, the distances to it
// and the seeded generator for this layer and group.
func (a *almost) start(k, d int) {
	g := a.g
	S := len(g.adj)
	a.k = k
	a.pcg.Seed(a.seed, uint64(k)<<32|uint64(d))
	a.group = a.group[:0]
	for e := d; e < g.nEP && g.dests[e].Switch == g.dests[d].Switch; e++ {
		if a.r.share[e] == d {
			a.group = append(a.group, e)
		}
	}
	a.weight = int64(len(a.group))
	a.d = d
	a.t = g.dests[d].Switch
	n := int64(max(len(a.load), 1)) // penalty: collateralWeight × (mean load)³ / priceScale²
	a.penalty = collateralWeight * mulDiv(mulDiv(a.total, a.total, n*priceScale), a.total, n*n*priceScale)
	a.tab = a.r.next[k][d*S : (d+1)*S]
	for i := range a.tab {
		a.tab[i] = hopNone
		a.hops[i] = -1
	}
	a.tab[a.t] = hopLocal
	a.hops[a.t] = 0
	a.order = g.bfs(a.t, a.dist, a.order)
	a.near.prepare(g, a.t, a.dist)
	tree := 0
	for e := d - 1; e >= 0 && g.dests[e].Switch == a.t; e-- {
		if a.r.share[e] == e {
			tree++
		}
	}
	a.planEntries(tree)
}

// prioritiseSources orders the sources: by class (sourceClass: the
// scarcest paths first), then fewest alternatives so far first, switches
// without endpoints last, ties by a seeded shuffle.
func (a *almost) prioritiseSources() {
	g := a.g
	S := len(g.adj)
	lv := a.level[a.d*S : (a.d+1)*S]
	a.srcs = a.srcs[:0]
	for s := 0; s < S; s++ {
		a.rank[s] = s
		if s != a.t {
			a.srcs = append(a.srcs, s)
			a.class[s] = a.sourceClass(s)
		}
	}
	a.rng.Shuffle(S, func(i, j int) { a.rank[i], a.rank[j] = a.rank[j], a.rank[i] })
	sort.Slice(a.srcs, func(i, j int) bool {
		x, y := a.srcs[i], a.srcs[j]
		if a.class[x] != a.class[y] {
			return a.class[x] < a.class[y]
		}
		if lv[x] != lv[y] {
			return lv[x] < lv[y]
		}
		if hx, hy := g.hosts[x] == 0, g.hosts[y] == 0; hx != hy {
			return hy
		}
		return a.rank[x] < a.rank[y]
	})
}

// sourceClass ranks source s by how scarce its paths in this layer are:
// 0 for a neighbour of the destination switch that may not deliver
// directly, 1 for a switch whose every minimal path ends on such a
// neighbour (it needs a longer path), 2 for the rest.
func (a *almost) sourceClass(s int) int8 {
	if len(a.entryBan) == 0 {
		return 2
	}
	if a.noDirect[s] {
		return 0
	}
	g := a.g
	for _, y := range g.peer[g.chOff[s]:g.chOff[s+1]] {
		if a.dist[y] == a.dist[s]-1 && !a.noDirect[y] {
			return 2
		}
	}
	return 1
}

// prepareSearch sets source s's length bounds and collects the channels of
// its paths to the destination in the earlier layers.
func (a *almost) prepareSearch(s int) {
	a.lo, a.hi = a.r.Bounds.of(int(a.dist[s]))
	if a.g.bipartite { // every path from s to t has the parity of their distance
		a.lo += (a.lo - int(a.dist[s])) & 1
		a.hi -= (a.hi - int(a.dist[s])) & 1
	}
	a.own = a.own[:0]
	for j := 0; j < a.k; j++ {
		a.buf, _ = a.r.PathChannels(j, s, a.d, a.buf)
		a.own = append(a.own, a.buf...)
	}
}

// markFresh records, per switch, whether its route in this layer differs
// from its routes in layers 1..k−1. The group shares those layers, so this
// is known once for all its endpoints; layer 0 is each endpoint's own.
func (a *almost) markFresh() {
	S := len(a.g.adj)
	for s := 0; s < S; s++ {
		a.fresh[s] = true
		for j := 1; j < a.k && a.fresh[s]; j++ {
			a.fresh[s] = !a.samePath(a.tab, a.r.next[j][a.d*S:(a.d+1)*S], s)
		}
	}
}

// finish gives endpoint e of the group the tree, counts the switches that
// got a new in-bounds path to e, and adds e's pairs to the layer's stats.
func (a *almost) finish(e int, st *LayerStats) {
	g := a.g
	S := len(g.adj)
	if e != a.d {
		copy(a.r.next[a.k][e*S:(e+1)*S], a.tab)
	}
	lv := a.level[e*S : (e+1)*S]
	base := a.r.next[0][e*S : (e+1)*S]
	for s := 0; s < S; s++ {
		if s == a.t {
			continue
		}
		lo, hi := a.r.Bounds.of(int(a.dist[s]))
		h := int(a.hops[s])
		in := h >= lo && h <= hi
		if in && lv[s] < 255 && a.fresh[s] && !a.samePath(a.tab, base, s) {
			lv[s]++
		}
		if g.hosts[s] > 0 {
			st.add(h, in)
		}
	}
}

// samePath reports whether the routes from switch s in next-hop tables x
// and y (one destination's column of two layers) are the same.
func (a *almost) samePath(x, y []uint8, s int) bool {
	for v, n := s, 0; n <= len(x); n++ {
		e := x[v]
		if e != y[v] {
			return false
		}
		if e == hopLocal || e == hopNone {
			return true
		}
		v = int(a.g.peer[a.g.chOff[v]+int(e)])
	}
	return false
}

func (a *almost) ownCount(ch int) int {
	n := 0
	for _, c := range a.own {
		if c == ch {
			n++
		}
	}
	return n
}

func (a *almost) onPath(x int) bool {
	for _, p := range a.path {
		if int(p) == x {
			return true
		}
	}
	return false
}

// worse reports whether a complete path (o, col, c, l) does not beat the
// best candidate.
func (a *almost) worse(o, col int, c int64, l int) bool {
	b := &a.best
	if !b.found {
		return false
	}
	if o != b.overlap {
		return o > b.overlap
	}
	c += int64(col) * a.penalty
	if bc := b.cost + int64(b.collateral)*a.penalty; c != bc {
		return c > bc
	}
	if c != b.cost {
		return c > b.cost
	}
	return l >= b.length
}

// search finds the best in-bounds path from s: fewest channels shared with
// s's earlier paths to this destination, then least load, then fewest
// hops, then first in port order. New switches on it must be unpinned;
// reaching a pinned switch means following its pinned chain.
func (a *almost) search(s int) {
	a.best.found = false
	a.path = append(a.path[:0], int32(s))
	a.pidx = a.pidx[:0]
	a.pch = a.pch[:0]
	a.dfs(s, 0, 0)
}

// prepare lists, for destination switch t, the channels of every switch
// that lead to a switch at distance ≤ 1 from it, and to it. When a path may
// take only one or no more hop after the next, only those channels can
// finish in bounds (a pinned switch's route is never shorter than its
// distance), so dfs scans them instead of all channels, in the same port
// order: the search finds the same paths, faster.
func (n *nearChannels) prepare(g *graph, t int, dist []int32) {
	if n.t == t {
		return
	}
	n.t = t
	S := len(g.adj)
	n.nearOff, n.toOff = n.nearOff[:0], n.toOff[:0]
	n.nearChan, n.toChan = n.nearChan[:0], n.toChan[:0]
	for x := 0; x < S; x++ {
		n.nearOff = append(n.nearOff, int32(len(n.nearChan)))
		n.toOff = append(n.toOff, int32(len(n.toChan)))
		for i, c := range g.adj[x] {
			switch dist[c.Peer] {
			case 0:
				n.toChan = append(n.toChan, uint8(i))
				n.nearChan = append(n.nearChan, uint8(i))
			case 1:
				n.nearChan = append(n.nearChan, uint8(i))
			}
		}
	}
	n.nearOff = append(n.nearOff, int32(len(n.nearChan)))
	n.toOff = append(n.toOff, int32(len(n.toChan)))
}

// channels returns the channel indices of x worth trying when the path may
// take at most r more hops after the next one.
func (n *nearChannels) channels(x, r int) []uint8 {
	switch r {
	case 0:
		return n.toChan[n.toOff[x]:n.toOff[x+1]]
	case 1:
		return n.nearChan[n.nearOff[x]:n.nearOff[x+1]]
	}
	return nil
}

func (a *almost) dfs(x, overlap int, cost int64) {
	g := a.g
	depth := len(a.path) - 1
	if r := a.hi - depth - 1; r <= 1 {
		if r < 0 {
			return
		}
		for _, i := range a.near.channels(x, r) {
			a.step(x, int(i), depth, overlap, cost)
		}
		return
	}
	for i := range g.adj[x] {
		a.step(x, i, depth, overlap, cost)
	}
}

// step tries channel i of x as the next hop of the partial path.
func (a *almost) step(x, i, depth, overlap int, cost int64) {
	g := a.g
	ch := g.chOff[x] + i
	y := int(g.peer[ch])
	if y == a.t && a.noDirect[x] {
		return // x delivers over other neighbours in this layer (entry.go)
	}
	// cheap length checks first: most neighbours cannot finish in bounds
	h := a.hops[y]
	terminal := y == a.t || h >= 0
	if terminal {
		if l := depth + 1 + int(h); l < a.lo || l > a.hi {
			return
		}
	} else if depth+1+int(a.dist[y]) > a.hi {
		return
	}
	if a.onPath(y) {
		return
	}
	o := overlap + a.ownCount(ch)
	k := cost + a.price(ch)
	// a partial path can still gain collateral, never lose it
	if b := &a.best; b.found && (o > b.overlap || (o == b.overlap && a.worse(o, 0, k, depth+1))) {
		return
	}
	if !terminal {
		a.path = append(a.path, int32(y))
		a.pidx = append(a.pidx, uint8(i))
		a.pch = append(a.pch, ch)
		a.dfs(y, o, k)
		a.path = a.path[:len(a.path)-1]
		a.pidx = a.pidx[:len(a.pidx)-1]
		a.pch = a.pch[:len(a.pch)-1]
		return
	}
	l := depth + 1 + int(h)
	a.chain = a.chain[:0]
	for z := y; z != a.t; {
		e := a.tab[z]
		zc := g.chOff[z] + int(e)
		o += a.ownCount(zc)
		k += a.price(zc)
		a.chain = append(a.chain, zc)
		z = int(g.peer[zc])
	}
	col := a.collateral(l, ch)
	if !a.worse(o, col, k, l) {
		b := &a.best
		b.found, b.overlap, b.collateral, b.cost, b.length = true, o, col, k, l
		b.nodes = append(b.nodes[:0], a.path...)
		b.idx = append(append(b.idx[:0], a.pidx...), uint8(i))
		b.chans = append(append(append(b.chans[:0], a.pch...), ch), a.chain...)
	}
}

// collateral counts the new intermediate switches of the path just found
// (a.path[1:], then channel last and a.chain) that have endpoints and would
// be pinned to a path that is out of their bounds or repeats one of their
// earlier-layer paths: pairs that this layer would serve no better.
func (a *almost) collateral(l, last int) int {
	n := 0
	for i := 1; i < len(a.path); i++ {
		v := int(a.path[i])
		if a.g.hosts[v] == 0 {
			continue
		}
		lo, hi := a.r.Bounds.of(int(a.dist[v]))
		if h := l - i; h < lo || h > hi || a.repeats(v, i, last) {
			n++
		}
	}
	return n
}

// repeats reports whether the suffix of the candidate path from its i-th
// switch v equals v's path to the destination in an earlier layer.
func (a *almost) repeats(v, i, last int) bool {
	suffix := func(j int) int { // channel j of the suffix
		switch m := len(a.pch) - i; {
		case j < m:
			return a.pch[i+j]
		case j == m:
			return last
		default:
			return a.chain[j-m-1]
		}
	}
	n := len(a.pch) - i + 1 + len(a.chain)
	for k := 0; k < a.k; k++ {
		tab := a.r.next[k][a.d*len(a.g.adj):]
		j := 0
		for x := v; j <= n; j++ {
			e := tab[x]
			if e == hopLocal {
				break
			}
			if j == n || a.g.chOff[x]+int(e) != suffix(j) {
				j = -1
				break
			}
			x = a.g.adj[x][e].Peer
		}
		if j == n {
			return true
		}
	}
	return false
}

// pin fixes the best path's new switches and charges its channels: hop i
// carries the endpoints of all new switches up to it.
func (a *almost) pin() {
	b := &a.best
	var acc int64
	for i, ch := range b.chans {
		if i < len(b.nodes) {
			v := b.nodes[i]
			a.tab[v] = b.idx[i]
			a.hops[v] = int32(b.length - i)
			acc += int64(a.g.hosts[v]) * a.weight
		}
		a.add(a.g, ch, acc)
	}
}

// fill routes the switches left unpinned: a Dijkstra on (hops, load) from
// the destination in which pinned switches keep their pinned routes and
// unpinned ones may join any settled neighbour. Their load is charged
// along their whole route.
func (a *almost) fill() {
	if !a.markUnpinned() {
		return
	}
	a.pinnedCosts()
	a.joinTree()
	a.unstrand()
	a.chargeFallback()
}

// markUnpinned marks the switches no search pinned as fallback and reports
// whether there are any.
func (a *almost) markUnpinned() bool {
	any := false
	for v := range a.g.adj {
		a.settled[v] = a.hops[v] >= 0
		a.fallback[v] = !a.settled[v]
		any = any || a.fallback[v]
	}
	return any
}

// pinnedCosts sets the length and load of every pinned switch's route,
// shortest routes first so each builds on its next hop's.
func (a *almost) pinnedCosts() {
	g := a.g
	for _, v := range a.order {
		if a.hops[v] < 0 {
			continue
		}
		a.fh[v] = a.hops[v]
		a.fc[v] = 0
	}
	for h := int32(1); h <= MaxSearchLen+1; h++ {
		for _, v := range a.order {
			if a.hops[v] == h {
				c := g.adj[v][a.tab[v]]
				a.fc[v] = a.fc[c.Peer] + a.load[g.chOff[v]+int(a.tab[v])]
			}
		}
	}
}

// joinTree runs the Dijkstra from the pinned switches (as sources at their
// route's length and load) over the unpinned ones, and enters each
// unpinned switch's shortest, least loaded route in the tree.
func (a *almost) joinTree() {
	g := a.g
	a.pq = a.pq[:0]
	for _, v := range a.order {
		if a.settled[v] {
			heap.Push(&a.pq, fallbackItem{a.fh[v], a.fc[v], v})
		} else {
			a.fh[v] = -1
		}
	}
	for a.pq.Len() > 0 {
		it := heap.Pop(&a.pq).(fallbackItem)
		u := int(it.v)
		if it.h != a.fh[u] || it.c != a.fc[u] {
			continue
		}
		if a.fallback[u] {
			if a.settled[u] {
				continue
			}
			a.settled[u] = true
		}
		for i := range g.adj[u] {
			rv := int(g.rev[g.chOff[u]+i])
			v := g.adj[u][i].Peer
			if !a.fallback[v] || a.settled[v] {
				continue
			}
			h, c := it.h+1, it.c+a.load[rv]
			if a.fh[v] < 0 || h < a.fh[v] || (h == a.fh[v] && c < a.fc[v]) {
				a.fh[v], a.fc[v] = h, c
				a.fnext[v] = uint8(rv - g.chOff[v])
				heap.Push(&a.pq, fallbackItem{h, c, int32(v)})
			}
		}
	}
	for _, v := range a.order {
		if a.fallback[v] {
			a.tab[v] = a.fnext[v]
			a.hops[v] = a.fh[v]
		}
	}
}

// chargeFallback charges the loads of the fallback switches' endpoints
// along their whole routes, from the farthest switch in, so a switch's
// charge carries those of the fallback switches routed through it.
func (a *almost) chargeFallback() {
	g := a.g
	var fb []int32
	for _, v := range a.order {
		if a.fallback[v] {
			a.sub[v] = int64(g.hosts[v]) * a.weight
			fb = append(fb, v)
		}
	}
	sort.SliceStable(fb, func(i, j int) bool { return a.fh[fb[i]] > a.fh[fb[j]] })
	for _, v := range fb {
		ch := g.chOff[v] + int(a.tab[v])
		a.add(g, ch, a.sub[v])
		p := g.adj[v][a.tab[v]].Peer
		if a.fallback[p] {
			a.sub[p] += a.sub[v]
			continue
		}
		for z := p; z != a.t; {
			e := a.tab[z]
			a.add(g, g.chOff[z]+int(e), a.sub[v])
			z = g.adj[z][e].Peer
		}
	}
}

// unstrand bounds every route by the longer of the pair's upper bound and
// its distance. A switch whose neighbours toward the destination were all
// pinned to long paths can be left with a longer route; it and the chain
// below it are re-routed along a minimal path (least loaded channel at each
// step). Each re-routed switch then points strictly closer to the
// destination, so the layer stays loop-free and no route grows: the
// switches above it only get shorter routes. The re-routed switches count
// as fallback.
func (a *almost) unstrand() {
	g := a.g
	changed := false
	for _, v := range a.order {
		_, hi := a.r.Bounds.of(int(a.dist[v]))
		if int(a.hops[v]) <= max(hi, int(a.dist[v])) {
			continue
		}
		for x := int(v); x != a.t && a.hops[x] != a.dist[x]; {
			best := -1
			for i, c := range g.adj[x] {
				if a.dist[c.Peer] == a.dist[x]-1 && (best < 0 || a.load[g.chOff[x]+i] < a.load[g.chOff[x]+best]) {
					best = i
				}
			}
			a.tab[x] = uint8(best)
			a.hops[x] = a.dist[x]
			a.fallback[x] = true
			x = g.adj[x][best].Peer
		}
		changed = true
	}
	if !changed {
		return
	}
	// recompute every route length: walk to the first switch already known
	for i := range a.hops {
		a.fh[i] = -1
	}
	a.fh[a.t] = 0
	var stack []int
	for _, v := range a.order {
		x := int(v)
		for a.fh[x] < 0 {
			stack = append(stack, x)
			x = g.adj[x][a.tab[x]].Peer
		}
		for len(stack) > 0 {
			y := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			a.fh[y] = a.fh[x] + 1
			x = y
		}
	}
	copy(a.hops, a.fh)
}

type fallbackItem struct {
	h int32
	c int64
	v int32
}

type fallbackHeap []fallbackItem

func (h fallbackHeap) Len() int { return len(h) }
func (h fallbackHeap) Less(i, j int) bool {
	if h[i].h != h[j].h {
		return h[i].h < h[j].h
	}
	if h[i].c != h[j].c {
		return h[i].c < h[j].c
	}
	return h[i].v < h[j].v
}
func (h fallbackHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *fallbackHeap) Push(x any)   { *h = append(*h, x.(fallbackItem)) }
func (h *fallbackHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// collateralWeight prices one collateral switch (see collateral) at this
// many times the price of a channel at the mean load, so a search trades
// it against load.
// Chosen on q=5 and q=7 among 0.5, 1, 2, 4, 8 and lexicographic: 1 gave
// the lowest permutation load with ≥3 disjoint paths for 93% of q=7 pairs.
const collateralWeight = 1

// price is what a search pays for channel ch: its load cubed (scaled), so
// that a path over one busy channel costs far more than over two half as
// busy and the layer's busiest channels are spared. Chosen on q = 5 … 13
// against the plain load and its square: the busiest channel of layers
// 1–3 fell from 1.5–2.8 to 1.4–2.2 times the mean (with the entry plan),
// the disjoint-path shares stayed within 0.1 point.
func (a *almost) price(ch int) int64 {
	l := a.load[ch]
	return l * l / priceScale * l / priceScale
}

// priceScale keeps price within int64 (loads reach 10^5 on q = 19); it
// was chosen among 8, 16, 32 and 64 on q = 5 … 13 for the lowest
// all-to-all load.
const priceScale = 64
