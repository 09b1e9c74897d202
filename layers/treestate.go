package layers

// treeState is one destination tree of a finished layer seen from its
// switches: route lengths, the switches behind each and the routes they
// bring, and (measure) what balance needs to judge a move in O(1).
type treeState struct {
	tab    []uint8
	t      int
	hops   []int32 // route length per switch
	sub    []int64 // routes through each switch: hosts behind it (itself included) × the tree's weight
	kidOff []int32 // switches whose next hop is s: kids[kidOff[s]:kidOff[s+1]]
	kids   []int32
	fill   []int32
	byHops []int32 // switches, farthest first
	stack  []int32
	// set by measure
	pre, post []int32 // DFS numbering: y is behind v iff pre[v] ≤ pre[y] < post[v]
	up, down  []int32 // the most each switch's route may lengthen, and shorten (negative), for every route behind it
}

func newTreeState(S int) treeState {
	return treeState{hops: make([]int32, S), sub: make([]int64, S), kidOff: make([]int32, S+1),
		kids: make([]int32, S), fill: make([]int32, S), byHops: make([]int32, S),
		pre: make([]int32, S), post: make([]int32, S),
		up: make([]int32, S), down: make([]int32, S)}
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

// children fills kidOff and kids.
func (ts *treeState) children(g *graph) {
	S := len(ts.hops)
	clear(ts.kidOff)
	for s := 0; s < S; s++ {
		if s != ts.t {
			ts.kidOff[ts.parent(g, int32(s))+1]++
		}
	}
	for s := 0; s < S; s++ {
		ts.kidOff[s+1] += ts.kidOff[s]
	}
	copy(ts.fill, ts.kidOff[:S])
	for s := 0; s < S; s++ {
		if s != ts.t {
			p := ts.parent(g, int32(s))
			ts.kids[ts.fill[p]] = int32(s)
			ts.fill[p]++
		}
	}
}

// sortByHops orders the switches by route length, longest first (a
// breadth-first walk of the tree from t, reversed).
func (ts *treeState) sortByHops() {
	ts.byHops = append(ts.byHops[:0], int32(ts.t))
	for i := 0; i < len(ts.byHops); i++ {
		x := ts.byHops[i]
		ts.byHops = append(ts.byHops, ts.kids[ts.kidOff[x]:ts.kidOff[x+1]]...)
	}
	for i, j := 0, len(ts.byHops)-1; i < j; i, j = i+1, j-1 {
		ts.byHops[i], ts.byHops[j] = ts.byHops[j], ts.byHops[i]
	}
}

// addLoads adds every channel's routes in the tree to load.
func (ts *treeState) addLoads(g *graph, load []int64) {
	for s := range ts.hops {
		if s != ts.t {
			load[g.chOff[s]+int(ts.tab[s])] += ts.sub[s]
		}
	}
}

// measure fills pre/post and up/down for balancer b.
func (ts *treeState) measure(b *balancer) {
	g := b.g
	ts.number()
	for _, s := range ts.byHops {
		dist := int32(b.dist[s])
		lo, hi := b.r.Bounds.of(int(dist))
		h := ts.hops[s]
		ts.up[s], ts.down[s] = max(int32(hi), dist)-h, -h
		if g.hosts[s] > 0 && int(h) >= lo && int(h) <= hi {
			ts.up[s] = min(ts.up[s], int32(hi)-h)
			ts.down[s] = int32(lo) - h
		}
	}
	for _, s := range ts.byHops { // farthest first: children before parents
		if int(s) != ts.t {
			p := ts.parent(g, s)
			ts.up[p] = min(ts.up[p], ts.up[s])
			ts.down[p] = max(ts.down[p], ts.down[s])
		}
	}
}

// number gives the switches DFS numbers from t.
func (ts *treeState) number() {
	n := int32(0)
	ts.stack = append(ts.stack[:0], int32(ts.t))
	for len(ts.stack) > 0 {
		x := ts.stack[len(ts.stack)-1]
		if x < 0 { // leaving ^x
			ts.stack = ts.stack[:len(ts.stack)-1]
			ts.post[^x] = n
			continue
		}
		ts.stack[len(ts.stack)-1] = ^x
		ts.pre[x] = n
		n++
		ts.stack = append(ts.stack, ts.kids[ts.kidOff[x]:ts.kidOff[x+1]]...)
	}
}

// inSubtree reports whether y's route passes v (or y is v).
func (ts *treeState) inSubtree(y, v int) bool {
	return ts.pre[v] <= ts.pre[y] && ts.pre[y] < ts.post[v]
}

// subtree appends v and the switches whose routes pass it to out.
func (ts *treeState) subtree(v int32, out []int32) []int32 {
	out = append(out, v)
	for i := len(out) - 1; i < len(out); i++ {
		x := out[i]
		out = append(out, ts.kids[ts.kidOff[x]:ts.kidOff[x+1]]...)
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
