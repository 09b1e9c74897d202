package layers

// routeMinimal fills layer 0: for each destination in order, every switch
// takes a minimal path, choosing among its minimal next hops the one whose
// path carries the least load so far (a Dijkstra on (hops, load) done as a
// BFS, since hops dominate). Then every channel of the resulting in-tree is
// charged with the number of source endpoints routed over it. Switch
// destinations are routed the same way but add no load: they carry only
// management traffic. Destinations go in fixed batches, as in the layers
// above (see batch): each sees the loads of the batch start plus its own.
func routeMinimal(g *graph, next []uint8, load []int64) LayerStats {
	var ws [batch]*minimal
	var ls [batch]*loads
	for w := range ws {
		ws[w] = newMinimal(g, next, load)
		ls[w] = &ws[w].loads
	}
	var todo []int
	for d := range g.dests {
		if g.searched(d) {
			todo = append(todo, d)
		}
	}
	inBatches(len(todo), g.parallel, ls, func(w, i int) { ws[w].route(todo[i]) })
	copy(load, ws[0].load)
	st := LayerStats{Layer: 0}
	for _, w := range ws {
		st.merge(w.st)
	}
	return st
}

// minimal is one worker of routeMinimal.
type minimal struct {
	loads // this worker's copy
	g     *graph
	next  []uint8
	st    LayerStats
	t     int // the destination switch dist and order are for, -1 for none
	dist  []int32
	order []int32
	cost  []int64
	sub   []int64
}

func newMinimal(g *graph, next []uint8, load []int64) *minimal {
	S := len(g.adj)
	return &minimal{loads: newLoads(load), g: g, next: next, t: -1,
		dist: make([]int32, S), order: make([]int32, 0, S), cost: make([]int64, S), sub: make([]int64, S)}
}

// route routes destination d.
func (m *minimal) route(d int) {
	g := m.g
	S := len(g.adj)
	t := g.dests[d].Switch
	tab := m.next[d*S : (d+1)*S]
	if m.t != t {
		m.order = g.bfs(t, m.dist, m.order)
		m.t = t
	}
	dist, cost, load := m.dist, m.cost, m.load
	tab[t] = hopLocal
	cost[t] = 0
	for _, v := range m.order[1:] {
		best, bestCost := -1, int64(0)
		off := g.chOff[v]
		for i, y := range g.peer[off:g.chOff[v+1]] {
			if dist[y] != dist[v]-1 {
				continue
			}
			if k := cost[y] + load[off+i]; best < 0 || k < bestCost {
				best, bestCost = i, k
			}
		}
		tab[v] = uint8(best)
		cost[v] = bestCost
	}
	if d >= g.nEP {
		return
	}
	for _, v := range m.order {
		m.sub[v] = int64(g.hosts[v])
	}
	for i := len(m.order) - 1; i > 0; i-- {
		v := m.order[i]
		ch := g.chOff[v] + int(tab[v])
		m.add(g, ch, m.sub[v])
		m.sub[g.peer[ch]] += m.sub[v]
		if g.hosts[v] > 0 {
			m.st.Pairs++
			m.st.InBounds++
			for len(m.st.Lengths) <= int(dist[v]) {
				m.st.Lengths = append(m.st.Lengths, 0)
			}
			m.st.Lengths[dist[v]]++
		}
	}
}
