package slimfly

import "slimroute/internal/embed"

// Finding the design in a Slim Fly with cables or routers missing
// (package internal/embed does the search). The first vertex maps onto
// router (0, 0, 0) or else (1, 0, 0): the shears are transitive on each
// side (DesignShears), and for q = 7, 8, 11 and 16 no automorphism takes
// a side onto the other (a first vertex on the wrong side found no map).

// EmbedBudget is a budget of assignments for Embed (about a microsecond
// each). Twenty draws each of q = 7 … 17 with one edge to 5 % of them
// removed took at most 3 ms (q = 7), 16 ms (q = 11), 34 ms (q = 13) and
// 320 ms (q = 16).
const EmbedBudget = 2_000_000

// EmbedMissing is the most routers a graph Embed maps may lack.
const EmbedMissing = 2

// Embed returns, when the undirected simple graph adj (vertices 0..n−1,
// neighbour lists without repeats) is a Slim Fly's design graph with some
// edges left out, and up to EmbedMissing of its routers (n = 2q² − m), a
// map into the design: out[v] is the Index (Design.Index) of the router
// vertex v plays, every edge of adj maps onto an edge of the design, the
// design's edges between images that adj lacks are its missing cables,
// and the routers no vertex plays its missing routers. It returns nil
// when there is no such map, when adj lacks nothing (use Match), or when
// finding one takes more than budget assignments. Which map it returns
// depends on adj's numbering only.
func Embed(adj [][]int32, budget int) []int32 {
	var d *Design
	for m := 0; m <= EmbedMissing && d == nil; m++ {
		d = designOf(len(adj) + m)
	}
	if d == nil {
		return nil
	}
	return embed.Into(adj, d.Graph(), []int32{0, int32(d.Q * d.Q)}, budget)
}
