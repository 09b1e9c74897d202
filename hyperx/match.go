package hyperx

import (
	"cmp"
	"slices"
)

// Recognising a HyperX from its switch graph alone (names, GUIDs and the
// order of the input say nothing), and the translations that map it onto
// itself.
//
// In a Hamming graph two neighbours of a switch are joined exactly when
// they differ from it in the same coordinate, so the neighbours of any
// switch fall into cliques, one per dimension: with the switch, the line
// of the grid through it along that dimension. Number the switches of
// each line through switch 0 from 0 (switch 0) up; the coordinate of any
// switch x along a dimension is then the number of the switch of that
// line nearest to x (the one that agrees with x there: every other one is
// a hop further). The grid's translations, x → x + t coordinate by
// coordinate modulo the sizes, map the graph onto itself, and none but
// the identity fixes a switch.

// Match returns, when the undirected simple graph adj (vertices 0..n−1,
// each neighbour list without repeats) is a Hamming graph with at least
// two dimensions or one of at least 3 switches, its sizes — largest first
// — and an isomorphism onto the grid of those sizes: out[v] is the Index
// (Shape.IndexOf, the first dimension fastest) of the switch v plays.
// It returns nil, nil otherwise, and for a graph with loops or parallel
// edges. Two isomorphisms differ by an automorphism of the grid; which
// one is returned depends on adj's numbering. Cost: O(Σ sizes × (n +
// E)), a breadth-first search from every switch of the lines through
// switch 0.
func Match(adj [][]int32) (dims []int, out []int32) {
	n := len(adj)
	if n < 3 || !simple(adj) {
		return nil, nil
	}
	lines := linesThrough(adj, 0)
	if lines == nil {
		return nil, nil
	}
	prod, deg := 1, 0
	for _, l := range lines {
		prod *= len(l)
		deg += len(l) - 1
		if prod > n {
			return nil, nil
		}
	}
	if prod != n {
		return nil, nil
	}
	for _, nb := range adj {
		if len(nb) != deg {
			return nil, nil
		}
	}
	coord := make([][]int, n) // per vertex, per dimension
	for v := range coord {
		coord[v] = make([]int, len(lines))
	}
	dist, queue := make([]int32, n), make([]int32, 0, n)
	for i, l := range lines {
		best := make([]int32, n) // per vertex: distance to the nearest switch of l so far
		for j, y := range l {
			bfs(adj, y, dist, queue)
			for v, h := range dist {
				if h < 0 {
					return nil, nil // disconnected
				}
				if j == 0 || h < best[v] {
					best[v], coord[v][i] = h, j
				}
			}
		}
	}
	shape := Shape{Dims: make([]int, len(lines))}
	for i, l := range lines {
		shape.Dims[i] = len(l)
	}
	out = make([]int32, n)
	seen := make([]bool, n)
	for v := range adj {
		x := shape.IndexOf(coord[v])
		if seen[x] {
			return nil, nil
		}
		seen[x], out[v] = true, int32(x)
		for _, u := range adj[v] {
			if differing(coord[v], coord[u]) != 1 {
				return nil, nil
			}
		}
	}
	return shape.Dims, out
}

// linesThrough returns the lines through v, largest first (ties in the
// order of their least neighbour): each v, then its neighbours joined to
// one another, by vertex number. nil when v's neighbours do not fall into
// disjoint cliques with no edge between two of them. adj is simple (see
// Match).
func linesThrough(adj [][]int32, v int32) [][]int32 {
	nb := adj[v]
	in := make(map[int32]int, len(nb)) // neighbour -> its clique, -1 none yet
	for _, u := range nb {
		in[u] = -1
	}
	var cliques [][]int32
	for _, u := range slices.Sorted(slices.Values(nb)) {
		if in[u] >= 0 {
			continue
		}
		c := []int32{u}
		for _, w := range adj[u] {
			if k, ok := in[w]; ok {
				if k >= 0 {
					return nil // joined to another clique
				}
				c = append(c, w)
			}
		}
		slices.Sort(c)
		for _, w := range c {
			if in[w] >= 0 {
				return nil
			}
			in[w] = len(cliques)
		}
		cliques = append(cliques, c)
	}
	for _, c := range cliques { // each a clique: every member joined to the others
		for _, w := range c {
			joined := 0
			for _, x := range adj[w] {
				if k, ok := in[x]; ok && k == in[w] {
					joined++
				}
			}
			if joined != len(c)-1 {
				return nil
			}
		}
	}
	lines := make([][]int32, len(cliques))
	for i, c := range cliques {
		lines[i] = append([]int32{v}, c...)
	}
	slices.SortStableFunc(lines, func(a, b []int32) int { return cmp.Compare(len(b), len(a)) })
	return lines
}

// simple reports whether adj has no loop and no repeated neighbour (no
// parallel cables): the checks below count edges by their ends.
func simple(adj [][]int32) bool {
	seen := make([]int32, len(adj)) // per vertex: 1 + the vertex whose list named it last
	for v, nb := range adj {
		for _, u := range nb {
			if u < 0 || int(u) >= len(adj) || int(u) == v || seen[u] == int32(v)+1 {
				return false
			}
			seen[u] = int32(v) + 1
		}
	}
	return true
}

// bfs fills dist with the hops from src (-1: unreachable).
func bfs(adj [][]int32, src int32, dist, queue []int32) {
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue = append(queue[:0], src)
	for i := 0; i < len(queue); i++ {
		x := queue[i]
		for _, y := range adj[x] {
			if dist[y] < 0 {
				dist[y] = dist[x] + 1
				queue = append(queue, y)
			}
		}
	}
}

func differing(a, b []int) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// DesignTranslations returns translations of the grid of sizes dims as
// permutations of its switches' Index: out[i][x] is the Index of the
// image of switch x, out[0] the identity. They are the translations along
// the first dimensions (largest first) whole, as many as keep the group
// at most limit elements (at least the first dimension's): a subgroup
// that, like the whole, fixes no switch.
func DesignTranslations(dims []int, limit int) [][]int32 {
	shape := Shape{Dims: dims}
	n := 1
	for _, d := range dims {
		n *= d
	}
	used, size := 0, 1
	for used < len(dims) && (used == 0 || size*dims[used] <= limit) {
		size *= dims[used]
		used++
	}
	out := make([][]int32, size)
	for e := range out {
		t := shape.CoordOf(e) // the translation: its first used coordinates
		out[e] = make([]int32, n)
		for x := range out[e] {
			c := shape.CoordOf(x)
			for i := 0; i < used; i++ {
				c[i] = (c[i] + t[i]) % dims[i]
			}
			out[e][x] = int32(shape.IndexOf(c))
		}
	}
	return out
}
