package verify

import "sort"

// digraph is a directed graph over nodes 0..n−1 given as sorted edge lists.
type digraph struct {
	n   int
	off []int   // edges of u are to[off[u]:off[u+1]]
	to  []int32 // edge heads
}

// newDigraph builds a digraph from edges (u, v), dropping duplicates.
func newDigraph(n int, edges [][2]int32) *digraph {
	sort.Slice(edges, func(i, j int) bool {
		if edges[i][0] != edges[j][0] {
			return edges[i][0] < edges[j][0]
		}
		return edges[i][1] < edges[j][1]
	})
	g := &digraph{n: n, off: make([]int, n+1)}
	for i, e := range edges {
		if i > 0 && e == edges[i-1] {
			continue
		}
		g.to = append(g.to, e[1])
		g.off[e[0]+1]++
	}
	for u := 0; u < n; u++ {
		g.off[u+1] += g.off[u]
	}
	return g
}

// findCycle returns the nodes of one directed cycle (first node not
// repeated), or nil when the graph is acyclic. Iterative DFS with colours.
func (g *digraph) findCycle() []int32 {
	const white, gray, black = 0, 1, 2
	color := make([]uint8, g.n)
	next := make([]int, g.n) // next edge to explore per node
	var stack []int32
	for root := 0; root < g.n; root++ {
		if color[root] != white {
			continue
		}
		stack = append(stack[:0], int32(root))
		color[root] = gray
		next[root] = g.off[root]
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			if next[u] == g.off[u+1] {
				color[u] = black
				stack = stack[:len(stack)-1]
				continue
			}
			v := g.to[next[u]]
			next[u]++
			switch color[v] {
			case white:
				color[v] = gray
				next[v] = g.off[v]
				stack = append(stack, v)
			case gray:
				for i := len(stack) - 1; i >= 0; i-- {
					if stack[i] == v {
						return append([]int32(nil), stack[i:]...)
					}
				}
			}
		}
	}
	return nil
}
