package hyperx_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"slimroute/hyperx"
)

// hamming returns the Hamming graph of sizes dims, built here from the
// definition (switches as mixed-radix numbers, the first size fastest;
// joined when they differ in exactly one coordinate), and each switch's
// coordinates.
func hamming(dims []int) ([][]int32, [][]int) {
	n := 1
	for _, d := range dims {
		n *= d
	}
	coord := make([][]int, n)
	for v := range coord {
		x := v
		for _, d := range dims {
			coord[v] = append(coord[v], x%d)
			x /= d
		}
	}
	adj := make([][]int32, n)
	for u := range adj {
		for v := range adj {
			diff := 0
			for i := range dims {
				if coord[u][i] != coord[v][i] {
					diff++
				}
			}
			if diff == 1 {
				adj[u] = append(adj[u], int32(v))
			}
		}
	}
	return adj, coord
}

// relabelled returns adj with vertex v renamed perm[v] and each neighbour
// list shuffled.
func relabelled(adj [][]int32, perm []int, rng *rand.Rand) [][]int32 {
	out := make([][]int32, len(adj))
	for v, nb := range adj {
		for _, u := range nb {
			out[perm[v]] = append(out[perm[v]], int32(perm[u]))
		}
		rng.Shuffle(len(out[perm[v]]), func(i, j int) { out[perm[v]][i], out[perm[v]][j] = out[perm[v]][j], out[perm[v]][i] })
	}
	return out
}

// isIsomorphism checks that phi maps adj one to one onto the grid of
// sizes dims (first size fastest) with every edge onto a grid edge; with
// as many edges on both sides that makes it an isomorphism.
func isIsomorphism(adj [][]int32, dims []int, phi []int32) error {
	n := 1
	edges := 0
	for _, d := range dims {
		n *= d
		edges += d - 1
	}
	if len(phi) != len(adj) || n != len(adj) {
		return fmt.Errorf("%d images for %d switches, grid %v", len(phi), len(adj), dims)
	}
	coordOf := func(x int32) []int {
		var c []int
		for _, d := range dims {
			c = append(c, int(x)%d)
			x /= int32(d)
		}
		return c
	}
	seen := make([]bool, n)
	for v, x := range phi {
		if x < 0 || int(x) >= n || seen[x] {
			return fmt.Errorf("switch %d maps to %d: out of the grid or taken", v, x)
		}
		seen[x] = true
		if len(adj[v]) != edges {
			return fmt.Errorf("switch %d has %d neighbours, the grid's %d", v, len(adj[v]), edges)
		}
		for _, u := range adj[v] {
			a, b := coordOf(x), coordOf(phi[u])
			diff := 0
			for i := range a {
				if a[i] != b[i] {
					diff++
				}
			}
			if diff != 1 {
				return fmt.Errorf("edge %d–%d maps to %v–%v, no grid edge", v, u, a, b)
			}
		}
	}
	return nil
}

// TestMatchFindsEveryNumberedHyperX: 300 drawn Hamming graphs (1 to 3
// dimensions of 2 to 7 switches, at least 3 switches), each under a
// random numbering: Match returns the sizes, largest first, and a map the
// test's own check accepts as an isomorphism; the translations it offers
// (under limits from 1 to all) are automorphisms of the grid that fix no
// switch, a group of the size the limit allows.
func TestMatchFindsEveryNumberedHyperX(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 4))
	for i := 0; i < 300; i++ {
		dims := make([]int, 1+rng.IntN(3))
		for d := range dims {
			dims[d] = 2 + rng.IntN(6)
		}
		adj, _ := hamming(dims)
		if len(adj) < 3 {
			continue
		}
		perm := rng.Perm(len(adj))
		got, phi := hyperx.Match(relabelled(adj, perm, rng))
		want := slices.Sorted(slices.Values(dims))
		slices.Reverse(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%v: sizes %v, want %v", dims, got, want)
		}
		grid, _ := hamming(got)
		if err := isIsomorphism(relabelled(adj, perm, rng), got, phi); err != nil {
			t.Fatalf("%v: %v", dims, err)
		}
		limit := 1 + rng.IntN(len(adj)+1)
		tr := hyperx.DesignTranslations(got, limit)
		checkTranslations(t, fmt.Sprint(dims), grid, tr, got, limit)
	}
}

// checkTranslations checks that tr, translations of the grid of sizes
// dims (adjacency grid), are distinct automorphisms fixing no switch (but
// the first, the identity), closed under composition, as many as the
// whole first dimensions that fit limit.
func checkTranslations(t *testing.T, name string, grid [][]int32, tr [][]int32, dims []int, limit int) {
	t.Helper()
	size := 1
	for i, d := range dims {
		if i > 0 && size*d > limit {
			break
		}
		size *= d
	}
	if len(tr) != size {
		t.Fatalf("%s, limit %d: %d translations, want %d", name, limit, len(tr), size)
	}
	index := map[string]int{}
	for e, p := range tr {
		index[fmt.Sprint(p)] = e
		edges := map[[2]int32]bool{}
		for v, nb := range grid {
			for _, u := range nb {
				edges[[2]int32{int32(v), u}] = true
			}
		}
		for v, nb := range grid {
			if e > 0 && p[v] == int32(v) {
				t.Fatalf("%s: translation %d fixes switch %d", name, e, v)
			}
			if e == 0 && p[v] != int32(v) {
				t.Fatalf("%s: the first translation is no identity", name)
			}
			for _, u := range nb {
				if !edges[[2]int32{p[v], p[u]}] {
					t.Fatalf("%s: translation %d maps edge %d–%d onto no edge", name, e, v, u)
				}
			}
		}
	}
	if len(index) != len(tr) {
		t.Fatalf("%s: %d distinct translations of %d", name, len(index), len(tr))
	}
	for _, a := range tr {
		for _, b := range tr {
			ab := make([]int32, len(a))
			for v := range ab {
				ab[v] = a[b[v]]
			}
			if _, ok := index[fmt.Sprint(ab)]; !ok {
				t.Fatalf("%s: the translations are not closed under composition", name)
			}
		}
	}
}

// TestMatchRefusesOtherGraphs: graphs that are no Hamming graph get nil
// — the Shrikhande graph (the 4×4 grid's parameters, every neighbourhood
// a hexagon), 4×4 and 5×3 grids with two edges far from switch 0
// swapped (degrees kept, the lines through switch 0 intact), with one
// edge removed, with a repeated edge, random regular graphs of a grid's
// size and degree, and a disconnected pair of grids.
func TestMatchRefusesOtherGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 5))
	var cases []struct {
		name string
		adj  [][]int32
	}
	add := func(name string, adj [][]int32) {
		cases = append(cases, struct {
			name string
			adj  [][]int32
		}{name, adj})
	}
	shrikhande := make([][]int32, 16)
	for v := range shrikhande {
		a, b := v/4, v%4
		for _, d := range [][2]int{{0, 1}, {0, 3}, {1, 0}, {3, 0}, {1, 1}, {3, 3}} {
			shrikhande[v] = append(shrikhande[v], int32((a+d[0])%4*4+(b+d[1])%4))
		}
	}
	add("Shrikhande", shrikhande)
	for _, dims := range [][]int{{4, 4}, {5, 3}, {3, 3, 3}} {
		adj, coord := hamming(dims)
		add(fmt.Sprintf("%v swapped", dims), swapFar(adj, coord))
		cut := clone(adj)
		u, v := len(cut)-1, cut[len(cut)-1][0]
		cut[u] = slices.DeleteFunc(cut[u], func(x int32) bool { return x == v })
		cut[v] = slices.DeleteFunc(cut[v], func(x int32) bool { return x == int32(u) })
		add(fmt.Sprintf("%v cut", dims), cut)
		twice := clone(adj)
		twice[0] = append(twice[0], twice[0][0])
		twice[twice[0][0]] = append(twice[twice[0][0]], 0)
		add(fmt.Sprintf("%v doubled", dims), twice)
		add(fmt.Sprintf("%v doubled far, degrees kept", dims), doubledFar(adj, coord))
		for i := 0; i < 5; i++ {
			add(fmt.Sprintf("%v random %d", dims, i), randomRegular(len(adj), len(adj[0]), rng))
		}
		two := clone(adj)
		for _, nb := range adj {
			var moved []int32
			for _, u := range nb {
				moved = append(moved, u+int32(len(adj)))
			}
			two = append(two, moved)
		}
		add(fmt.Sprintf("%v twice, apart", dims), two)
	}
	for _, c := range cases {
		if dims, phi := hyperx.Match(c.adj); phi != nil {
			t.Errorf("%s: matched as a %v HyperX", c.name, dims)
		}
	}
}

func clone(adj [][]int32) [][]int32 {
	out := make([][]int32, len(adj))
	for v := range adj {
		out[v] = slices.Clone(adj[v])
	}
	return out
}

// swapFar replaces edges a–b and c–d of switches with no zero coordinate
// (far from switch 0) by a–d and c–b, where that adds no edge twice.
func swapFar(adj [][]int32, coord [][]int) [][]int32 {
	far := func(v int32) bool { return !slices.Contains(coord[v], 0) }
	out := clone(adj)
	for a := range out {
		for _, b := range out[a] {
			for c := range out {
				for _, d := range out[c] {
					x := []int32{int32(a), b, int32(c), d}
					if !far(x[0]) || !far(x[1]) || !far(x[2]) || !far(x[3]) || a == c || a == int(d) || b == int32(c) || b == d ||
						slices.Contains(out[a], d) || slices.Contains(out[c], b) {
						continue
					}
					rewire(out, int32(a), b, d)
					rewire(out, b, int32(a), int32(c))
					rewire(out, int32(c), d, b)
					rewire(out, d, int32(c), int32(a))
					return out
				}
			}
		}
	}
	panic("no two far edges to swap")
}

// doubledFar returns adj with three cables doubled where three others
// were, far from switch 0, every degree kept and every cable still
// joining switches of one line: x–y becomes a second x–z, z–t a second
// z–x, and y–t, which lost one cable each, get a second y–t.
func doubledFar(adj [][]int32, coord [][]int) [][]int32 {
	at := func(c []int) int32 {
		for v := range coord {
			if slices.Equal(coord[v], c) {
				return int32(v)
			}
		}
		panic("no such switch")
	}
	last := func(d int) []int { // switch (1, 1, …) moved to 2 along dimension d
		c := make([]int, len(coord[0]))
		for i := range c {
			c[i] = 1
		}
		c[d] = 2
		return c
	}
	out := clone(adj)
	base := make([]int, len(coord[0]))
	for i := range base {
		base[i] = 1
	}
	x := at(base)
	z, y := at(last(0)), at(last(1)) // x's neighbours along dimensions 0 and 1
	tc := last(0)
	tc[1] = 2
	t := at(tc) // z's neighbour along dimension 1, y's along 0
	rewire(out, x, y, z)
	rewire(out, z, t, x)
	rewire(out, y, x, t)
	rewire(out, t, z, y)
	return out
}

// rewire makes v's neighbour from into to.
func rewire(adj [][]int32, v, from, to int32) {
	adj[v][slices.Index(adj[v], from)] = to
}

// randomRegular returns a random simple graph of n vertices of degree k
// (a configuration model, drawn again until simple).
func randomRegular(n, k int, rng *rand.Rand) [][]int32 {
	for {
		stubs := make([]int32, 0, n*k)
		for v := 0; v < n; v++ {
			for j := 0; j < k; j++ {
				stubs = append(stubs, int32(v))
			}
		}
		rng.Shuffle(len(stubs), func(i, j int) { stubs[i], stubs[j] = stubs[j], stubs[i] })
		adj := make([][]int32, n)
		ok := true
		for i := 0; i+1 < len(stubs) && ok; i += 2 {
			u, v := stubs[i], stubs[i+1]
			if u == v || slices.Contains(adj[u], v) {
				ok = false
			}
			adj[u], adj[v] = append(adj[u], v), append(adj[v], u)
		}
		if ok {
			return adj
		}
	}
}

// TestEmbedFindsTheGridBehindMissingCables: shuffled HyperX graphs of two
// dimensions with a cable to 1 % of them removed map into their grid,
// judged against the grid's lines alone (each edge joins switches that
// differ in one coordinate); the sizes are the grid's.
func TestEmbedFindsTheGridBehindMissingCables(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	for _, dims := range [][]int{{4, 4}, {6, 6}, {12, 8}, {16, 16}} {
		grid, _ := hamming(dims)
		adj := relabelled(grid, rng.Perm(len(grid)), rng)
		var edges [][2]int32
		for v, nb := range adj {
			for _, x := range nb {
				if int32(v) < x {
					edges = append(edges, [2]int32{int32(v), x})
				}
			}
		}
		gone := map[[2]int32]bool{}
		for _, i := range rng.Perm(len(edges))[:max(1, len(edges)/100)] {
			gone[edges[i]] = true
		}
		cut := make([][]int32, len(adj))
		for v, nb := range adj {
			for _, x := range nb {
				if !gone[[2]int32{min(int32(v), x), max(int32(v), x)}] {
					cut[v] = append(cut[v], x)
				}
			}
		}
		got, phi := hyperx.Embed(cut, 2_000_000)
		if got == nil || got[0] != dims[0] || got[1] != dims[1] {
			t.Fatalf("%v less %d cables: sizes %v", dims, len(gone), got)
		}
		shape := hyperx.Shape{Dims: got}
		seen := map[int32]bool{}
		for v, x := range phi {
			if seen[x] {
				t.Fatalf("%v: two switches on %d", dims, x)
			}
			seen[x] = true
			for _, u := range cut[v] {
				a, b, differ := shape.CoordOf(int(x)), shape.CoordOf(int(phi[u])), 0
				for i := range a {
					if a[i] != b[i] {
						differ++
					}
				}
				if differ != 1 {
					t.Fatalf("%v: edge %d-%d off the grid's lines", dims, v, u)
				}
			}
		}
	}
}
