package hyperx

import "slimroute/internal/embed"

// Embed returns, when the undirected simple graph adj is the switch graph
// of a HyperX of two dimensions with some cables left out, its sizes
// (largest first, as Match gives them) and a map into that grid: out[v]
// is the Index (Shape.IndexOf) of the switch v plays, every edge of adj
// on a line of the grid. The sizes a × b = n are those whose degree
// (a − 1) + (b − 1) is the highest degree in adj (a switch with all its
// cables). It returns nil, nil when there are none, when adj lacks no
// cable (use Match), or when the search (package internal/embed; the
// grid is vertex-transitive, so the first switch maps onto switch 0)
// takes more than budget assignments.
func Embed(adj [][]int32, budget int) (dims []int, out []int32) {
	n, deg := len(adj), 0
	for _, nb := range adj {
		deg = max(deg, len(nb))
	}
	for b := 2; b*b <= n; b++ {
		if a := n / b; a*b == n && a+b-2 == deg {
			dims = []int{a, b}
			if out = embed.Into(adj, Grid(dims), []int32{0}, budget); out != nil {
				return dims, out
			}
		}
	}
	return nil, nil
}

// Grid returns the Hamming graph of sizes dims, vertices in Index order.
func Grid(dims []int) [][]int32 {
	shape := Shape{Dims: dims}
	n := 1
	for _, d := range dims {
		n *= d
	}
	adj := make([][]int32, n)
	for x := range adj {
		c := shape.CoordOf(x)
		for i, d := range dims {
			own := c[i]
			for v := range d {
				if v != own {
					c[i] = v
					adj[x] = append(adj[x], int32(shape.IndexOf(c)))
				}
			}
			c[i] = own
		}
	}
	return adj
}
