package deadlock

import "sort"

// dag is a channel dependency graph kept acyclic as dependencies are added
// (the way LASH, Skeie et al. 2002, fills its layers). It maintains a
// topological order (Pearce and Kelly, "A dynamic topological sort
// algorithm for directed acyclic graphs", JEA 2006): an edge that agrees
// with the order is accepted at once; otherwise only the nodes between its
// ends in the order are searched, and reordered if no cycle closes.
type dag struct {
	succ, pred [][]int32
	uses       map[uint64]int32 // per edge a<<32|b: the routes whose dependency it is
	ord        []int32          // position of each node in the topological order
	mark       []uint32
	epoch      uint32
	stack      []int32
	fwd, back  []int32
	added      [][2]int32 // edges of the route being added, for rollback
}

func newDAG(n int) *dag {
	g := &dag{succ: make([][]int32, n), pred: make([][]int32, n), uses: map[uint64]int32{}, ord: make([]int32, n), mark: make([]uint32, n)}
	for i := range g.ord {
		g.ord[i] = int32(i)
	}
	return g
}

// addEdge adds a → b unless it closes a cycle.
func (g *dag) addEdge(a, b int32) bool {
	if a == b {
		return false
	}
	if lb, ub := g.ord[b], g.ord[a]; lb < ub {
		// b precedes a: search forward from b within ord < ub (reaching a
		// closes a cycle), and backward from a within ord > lb
		g.epoch++
		var cycle bool
		g.fwd, cycle = g.search(g.fwd[:0], b, g.succ, a, func(o int32) bool { return o < ub })
		if cycle {
			return false
		}
		g.back, _ = g.search(g.back[:0], a, g.pred, -1, func(o int32) bool { return o > lb })
		// the backward set goes first, then the forward set, into the
		// positions both occupied
		byOrd := func(s []int32) {
			sort.Slice(s, func(i, j int) bool { return g.ord[s[i]] < g.ord[s[j]] })
		}
		byOrd(g.back)
		byOrd(g.fwd)
		nodes := append(append([]int32(nil), g.back...), g.fwd...)
		pos := make([]int32, len(nodes))
		for i, x := range nodes {
			pos[i] = g.ord[x]
		}
		sort.Slice(pos, func(i, j int) bool { return pos[i] < pos[j] })
		for i, x := range nodes {
			g.ord[x] = pos[i]
		}
	}
	g.succ[a] = append(g.succ[a], b)
	g.pred[b] = append(g.pred[b], a)
	return true
}

// search collects into out the nodes reachable from start over adj whose
// position in the order passes within, marking them with the current
// epoch; it stops early, reporting true, when it meets stop.
func (g *dag) search(out []int32, start int32, adj [][]int32, stop int32, within func(int32) bool) ([]int32, bool) {
	g.stack = append(g.stack[:0], start)
	g.mark[start] = g.epoch
	for len(g.stack) > 0 {
		x := g.stack[len(g.stack)-1]
		g.stack = g.stack[:len(g.stack)-1]
		out = append(out, x)
		for _, y := range adj[x] {
			if y == stop {
				return out, true
			}
			if g.mark[y] != g.epoch && within(g.ord[y]) {
				g.mark[y] = g.epoch
				g.stack = append(g.stack, y)
			}
		}
	}
	return out, false
}

// tryAdd adds the dependencies of a route through the channels in order,
// unless one of them would close a cycle; then it adds none. Removing
// edges keeps the topological order valid.
func (g *dag) tryAdd(chans []int32) bool {
	if g.addNew(chans) {
		for j := 0; j+1 < len(chans); j++ {
			g.uses[edgeKey(chans[j], chans[j+1])]++
		}
		return true
	}
	return false
}

// addNew adds the route's dependencies the graph lacks, or none if one
// would close a cycle (then g.added ends with the edge that failed).
func (g *dag) addNew(chans []int32) bool {
	g.added = g.added[:0]
	for j := 0; j+1 < len(chans); j++ {
		a, b := chans[j], chans[j+1]
		if _, ok := g.uses[edgeKey(a, b)]; ok {
			continue
		}
		if !g.addEdge(a, b) {
			g.takeBack(g.added)
			g.added = append(g.added[:0], [2]int32{a, b})
			return false
		}
		g.uses[edgeKey(a, b)] = 0
		g.added = append(g.added, [2]int32{a, b})
	}
	return true
}

// takeBack removes edges just added by addEdge, the last first: each is
// then the last of its tail's successors and of its head's predecessors.
func (g *dag) takeBack(edges [][2]int32) {
	for i := len(edges) - 1; i >= 0; i-- {
		e := edges[i]
		g.succ[e[0]] = g.succ[e[0]][:len(g.succ[e[0]])-1]
		g.pred[e[1]] = g.pred[e[1]][:len(g.pred[e[1]])-1]
		delete(g.uses, edgeKey(e[0], e[1]))
	}
}

// remove takes a route added by tryAdd out: its dependencies no other
// route has leave the graph.
func (g *dag) remove(chans []int32) {
	for j := 0; j+1 < len(chans); j++ {
		a, b := chans[j], chans[j+1]
		k := edgeKey(a, b)
		if g.uses[k]--; g.uses[k] > 0 {
			continue
		}
		delete(g.uses, k)
		g.succ[a] = deleteOne(g.succ[a], b)
		g.pred[b] = deleteOne(g.pred[b], a)
	}
}

func deleteOne(s []int32, x int32) []int32 {
	for i, y := range s {
		if y == x {
			return append(s[:i], s[i+1:]...)
		}
	}
	return s
}

func edgeKey(a, b int32) uint64 { return uint64(a)<<32 | uint64(uint32(b)) }

// blockers returns the dependencies that keep the route through chans out
// of the graph: those other routes have on a path closing a cycle with the
// first of its dependencies that fails (nil if it fits).
func (g *dag) blockers(chans []int32) [][2]int32 {
	// add the route's dependencies up to the failing one, find a path
	// from its head back to its tail, and take them out again
	var own [][2]int32
	var path [][2]int32
	for j := 0; j+1 < len(chans); j++ {
		a, b := chans[j], chans[j+1]
		if _, ok := g.uses[edgeKey(a, b)]; ok {
			continue
		}
		if g.addEdge(a, b) {
			g.uses[edgeKey(a, b)] = 0
			own = append(own, [2]int32{a, b})
			continue
		}
		path = g.pathBetween(b, a)
		break
	}
	g.takeBack(own)
	var out [][2]int32
	for _, e := range path {
		if g.uses[edgeKey(e[0], e[1])] > 0 { // not the route's own
			out = append(out, e)
		}
	}
	return out
}

// pathBetween returns the edges of a path from x to y (one exists).
func (g *dag) pathBetween(x, y int32) [][2]int32 {
	g.epoch++
	parent := map[int32]int32{x: -1}
	g.stack = append(g.stack[:0], x)
	g.mark[x] = g.epoch
	for len(g.stack) > 0 && g.mark[y] != g.epoch {
		u := g.stack[len(g.stack)-1]
		g.stack = g.stack[:len(g.stack)-1]
		for _, v := range g.succ[u] {
			if g.mark[v] != g.epoch && g.ord[v] <= g.ord[y] {
				g.mark[v] = g.epoch
				parent[v] = u
				g.stack = append(g.stack, v)
			}
		}
	}
	var out [][2]int32
	for v := y; v != x; v = parent[v] {
		out = append(out, [2]int32{parent[v], v})
	}
	return out
}
