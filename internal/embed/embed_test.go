package embed_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"slimroute/internal/embed"
)

// The designs here are vertex-transitive, so one first image (vertex 0)
// serves: circulants (i ~ i ± s for s in a set) and Hamming graphs (the
// grids of a HyperX: two vertices adjacent when they differ in one
// coordinate). The graphs are a design less a few edges, sometimes less a
// vertex, renumbered at random; the judge below knows nothing of the
// search.

// circulant returns the circulant graph on n vertices with jumps js.
func circulant(n int, js []int) [][]int32 {
	d := make([][]int32, n)
	for i := range d {
		for _, j := range js {
			for _, k := range []int{(i + j) % n, (i - j + n) % n} {
				if !slices.Contains(d[i], int32(k)) && k != i {
					d[i] = append(d[i], int32(k))
				}
			}
		}
	}
	return d
}

// hamming returns the Hamming graph of sizes a × b.
func hamming(a, b int) [][]int32 {
	d := make([][]int32, a*b)
	for v := range d {
		x, y := v%a, v/a
		for u := range d {
			if u != v && (u%a == x) != (u/a == y) {
				d[v] = append(d[v], int32(u))
			}
		}
	}
	return d
}

// damaged returns design d less drop of its edges and, if gone, a vertex,
// its vertices renumbered by a random permutation; plant[v] is the design
// vertex graph vertex v was.
func damaged(rng *rand.Rand, d [][]int32, drop int, gone bool) (g [][]int32, plant []int32) {
	keep := make([]int32, 0, len(d))
	lost := -1
	if gone {
		lost = rng.IntN(len(d))
	}
	for v := range d {
		if v != lost {
			keep = append(keep, int32(v))
		}
	}
	rng.Shuffle(len(keep), func(i, j int) { keep[i], keep[j] = keep[j], keep[i] })
	index := make([]int32, len(d))
	for i := range index {
		index[i] = -1
	}
	for i, v := range keep {
		index[v] = int32(i)
	}
	type edge struct{ a, b int32 }
	var edges []edge
	for v := range d {
		for _, u := range d[v] {
			if int32(v) < u && index[v] >= 0 && index[u] >= 0 {
				edges = append(edges, edge{index[v], index[u]})
			}
		}
	}
	rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
	g = make([][]int32, len(keep))
	for _, e := range edges[min(drop, len(edges)):] {
		g[e.a] = append(g[e.a], e.b)
		g[e.b] = append(g[e.b], e.a)
	}
	return g, keep
}

// judge checks that phi maps g into d one-to-one, every edge of g onto an
// edge of d.
func judge(g, d [][]int32, phi []int32) error {
	if len(phi) != len(g) {
		return fmt.Errorf("%d images for %d vertices", len(phi), len(g))
	}
	seen := map[int32]int{}
	for v, x := range phi {
		if x < 0 || int(x) >= len(d) {
			return fmt.Errorf("vertex %d maps to %d, no design vertex", v, x)
		}
		if u, ok := seen[x]; ok {
			return fmt.Errorf("vertices %d and %d both map to %d", u, v, x)
		}
		seen[x] = v
	}
	for v := range g {
		for _, u := range g[v] {
			if !slices.Contains(d[phi[v]], phi[u]) {
				return fmt.Errorf("edge %d–%d maps onto %d–%d, no edge of the design", v, u, phi[v], phi[u])
			}
		}
	}
	return nil
}

// TestIntoFindsTheDesignInDamagedGraphs: generated designs less up to 3 %
// of their edges and sometimes a vertex, renumbered: a map is found and
// the judge accepts it, the same map on a second call; the design itself
// (nothing missing) gives nil, as the contract says.
func TestIntoFindsTheDesignInDamagedGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 300
	if testing.Short() {
		n = 60
	}
	for i := 0; i < n; i++ {
		var d [][]int32
		if i%2 == 0 {
			N := 12 + rng.IntN(60)
			js := []int{1}
			for len(js) < 2+rng.IntN(4) {
				if j := 2 + rng.IntN(N/2-1); !slices.Contains(js, j) && 2*j != N {
					js = append(js, j)
				}
			}
			d = circulant(N, js)
		} else {
			d = hamming(3+rng.IntN(6), 3+rng.IntN(6))
		}
		edges := 0
		for _, nb := range d {
			edges += len(nb)
		}
		edges /= 2
		drop := 1 + rng.IntN(max(1, edges*3/100))
		g, plant := damaged(rng, d, drop, i%3 == 0)
		t.Run(fmt.Sprintf("case=%d", i), func(t *testing.T) {
			phi := embed.Into(g, d, []int32{0}, 1<<22)
			if phi == nil {
				t.Fatalf("no map of the design (%d vertices) less %d edges into it; the planted one is %v", len(d), drop, plant)
			}
			if err := judge(g, d, phi); err != nil {
				t.Fatal(err)
			}
			if again := embed.Into(g, d, []int32{0}, 1<<22); !slices.Equal(again, phi) {
				t.Fatal("a second call maps otherwise")
			}
		})
		if i%10 == 0 {
			whole, _ := damaged(rng, d, 0, false)
			if phi := embed.Into(whole, d, []int32{0}, 1<<22); phi != nil {
				t.Fatalf("case %d: the design itself, renumbered, gave a map; the contract says nil", i)
			}
		}
	}
}

// TestIntoRefusesWhatIsNotInTheDesign: a graph with a vertex of higher
// degree than the design's, or with a triangle where the design has none
// (a Hamming graph's triangles lie in its lines; a circulant of odd jumps
// only is bipartite), maps nowhere: nil.
func TestIntoRefusesWhatIsNotInTheDesign(t *testing.T) {
	d := circulant(20, []int{1, 3, 5}) // jumps all odd: bipartite, no triangle
	g, _ := damaged(rand.New(rand.NewPCG(1, 1)), d, 6, false)
	var a, b, c int32 = -1, -1, -1
	for v := range g { // a path a–b–c, a and c not joined: close it
		for _, u := range g[v] {
			for _, w := range g[u] {
				if w != int32(v) && !slices.Contains(g[v], w) && a < 0 {
					a, b, c = int32(v), u, w
				}
			}
		}
	}
	_ = b
	g[a] = append(g[a], c)
	g[c] = append(g[c], a)
	if phi := embed.Into(g, d, []int32{0}, 1<<20); phi != nil {
		t.Fatalf("a triangle mapped into a bipartite design: %v", phi)
	}
	h := hamming(4, 4)
	g2, _ := damaged(rand.New(rand.NewPCG(2, 2)), h, 2, true)
	for u := range g2 { // one vertex joined to everything: degree above the design's
		if u != 0 && !slices.Contains(g2[0], int32(u)) {
			g2[0] = append(g2[0], int32(u))
			g2[u] = append(g2[u], 0)
		}
	}
	if phi := embed.Into(g2, h, []int32{0}, 1<<20); phi != nil {
		t.Fatalf("a vertex of degree %d mapped into a design of degree %d", len(g2[0]), len(h[0]))
	}
}
