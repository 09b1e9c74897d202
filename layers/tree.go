package layers

// tree is one layer's routes toward a destination switch t, switch by
// switch: its next switch, its route's length and last switch before t,
// the routes that pass it, and the switches whose next switch it is. It
// is the one tree model of the passes that move next switches one at a
// time: balance and mending (treeState, which adds what they judge a move
// by) and regrowing, unloading and unlapping (growTree: one tree per
// layer, with the disjoint paths they score). relink keeps it current
// through a move, in the time of the switches behind the moved one and
// of the two routes.
type tree struct {
	t    int
	par  []int32 // next switch; -1 at t
	hops []int32 // route length, 0 at t
	ent  []int32 // last switch before t on the route: the switch itself when it delivers, t at t
	sub  []int64 // what the switch and the switches behind it send (at t: everything)
	// the switches whose next switch is s: first[s], then next[...] in
	// switch order, -1 ending the list
	first, next []int32
	order       []int32 // every switch, nearest to t first, as derive left them
}

func newTree(S int) tree {
	return tree{par: make([]int32, S), hops: make([]int32, S), ent: make([]int32, S), sub: make([]int64, S),
		first: make([]int32, S), next: make([]int32, S), order: make([]int32, 0, S)}
}

// copyFrom makes tr a copy of o (same size).
func (tr *tree) copyFrom(o *tree) {
	tr.t = o.t
	copy(tr.par, o.par)
	copy(tr.hops, o.hops)
	copy(tr.ent, o.ent)
	copy(tr.sub, o.sub)
	copy(tr.first, o.first)
	copy(tr.next, o.next)
	tr.order = append(tr.order[:0], o.order...)
}

// readTable sets par to the next switch of every switch in tab (-1 where
// the destination hangs off it).
func readTable(g *graph, tab []uint8, par []int32) {
	for s, j := range tab {
		par[s] = -1
		if j != hopLocal {
			par[s] = g.peer[g.chOff[s]+int(j)]
		}
	}
}

// derive computes, from the next switches to t (every route reaching t),
// the children lists, route lengths, last switches and the routes through
// each switch, where switch s sends w[s]. Cost: O(S).
func (tr *tree) derive(t int, w []int64) {
	tr.t = t
	for s := range tr.first {
		tr.first[s] = -1
	}
	for s := len(tr.first) - 1; s >= 0; s-- { // each at the head of its parent's list: in switch order
		if p := tr.par[s]; s != t && p >= 0 {
			tr.next[s] = tr.first[p]
			tr.first[p] = int32(s)
		}
	}
	tr.hops[t], tr.ent[t] = 0, int32(t)
	tr.order = tr.subtree(int32(t), tr.order[:0])
	for _, s := range tr.order[1:] {
		p := tr.par[s]
		tr.hops[s], tr.ent[s] = tr.hops[p]+1, tr.ent[p]
		if int(p) == t {
			tr.ent[s] = s
		}
	}
	for i := len(tr.order) - 1; i >= 0; i-- { // children before parents
		s := tr.order[i]
		tr.sub[s] = w[s]
		for y := tr.first[s]; y >= 0; y = tr.next[y] {
			tr.sub[s] += tr.sub[y]
		}
	}
}

// relink makes u the next switch of v (not t) and brings the tree up to
// date: the routes through the switches of v's old and new routes (t's
// count stays), the children lists, and the lengths and last switches of
// v and the switches behind it.
func (tr *tree) relink(v, u int32) {
	old, m := tr.par[v], tr.sub[v]
	for x := old; int(x) != tr.t; x = tr.par[x] {
		tr.sub[x] -= m
	}
	tr.unlink(old, v)
	tr.par[v] = u
	tr.link(u, v)
	for x := u; int(x) != tr.t; x = tr.par[x] {
		tr.sub[x] += m
	}
	delta := tr.hops[u] + 1 - tr.hops[v]
	ent := tr.ent[u]
	if int(u) == tr.t {
		ent = v
	}
	tr.place(v, delta, ent)
}

// place adds delta to the lengths of v and the switches behind it, and
// gives them last switch ent.
func (tr *tree) place(v, delta, ent int32) {
	tr.hops[v] += delta
	tr.ent[v] = ent
	for y := tr.first[v]; y >= 0; y = tr.next[y] {
		tr.place(y, delta, ent)
	}
}

// unlink takes v off p's list of children.
func (tr *tree) unlink(p, v int32) {
	if tr.first[p] == v {
		tr.first[p] = tr.next[v]
		return
	}
	y := tr.first[p]
	for tr.next[y] != v {
		y = tr.next[y]
	}
	tr.next[y] = tr.next[v]
}

// link puts v on p's list of children, in switch order.
func (tr *tree) link(p, v int32) {
	if y := tr.first[p]; y < 0 || y > v {
		tr.next[v], tr.first[p] = y, v
		return
	}
	y := tr.first[p]
	for tr.next[y] >= 0 && tr.next[y] < v {
		y = tr.next[y]
	}
	tr.next[v], tr.next[y] = tr.next[y], v
}

// subtree appends v and the switches whose routes pass it to out, nearest
// first (breadth first, children in switch order).
func (tr *tree) subtree(v int32, out []int32) []int32 {
	out = append(out, v)
	for i := len(out) - 1; i < len(out); i++ {
		for y := tr.first[out[i]]; y >= 0; y = tr.next[y] {
			out = append(out, y)
		}
	}
	return out
}

// height is how far behind v its subtree reaches (0: v alone).
func (tr *tree) height(v int32) int32 {
	h := int32(0)
	for y := tr.first[v]; y >= 0; y = tr.next[y] {
		h = max(h, 1+tr.height(y))
	}
	return h
}

// inSubtree reports whether y's route passes v (or y is v).
func (tr *tree) inSubtree(y, v int) bool {
	for tr.hops[y] > tr.hops[v] {
		y = int(tr.par[y])
	}
	return y == v
}
