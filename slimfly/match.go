package slimfly

import (
	"cmp"
	"math"
	"slices"
)

// Recognising a Slim Fly from its switch graph alone (node names, GUIDs
// and the order of the input say nothing), and the translations that map
// it onto itself.
//
// For every b of GF(q) the map τ_b: (0, x, y) → (0, x, y + b),
// (1, m, c) → (1, m, c + b) is an automorphism of the MMS graph: the
// edges inside a column depend on differences of y (or c) only, and
// y = m·x + c holds exactly when y + b = m·x + (c + b). The q maps form a
// group isomorphic to GF(q)'s additive group, and none but τ_0 fixes a
// switch: each switch's orbit has q switches, one per y (or c), and a
// routing built invariant under the group needs its searches for one
// switch per orbit only, 2q of the 2q² (Translations).

// TranslationBudget is a budget of refinements for Translations that
// recognises every Slim Fly of q ≤ 16 tried in the tests, in at most a
// second on q = 16 and milliseconds on q ≤ 13.
const TranslationBudget = 3000

// Translations returns, when the undirected simple graph adj (vertices
// 0..n−1, each neighbour list without repeats) is a Slim Fly's, the q
// translations as permutations of its vertices: out[i][v] is the image of
// v under τ_{b_i}, out[0] the identity. It returns nil when the graph is
// no Slim Fly, or when recognising it takes more than budget refinements
// (it takes a few dozen on q ≤ 19). It is DesignTranslations carried over
// by Match's isomorphism.
func Translations(adj [][]int32, budget int) [][]int32 {
	phi := Match(adj, budget)
	if phi == nil {
		return nil
	}
	return carried(phi, DesignTranslations(QOf(len(adj))))
}

// Match returns, when the undirected simple graph adj is a Slim Fly's,
// an isomorphism onto the design's graph of its q: out[v] is the Index
// (Design.Index) of the router that vertex v plays. It returns nil when
// the graph is no Slim Fly or when recognising it takes more than budget
// refinements. Two isomorphisms differ by an automorphism of the design;
// which one is returned depends on adj's numbering.
//
// It works by individualisation and refinement (colour refinement of the
// disjoint union of the two graphs, one vertex of each individualised at
// a time, backtracking where the colour classes stop matching). Each
// refinement costs O((n + E) log n).
func Match(adj [][]int32, budget int) []int32 {
	d := designOf(len(adj))
	if d == nil {
		return nil
	}
	for _, nb := range adj {
		if len(nb) != d.Degree {
			return nil
		}
	}
	// the translations map the design onto itself: a vertex that matches
	// no (s, x, 0) matches no (s, x, y); both sides early, as a Slim Fly
	// whose sides differ tells them apart only deep in the search
	var first []int32
	for x := 0; x < d.Q; x++ {
		for s := 0; s < 2; s++ {
			first = append(first, int32(d.Index(Router{S: s, X: x})))
		}
	}
	return isomorphism(adj, d.Graph(), first, budget)
}

// QOf returns the q of a Slim Fly with n switches (2q²), or 0 when n is
// no such number.
func QOf(n int) int {
	q := int(math.Round(math.Sqrt(float64(n) / 2)))
	if q < 3 || 2*q*q != n {
		return 0
	}
	return q
}

// PortOrder returns, for the design of q, each router Index's rank in the
// order Build gives a switch's ports to its neighbours: by rack (x), then
// side, then y.
func PortOrder(q int) []int32 {
	out := make([]int32, 2*q*q)
	for s := 0; s < 2; s++ {
		for x := 0; x < q; x++ {
			for y := 0; y < q; y++ {
				out[(s*q+x)*q+y] = int32((x*2+s)*q + y)
			}
		}
	}
	return out
}

// DesignTranslations returns the q translations of the design of q as
// permutations of its routers' Index: out[b][i] is the Index of τ_b of
// the router at i; nil when q is no prime power the design supports.
func DesignTranslations(q int) [][]int32 {
	d, err := NewDesign(q)
	if err != nil {
		return nil
	}
	n := 2 * q * q
	out := make([][]int32, q)
	for b := range out {
		out[b] = make([]int32, n)
		for i := range out[b] {
			r := d.RouterAt(i)
			r.Y = d.field.Add(r.Y, b)
			out[b][i] = int32(d.Index(r))
		}
	}
	return out
}

// DesignShears returns q² automorphisms of the design of q as
// permutations of its routers' Index, out[0] the identity: for a and f
// of GF(q), σ_{a,f} maps (0, x, y) to (0, x + a, y + a·x + f) and
// (1, m, c) to (1, m + a, c − a·m − a² + f). Each is an automorphism: the
// edges inside a column depend on differences of y (or c) only, shifted
// alike for every y of a column, and y = m·x + c gives
// y + a·x + f = (m + a)(x + a) + (c − a·m − a² + f). They form a group
// (σ_{a,f} after σ_{b,g} is σ_{a+b, f+g+a·b}), and only the identity
// fixes a router: fixing (0, x, y) or (1, m, c) needs a = 0, then f = 0.
// Each side of the design is then one orbit of q² routers. The
// translations are the σ_{0,f}: out[f] is DesignTranslations' out[f].
// nil when q is no prime power the design supports.
func DesignShears(q int) [][]int32 {
	d, err := NewDesign(q)
	if err != nil {
		return nil
	}
	f := d.field
	out := make([][]int32, 0, q*q)
	for a := 0; a < q; a++ {
		for g := 0; g < q; g++ {
			p := make([]int32, 2*q*q)
			for i := range p {
				r := d.RouterAt(i)
				if r.S == 0 {
					r.Y = f.Add(r.Y, f.Add(f.Mul(a, r.X), g))
				} else {
					r.Y = f.Add(f.Sub(r.Y, f.Add(f.Mul(a, r.X), f.Mul(a, a))), g)
				}
				r.X = f.Add(r.X, a)
				p[i] = int32(d.Index(r))
			}
			out = append(out, p)
		}
	}
	return out
}

// Shears is DesignShears carried over to the graph adj by Match's
// isomorphism, as Translations is; nil when adj is no Slim Fly's or
// recognising it takes more than budget refinements.
func Shears(adj [][]int32, budget int) [][]int32 {
	phi := Match(adj, budget)
	if phi == nil {
		return nil
	}
	return carried(phi, DesignShears(QOf(len(adj))))
}

// carried returns the permutations ps of the design's routers as
// permutations of the vertices φ maps onto them.
func carried(phi []int32, ps [][]int32) [][]int32 {
	inv := make([]int32, len(phi))
	for v, x := range phi {
		inv[x] = int32(v)
	}
	for _, p := range ps {
		img := make([]int32, len(p))
		for v := range phi {
			img[v] = inv[p[phi[v]]]
		}
		copy(p, img)
	}
	return ps
}

// designOf returns the design of n switches, nil when there is none.
func designOf(n int) *Design {
	q := QOf(n)
	if q == 0 {
		return nil
	}
	d, err := NewDesign(q)
	if err != nil {
		return nil
	}
	return d
}

// Graph returns the design's switch graph, vertices in Index order.
func (d *Design) Graph() [][]int32 {
	n := 2 * d.Q * d.Q
	adj := make([][]int32, n)
	for i := range adj {
		for _, r := range d.Neighbors(d.RouterAt(i)) {
			adj[i] = append(adj[i], int32(d.Index(r)))
		}
	}
	return adj
}

// isomorphism returns a bijection φ from a's vertices to b's with
// u ~ v ⇔ φ(u) ~ φ(v), or nil if it finds none within budget
// refinements. The first vertex individualised in a is tried only
// against the vertices of b listed in first, in that order (b's
// automorphisms map those onto all the others).
func isomorphism(a, b [][]int32, first []int32, budget int) []int32 {
	n := len(a)
	if len(b) != n {
		return nil
	}
	u := make([][]int32, 2*n) // the disjoint union: a's vertices, then b's
	for v := range a {
		u[v] = a[v]
		u[n+v] = make([]int32, len(b[v]))
		for i, x := range b[v] {
			u[n+v][i] = x + int32(n)
		}
	}
	m := &matcher{adj: u, n: n, budget: budget, first: first}
	return m.search(m.local())
}

// local colours each vertex by the common neighbours it has with each of
// its neighbours (a sorted list): an invariant that tells apart vertices
// that colour refinement alone, on a regular graph, does not.
func (m *matcher) local() []int32 {
	mark := make([]bool, len(m.adj))
	sig := make([][]int32, len(m.adj))
	for v, nb := range m.adj {
		for _, x := range nb {
			mark[x] = true
		}
		for _, x := range nb {
			c := int32(0)
			for _, y := range m.adj[x] {
				if mark[y] {
					c++
				}
			}
			sig[v] = append(sig[v], c)
		}
		for _, x := range nb {
			mark[x] = false
		}
		slices.Sort(sig[v])
	}
	key := make([]uint64, len(sig))
	for v, s := range sig {
		for _, c := range s {
			key[v] = mix(key[v] ^ uint64(c))
		}
	}
	return number(key)
}

// matcher searches an isomorphism between the two halves of adj.
type matcher struct {
	adj    [][]int32
	n      int
	budget int
	first  []int32 // b's candidates for the first individualisation
}

// search refines colour, individualises a pair of vertices of the
// smallest class of more than one and recurses, in index order.
func (m *matcher) search(colour []int32) []int32 {
	if m.budget <= 0 {
		return nil
	}
	m.budget--
	colour, ok := m.refine(colour)
	if !ok {
		return nil
	}
	n := m.n
	cls := classSizes(colour[:n])
	v := -1
	for x := 0; x < n; x++ {
		if c := cls[colour[x]]; c > 1 && (v < 0 || c < cls[colour[v]]) {
			v = x
		}
	}
	if v < 0 {
		return m.discrete(colour)
	}
	fresh := slices.Max(colour) + 1
	cands := m.first
	top := cands != nil
	m.first = nil
	if !top {
		for w := n; w < 2*n; w++ {
			cands = append(cands, int32(w-n))
		}
	}
	for _, c := range cands {
		w := int(c) + n
		if colour[w] != colour[v] {
			continue
		}
		next := slices.Clone(colour)
		next[v], next[w] = fresh, fresh
		// a first choice that cannot succeed may take long to refute:
		// each gets a share of the budget, the next starts afresh
		spare := 0
		if top {
			spare = max(m.budget-topBudget, 0)
			m.budget -= spare
		}
		phi := m.search(next)
		m.budget += spare
		if phi != nil {
			return phi
		}
		if m.budget <= 0 {
			return nil
		}
	}
	return nil
}

// topBudget is the refinements each first choice may take: the right
// ones took at most 261 on q ≤ 16 (q = 16, seen in the tests), a wrong
// one up to 515 to refute.
const topBudget = 500

// discrete reads the bijection off a partition whose classes are pairs,
// one vertex of each half, and checks that it keeps every edge.
func (m *matcher) discrete(colour []int32) []int32 {
	n := m.n
	at := make(map[int32]int32, n)
	for w := n; w < 2*n; w++ {
		at[colour[w]] = int32(w - n)
	}
	phi := make([]int32, n)
	for v := 0; v < n; v++ {
		phi[v] = at[colour[v]]
	}
	for v := 0; v < n; v++ {
		img := m.adj[n+int(phi[v])]
		for _, x := range m.adj[v] {
			if !slices.Contains(img, phi[x]+int32(n)) {
				return nil
			}
		}
	}
	return phi
}

// refine splits colour classes by the colours of the neighbours until
// stable, numbering the new classes in the order of their signatures (the
// same in both halves); ok is false when a class holds more vertices of
// one half than of the other. A signature is a 64-bit hash of the
// vertex's colour and the multiset of its neighbours' (a sum of mixed
// colours: no sorting); a collision, which would merge two classes, can
// only make the search fail, never return a wrong map (discrete checks
// every edge).
func (m *matcher) refine(colour []int32) ([]int32, bool) {
	key := make([]uint64, len(colour))
	for classes := -1; ; {
		for v, nb := range m.adj {
			h := mix(uint64(colour[v]) ^ 0x9e3779b97f4a7c15)
			for _, x := range nb {
				h += mix(uint64(colour[x]))
			}
			key[v] = h
		}
		colour = number(key)
		if !balanced(colour, m.n) {
			return nil, false
		}
		c := int(slices.Max(colour))
		if c == classes {
			return colour, true
		}
		classes = c
	}
}

// mix is splitmix64's finaliser.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// number gives each vertex the rank of its key among the distinct keys.
func number[K cmp.Ordered](key []K) []int32 {
	order := make([]int32, len(key))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return cmp.Compare(key[x], key[y]) })
	out := make([]int32, len(key))
	c := int32(0)
	for i, v := range order {
		if i > 0 && key[order[i-1]] != key[v] {
			c++
		}
		out[v] = c
	}
	return out
}

// balanced tells whether every colour has as many vertices below n as
// from n on.
func balanced(colour []int32, n int) bool {
	count := make(map[int32]int, n)
	for v, c := range colour {
		if v < n {
			count[c]++
		} else {
			count[c]--
		}
	}
	for _, k := range count {
		if k != 0 {
			return false
		}
	}
	return true
}

// classSizes counts the vertices of each colour.
func classSizes(colour []int32) map[int32]int {
	out := make(map[int32]int)
	for _, c := range colour {
		out[c]++
	}
	return out
}
