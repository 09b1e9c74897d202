package slimfly

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// withoutEdges returns adj less k of its edges, drawn at random.
func withoutEdges(adj [][]int32, k int, rng *rand.Rand) [][]int32 {
	type edge struct{ a, b int32 }
	var edges []edge
	for v, nb := range adj {
		for _, x := range nb {
			if int32(v) < x {
				edges = append(edges, edge{int32(v), x})
			}
		}
	}
	gone := map[edge]bool{}
	for _, i := range rng.Perm(len(edges))[:k] {
		gone[edges[i]] = true
	}
	out := make([][]int32, len(adj))
	for v, nb := range adj {
		for _, x := range nb {
			if !gone[edge{min(int32(v), x), max(int32(v), x)}] {
				out[v] = append(out[v], x)
			}
		}
	}
	return out
}

// TestEmbedFindsTheDesignBehindMissingCables: shuffled Slim Flies of q up
// to 17 with 1 edge to 3 % of the edges removed at random are embedded
// into their design, judged from the graph and the design alone: a
// bijection, every edge onto a design edge (so exactly as many design
// edges unmatched as were removed). Intact graphs are left to Match.
func TestEmbedFindsTheDesignBehindMissingCables(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for _, q := range []int{3, 4, 5, 7, 8, 9, 11, 13, 16, 17} {
		d, err := NewDesign(q)
		if err != nil {
			t.Fatal(err)
		}
		design := d.Graph()
		for _, share := range []float64{0, 0.01, 0.03} {
			t.Run(fmt.Sprintf("q=%d/%.0f%%", q, 100*share), func(t *testing.T) {
				full := shuffledSlimFly(t, q, rng)
				edges := len(full) * len(full[0]) / 2
				k := max(1, int(share*float64(edges)))
				adj := withoutEdges(full, k, rng)
				phi := Embed(adj, EmbedBudget)
				if phi == nil {
					t.Fatalf("%d of %d edges removed: not embedded", k, edges)
				}
				checkEmbedding(t, adj, design, phi)
				if Embed(full, EmbedBudget) != nil {
					t.Fatal("an intact graph embedded: Match's to recognise")
				}
			})
		}
	}
}

// checkEmbedding judges phi, a map of adj into design, from the two
// graphs alone: one-to-one into design's vertices, every edge of adj onto
// an edge of design.
func checkEmbedding(t *testing.T, adj, design [][]int32, phi []int32) {
	t.Helper()
	if len(phi) != len(adj) {
		t.Fatalf("%d images for %d vertices", len(phi), len(adj))
	}
	seen := make([]bool, len(design))
	for v, c := range phi {
		if c < 0 || int(c) >= len(design) || seen[c] {
			t.Fatalf("vertex %d maps onto %d: not one-to-one", v, c)
		}
		seen[c] = true
		for _, x := range adj[v] {
			if !slices.Contains(design[c], phi[x]) {
				t.Fatalf("edge %d-%d maps onto a non-edge", v, x)
			}
		}
	}
}

// withoutVertices returns adj less m of its vertices, drawn at random,
// and their edges, the others renumbered in order.
func withoutVertices(adj [][]int32, m int, rng *rand.Rand) [][]int32 {
	gone := make([]bool, len(adj))
	for _, v := range rng.Perm(len(adj))[:m] {
		gone[v] = true
	}
	id := make([]int32, len(adj))
	n := int32(0)
	for v := range adj {
		id[v] = n
		if !gone[v] {
			n++
		}
	}
	out := make([][]int32, 0, n)
	for v, nb := range adj {
		if gone[v] {
			continue
		}
		row := []int32{}
		for _, x := range nb {
			if !gone[x] {
				row = append(row, id[x])
			}
		}
		out = append(out, row)
	}
	return out
}

// TestEmbedFindsTheDesignBehindMissingRouters: shuffled Slim Flies of q
// = 5 … 13 less one or two routers and up to 1 % of the other edges map
// into their design: injectively, every edge onto a design edge.
func TestEmbedFindsTheDesignBehindMissingRouters(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 3))
	for _, q := range []int{5, 7, 8, 9, 11, 13} {
		d, err := NewDesign(q)
		if err != nil {
			t.Fatal(err)
		}
		design := d.Graph()
		for m := 1; m <= EmbedMissing; m++ {
			t.Run(fmt.Sprintf("q=%d/%d routers", q, m), func(t *testing.T) {
				full := shuffledSlimFly(t, q, rng)
				adj := withoutEdges(withoutVertices(full, m, rng), rng.IntN(len(full)*len(full[0])/200+1), rng)
				phi := Embed(adj, EmbedBudget)
				if phi == nil {
					t.Fatal("not embedded")
				}
				checkEmbedding(t, adj, design, phi)
			})
		}
	}
}

// TestEmbedRefusesOtherGraphs: a Slim Fly with an edge moved and then one
// removed (so that it has an edge its design cannot hold), and a graph
// with a vertex of too high a degree, are refused.
func TestEmbedRefusesOtherGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 3))
	for _, q := range []int{5, 7} {
		adj := rewired(shuffledSlimFly(t, q, rng), rng)
		if Embed(withoutEdges(adj, 2, rng), EmbedBudget) != nil {
			t.Errorf("q=%d: a rewired graph embedded", q)
		}
	}
}
