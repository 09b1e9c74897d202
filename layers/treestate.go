package layers

// treeState is one destination tree of a finished layer seen from its
// switches: route lengths, the switches behind each and the routes they
// bring, and (measure) what balance needs to judge a move in O(1). move
// keeps it current when balance changes one next hop, so a tree is read
// once per visit, not once per move.
type treeState struct {
	tab  []uint8
	t    int
	hops []int32 // route length per switch
	sub  []int64 // routes through each switch: hosts behind it (itself included) × the tree's weight
	// the switches whose next hop is s: first[s], then next[...] in switch
	// order, -1 ending the list
	first, next []int32
	byHops      []int32 // switches, farthest first
	stack       []int32
	// set by measure
	up, down []int32 // the most each switch's route may lengthen, and shorten (negative), for every route behind it
}

func newTreeState(S int) treeState {
	return treeState{hops: make([]int32, S), sub: make([]int64, S),
		first: make([]int32, S), next: make([]int32, S), byHops: make([]int32, S),
		up: make([]int32, S), down: make([]int32, S)}
}

// copyFrom makes ts a copy of o (same size), but for byHops, which only
// build and measure read.
func (ts *treeState) copyFrom(o *treeState) {
	ts.tab, ts.t = o.tab, o.t
	copy(ts.hops, o.hops)
	copy(ts.sub, o.sub)
	copy(ts.first, o.first)
	copy(ts.next, o.next)
	copy(ts.up, o.up)
	copy(ts.down, o.down)
}

// build reads the tree tab to destination switch t, whose every route
// stands for w destination endpoints.
func (ts *treeState) build(g *graph, tab []uint8, t int, w int64) {
	ts.tab, ts.t = tab, t
	for s := range ts.hops {
		ts.hops[s] = -1
	}
	ts.hops[t] = 0
	for s := range ts.hops {
		x := int32(s)
		for ts.hops[x] < 0 {
			ts.stack = append(ts.stack, x)
			x = ts.parent(g, x)
		}
		for n := len(ts.stack) - 1; n >= 0; n-- {
			ts.hops[ts.stack[n]] = ts.hops[x] + 1
			x = ts.stack[n]
		}
		ts.stack = ts.stack[:0]
	}
	ts.children(g)
	ts.sortByHops()
	for _, s := range ts.byHops {
		ts.sub[s] = int64(g.hosts[s]) * w
	}
	for _, s := range ts.byHops {
		if int(s) != t {
			ts.sub[ts.parent(g, s)] += ts.sub[s]
		}
	}
}

// parent returns s's next switch toward t.
func (ts *treeState) parent(g *graph, s int32) int32 {
	return g.peer[g.chOff[s]+int(ts.tab[s])]
}

// children fills the lists of first and next: switches in descending
// order, each put at the head of its parent's list.
func (ts *treeState) children(g *graph) {
	for s := range ts.first {
		ts.first[s] = -1
	}
	for s := len(ts.first) - 1; s >= 0; s-- {
		if s != ts.t {
			p := ts.parent(g, int32(s))
			ts.next[s] = ts.first[p]
			ts.first[p] = int32(s)
		}
	}
}

// sortByHops orders the switches by route length, longest first (a
// breadth-first walk of the tree from t, reversed).
func (ts *treeState) sortByHops() {
	ts.byHops = ts.subtree(int32(ts.t), ts.byHops[:0])
	for i, j := 0, len(ts.byHops)-1; i < j; i, j = i+1, j-1 {
		ts.byHops[i], ts.byHops[j] = ts.byHops[j], ts.byHops[i]
	}
}

// addLoads adds every channel's routes in the tree to load.
func (ts *treeState) addLoads(g *graph, load []int64) {
	for s := range ts.hops {
		if s != ts.t {
			g.charge(load, g.chOff[s]+int(ts.tab[s]), ts.sub[s])
		}
	}
}

// measure fills up and down for balancer b.
func (ts *treeState) measure(b *balancer) {
	for _, s := range ts.byHops { // farthest first: children before parents
		ts.settle(b, s)
	}
}

// settle sets s's up and down from its own route and its children's.
func (ts *treeState) settle(b *balancer, s int32) {
	dist := int32(b.dist[s])
	lo, hi := b.r.Bounds.of(int(dist))
	h := ts.hops[s]
	up, down := max(int32(hi), dist)-h, -h
	if b.g.hosts[s] > 0 && int(h) >= lo && int(h) <= hi {
		up, down = min(up, int32(hi)-h), int32(lo)-h
	}
	for y := ts.first[s]; y >= 0; y = ts.next[y] {
		up, down = min(up, ts.up[y]), max(down, ts.down[y])
	}
	ts.up[s], ts.down[s] = up, down
}

// move gives switch v next hop j and brings the state up to date: v's
// old parent loses it, its new one takes it in switch order, the routes
// behind v change length, the switches on both routes their counts, and
// up and down are settled again behind v and along both routes.
func (ts *treeState) move(b *balancer, v, j int) {
	g := b.g
	old := ts.parent(g, int32(v))
	ts.unlink(old, int32(v))
	ts.tab[v] = uint8(j)
	p := ts.parent(g, int32(v))
	ts.link(p, int32(v))
	m := ts.sub[v]
	for x := old; int(x) != ts.t; x = ts.parent(g, x) { // t's count stays
		ts.sub[x] -= m
	}
	for x := p; int(x) != ts.t; x = ts.parent(g, x) {
		ts.sub[x] += m
	}
	delta := ts.hops[p] + 1 - ts.hops[v]
	ts.stack = ts.subtree(int32(v), ts.stack[:0])
	for _, x := range ts.stack {
		ts.hops[x] += delta
	}
	for i := len(ts.stack) - 1; i >= 0; i-- { // children before parents
		ts.settle(b, ts.stack[i])
	}
	ts.stack = ts.stack[:0]
	for _, x := range [2]int32{old, p} {
		for ; int(x) != ts.t; x = ts.parent(g, x) {
			ts.settle(b, x)
		}
		ts.settle(b, x)
	}
}

// unlink takes v off p's list of children.
func (ts *treeState) unlink(p, v int32) {
	if ts.first[p] == v {
		ts.first[p] = ts.next[v]
		return
	}
	y := ts.first[p]
	for ts.next[y] != v {
		y = ts.next[y]
	}
	ts.next[y] = ts.next[v]
}

// link puts v on p's list of children, in switch order.
func (ts *treeState) link(p, v int32) {
	if y := ts.first[p]; y < 0 || y > v {
		ts.next[v], ts.first[p] = y, v
		return
	}
	y := ts.first[p]
	for ts.next[y] >= 0 && ts.next[y] < v {
		y = ts.next[y]
	}
	ts.next[v], ts.next[y] = ts.next[y], v
}

// inSubtree reports whether y's route passes v (or y is v).
func (ts *treeState) inSubtree(g *graph, y, v int) bool {
	for ts.hops[y] > ts.hops[v] {
		y = int(ts.parent(g, int32(y)))
	}
	return y == v
}

// subtree appends v and the switches whose routes pass it to out, nearest
// first.
func (ts *treeState) subtree(v int32, out []int32) []int32 {
	out = append(out, v)
	for i := len(out) - 1; i < len(out); i++ {
		for y := ts.first[out[i]]; y >= 0; y = ts.next[y] {
			out = append(out, y)
		}
	}
	return out
}

// path appends the channels of v's route to out.
func (ts *treeState) path(g *graph, v int, out []int) []int {
	for x := v; x != ts.t; {
		c := g.chOff[x] + int(ts.tab[x])
		out = append(out, c)
		x = int(g.peer[c])
	}
	return out
}
