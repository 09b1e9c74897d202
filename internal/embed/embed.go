// Package embed maps a graph into a larger one that should hold it: the
// switch graph of a fabric with cables or switches missing into its
// design's (a Slim Fly's, a HyperX's), so that the routing can be made for
// the design, under its symmetry, and carried to the fabric by a repair.
//
// The search maps one vertex at a time, the one with the most neighbours
// mapped first (ties: the lowest index), onto a design vertex adjacent to
// the images of all of them. A design edge between two mapped vertices
// that the graph lacks is a missing cable; the design has
// |E_design| − |E_graph| of them, so a partial map with more is wrong and
// the search backtracks; so does one with more such edges at a vertex
// than the vertex has cables fewer than the design. The first vertex, the
// first of the highest degree, maps onto one of the design vertices the
// caller names (one per orbit of the design's automorphisms), a restart
// at a time. Each assignment costs O(n) (choosing the next vertex) plus
// O(k) (its candidates and missing edges), so a search that does not
// backtrack costs O(n²).
package embed

// Into returns a map of the undirected simple graph g (vertices 0..n−1,
// neighbour lists without repeats) into the design graph d (N ≥ n
// vertices, every vertex of degree k): out[v] is the design vertex v
// plays, one-to-one, every edge of g onto an edge of d. The first vertex
// of the search maps onto first[i] on the i-th try (cyclically): one
// design vertex of each orbit of d's automorphisms is enough. It returns
// nil when there is none, when g lacks nothing of d, or when finding one
// takes more than budget assignments. Restarts with growing budgets try
// the candidates in other orders: a wrong early choice can take long to
// refute, and another order seldom makes the same one (the search's cost
// is heavy-tailed). Which map it returns depends on g's numbering only.
func Into(g, d [][]int32, first []int32, budget int) []int32 {
	e := newEmbedder(g, d)
	if e == nil || len(first) == 0 {
		return nil
	}
	e.first = first
	b := firstBudget
	for r := 0; budget > 0; r++ {
		e.reset(r, min(b, budget))
		if e.search(0) {
			return e.phi
		}
		budget -= min(b, budget)
		if (r+1)%len(first) == 0 {
			b *= 2 // each first image tried, all again with twice the budget
		}
	}
	return nil
}

// mix is splitmix64's finaliser: the restarts' orders.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// firstBudget is the assignments of the first try.
const firstBudget = 1024

// embedder holds the search's state.
type embedder struct {
	g, d     [][]int32 // the graph and the design
	gBits    []uint64  // the graph's adjacency, a row of w words per vertex
	dBits    []uint64  // the design's
	n, w     int       // the graph's vertices, the words of a row
	phi, inv []int32   // graph → design, design → graph (−1: unmapped)
	mapped   []int32   // per graph vertex: how many neighbours are mapped
	lacks    []int32   // per graph vertex: design edges at its image to mapped ones it lacks
	missing  int       // design edges between images the graph lacks
	spare    int       // how many the design has in all
	budget   int
	try      int     // the restart: candidates are tried in an order of its own
	first    []int32 // the first vertex's image, one per try in turn
}

func newEmbedder(g, d [][]int32) *embedder {
	n, w := len(g), (len(d)+63)/64
	e := &embedder{g: g, d: d, n: n, w: w,
		gBits: bitMatrix(g, w), dBits: bitMatrix(d, w),
		phi: make([]int32, n), inv: make([]int32, len(d)), mapped: make([]int32, n), lacks: make([]int32, n)}
	eg, ed, k := 0, 0, len(d[0])
	for v := range n {
		if len(g[v]) > k {
			return nil
		}
		eg += len(g[v])
	}
	for _, nb := range d {
		ed += len(nb)
	}
	e.spare = (ed - eg) / 2
	if e.spare <= 0 {
		return nil
	}
	return e
}

// reset empties the map for restart try with budget assignments.
func (e *embedder) reset(try, budget int) {
	for v := range e.n {
		e.phi[v], e.mapped[v], e.lacks[v] = -1, 0, 0
	}
	for c := range e.inv {
		e.inv[c] = -1
	}
	e.missing, e.try, e.budget = 0, try, budget
}

func bitMatrix(adj [][]int32, w int) []uint64 {
	bits := make([]uint64, len(adj)*w)
	for v, nb := range adj {
		for _, x := range nb {
			bits[v*w+int(x)/64] |= 1 << (x % 64)
		}
	}
	return bits
}

func (e *embedder) has(bits []uint64, a, b int32) bool {
	return bits[int(a)*e.w+int(b)/64]&(1<<(b%64)) != 0
}

// search maps the remaining vertices, depth of them mapped so far.
func (e *embedder) search(depth int) bool {
	if depth == e.n {
		return true
	}
	v := e.next(depth)
	if v < 0 {
		return false // a vertex no mapped one reaches: the graph is split
	}
	for _, c := range e.candidates(v, depth) {
		if e.budget <= 0 {
			return false
		}
		e.budget--
		if e.assign(v, c) && e.open(v) && e.search(depth+1) {
			return true
		}
		e.unassign(v, c)
	}
	return false
}

// next returns the unmapped vertex with the most mapped neighbours, the
// lowest index among them; first the lowest of the most neighbours.
func (e *embedder) next(depth int) int32 {
	if depth == 0 {
		first := int32(0)
		for v := range e.g {
			if len(e.g[v]) > len(e.g[first]) {
				first = int32(v)
			}
		}
		return first
	}
	best := int32(-1)
	for v := range e.n {
		if e.phi[v] < 0 && e.mapped[v] > 0 && (best < 0 || e.mapped[v] > e.mapped[best]) {
			best = int32(v)
		}
	}
	return best
}

// candidates lists the unused design vertices adjacent to the images of
// all of v's mapped neighbours, in Index order.
func (e *embedder) candidates(v int32, depth int) []int32 {
	if depth == 0 {
		return []int32{e.first[e.try%len(e.first)]}
	}
	var anchor int32 = -1
	for _, w := range e.g[v] {
		if e.phi[w] >= 0 {
			anchor = e.phi[w]
			break
		}
	}
	var out []int32
	for _, c := range e.d[anchor] {
		if e.inv[c] < 0 && e.fits(v, c) {
			out = append(out, c)
		}
	}
	if n := len(out); n > 1 && e.try >= len(e.first) {
		k := int(mix(uint64(e.try)<<32|uint64(v)) % uint64(n))
		out = append(out[k:], out[:k]...)
	}
	return out
}

// open says whether each unmapped neighbour of v, just mapped, still has
// a design vertex to go to (forward checking: a wrong choice is refuted
// here rather than many levels deeper).
func (e *embedder) open(v int32) bool {
	for _, u := range e.g[v] {
		if e.phi[u] >= 0 {
			continue
		}
		found := false
		for _, c := range e.d[e.phi[v]] {
			if e.inv[c] < 0 && e.fits(u, c) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// fits says whether c is adjacent to the images of all of u's mapped
// neighbours.
func (e *embedder) fits(u, c int32) bool {
	for _, w := range e.g[u] {
		if e.phi[w] >= 0 && !e.has(e.dBits, c, e.phi[w]) {
			return false
		}
	}
	return true
}

// assign maps v onto c and counts the design edges it closes that the
// graph lacks; false (the map kept, for unassign) when they are more than
// the design has missing, or more at a vertex than its degree falls short
// of the design's.
func (e *embedder) assign(v, c int32) bool {
	e.phi[v], e.inv[c] = c, v
	for _, w := range e.g[v] {
		e.mapped[w]++
	}
	ok := true
	for _, x := range e.d[c] {
		if w := e.inv[x]; w >= 0 && !e.has(e.gBits, v, w) {
			e.missing++
			e.lacks[v]++
			e.lacks[w]++
			ok = ok && int(e.lacks[w]) <= len(e.d[x])-len(e.g[w])
		}
	}
	return ok && e.missing <= e.spare && int(e.lacks[v]) <= len(e.d[c])-len(e.g[v])
}

func (e *embedder) unassign(v, c int32) {
	for _, x := range e.d[c] {
		if w := e.inv[x]; w >= 0 && !e.has(e.gBits, v, w) {
			e.missing--
			e.lacks[v]--
			e.lacks[w]--
		}
	}
	for _, w := range e.g[v] {
		e.mapped[w]--
	}
	e.phi[v], e.inv[c] = -1, -1
}
