package layers

// treeState is one destination tree of a finished layer as balance and
// mending see it: the tree (tree.go) read from the layer's table tab,
// which move writes through, and (measure) what balance needs to judge a
// move in O(1). move keeps both current when balance changes one next
// hop, so a tree is read once per visit, not once per move.
type treeState struct {
	tree
	tab   []uint8
	w     []int64 // per switch: what it sends (build's scratch)
	stack []int32
	// set by measure
	up, down []int32 // the most each switch's route may lengthen, and shorten (negative), for every route behind it
}

func newTreeState(S int) treeState {
	return treeState{tree: newTree(S), up: make([]int32, S), down: make([]int32, S)}
}

// copyFrom makes ts a copy of o (same size).
func (ts *treeState) copyFrom(o *treeState) {
	ts.tree.copyFrom(&o.tree)
	ts.tab = o.tab
	copy(ts.up, o.up)
	copy(ts.down, o.down)
}

// build reads the tree tab to destination switch t, whose every route
// stands for w destination endpoints.
func (ts *treeState) build(g *graph, tab []uint8, t int, w int64) {
	ts.tab = tab
	readTable(g, tab, ts.par)
	if len(ts.w) != len(ts.par) { // (a kept copy never builds)
		ts.w = make([]int64, len(ts.par))
	}
	for s := range ts.w {
		ts.w[s] = int64(g.hosts[s]) * w
	}
	ts.derive(t, ts.w)
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
	for i := len(ts.order) - 1; i >= 0; i-- { // farthest first: children before parents
		ts.settle(b, ts.order[i])
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

// move gives switch v next hop j and brings the state up to date: the
// tree (relink), and up and down settled again behind v and along both
// routes.
func (ts *treeState) move(b *balancer, v, j int) {
	g := b.g
	old := ts.par[v]
	ts.tab[v] = uint8(j)
	p := g.peer[g.chOff[v]+j]
	ts.relink(int32(v), p)
	ts.stack = ts.subtree(int32(v), ts.stack[:0])
	for i := len(ts.stack) - 1; i >= 0; i-- { // children before parents
		ts.settle(b, ts.stack[i])
	}
	ts.stack = ts.stack[:0]
	for _, x := range [2]int32{old, p} {
		for ; int(x) != ts.t; x = ts.par[x] {
			ts.settle(b, x)
		}
		ts.settle(b, x)
	}
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
