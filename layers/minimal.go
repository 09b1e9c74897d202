package layers

// routeMinimal fills layer 0: for each destination in order, every switch
// takes a minimal path, choosing among its minimal next hops the one whose
// path carries the least load so far (a Dijkstra on (hops, load) done as a
// BFS, since hops dominate). Then every channel of the resulting in-tree is
// charged with the number of source endpoints routed over it. Switch
// destinations are routed the same way but add no load: they carry only
// management traffic.
func routeMinimal(g *graph, next []uint8, load []int64) LayerStats {
	S := len(g.adj)
	dist := make([]int32, S)
	order := make([]int32, 0, S)
	cost := make([]int64, S)
	sub := make([]int64, S)
	st := LayerStats{Layer: 0}
	for d, dest := range g.dests {
		t := dest.Switch
		tab := next[d*S : (d+1)*S]
		if d == 0 || g.dests[d-1].Switch != t { // a switch's endpoints are adjacent
			order = g.bfs(t, dist, order)
		}
		tab[t] = hopLocal
		cost[t] = 0
		for _, v := range order[1:] {
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
			continue
		}
		for _, v := range order {
			sub[v] = int64(g.hosts[v])
		}
		for i := len(order) - 1; i > 0; i-- {
			v := order[i]
			c := g.adj[v][tab[v]]
			load[g.chOff[v]+int(tab[v])] += sub[v]
			sub[c.Peer] += sub[v]
			if g.hosts[v] > 0 {
				st.Pairs++
				st.InBounds++
				for len(st.Lengths) <= int(dist[v]) {
					st.Lengths = append(st.Lengths, 0)
				}
				st.Lengths[dist[v]]++
			}
		}
	}
	return st
}
