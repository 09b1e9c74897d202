package slimfly

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTranslationsAreFreeAutomorphisms recognises shuffled Slim Fly graphs
// (vertices renumbered at random, neighbour lists in random order) of
// every q up to 16 and checks what Translations returns against the
// graph alone: q permutations, the first the identity, each mapping every
// edge onto an edge, none but the identity fixing a vertex, and closed
// under composition (a group); orbits then have q vertices each.
func TestTranslationsAreFreeAutomorphisms(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	for _, q := range []int{3, 4, 5, 7, 8, 9, 11, 13, 16} {
		for trial := 0; trial < 2; trial++ {
			t.Run(fmt.Sprintf("q=%d/%d", q, trial), func(t *testing.T) {
				adj := shuffledSlimFly(t, q, rng)
				tr := Translations(adj, TranslationBudget)
				if tr == nil {
					t.Fatal("not recognised")
				}
				checkFreeGroup(t, adj, tr)
			})
		}
	}
}

func checkFreeGroup(t *testing.T, adj [][]int32, tr [][]int32) {
	t.Helper()
	n := len(adj)
	for i, p := range tr {
		fixed := 0
		for v := range adj {
			if p[v] == int32(v) {
				fixed++
			}
			for _, x := range adj[v] {
				if !slices.Contains(adj[p[v]], p[x]) {
					t.Fatalf("translation %d maps edge %d-%d onto a non-edge", i, v, x)
				}
			}
		}
		if i == 0 && fixed != n || i > 0 && fixed != 0 {
			t.Fatalf("translation %d fixes %d of %d vertices", i, fixed, n)
		}
	}
	for _, p := range tr {
		for _, r := range tr {
			comp := make([]int32, n)
			for v := range comp {
				comp[v] = p[r[v]]
			}
			if !slices.ContainsFunc(tr, func(x []int32) bool { return slices.Equal(x, comp) }) {
				t.Fatal("the translations are not closed under composition")
			}
		}
	}
}

// shuffledSlimFly returns the MMS graph of q with its vertices renumbered
// and neighbour lists shuffled.
func shuffledSlimFly(t *testing.T, q int, rng *rand.Rand) [][]int32 {
	d, err := NewDesign(q)
	if err != nil {
		t.Fatal(err)
	}
	h := d.Graph()
	perm := rng.Perm(len(h))
	adj := make([][]int32, len(h))
	for v, nb := range h {
		for _, x := range nb {
			adj[perm[v]] = append(adj[perm[v]], int32(perm[x]))
		}
		rng.Shuffle(len(adj[perm[v]]), func(i, j int) { nb := adj[perm[v]]; nb[i], nb[j] = nb[j], nb[i] })
	}
	return adj
}

// TestOtherGraphsAreNotSlimFlies: a Slim Fly with one edge moved (same
// order and degrees) is refused, and so is a graph of the wrong order.
func TestOtherGraphsAreNotSlimFlies(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	for _, q := range []int{5, 7} {
		adj := rewired(shuffledSlimFly(t, q, rng), rng)
		if tr := Translations(adj, TranslationBudget); tr != nil {
			t.Errorf("q=%d with two edges swapped recognised as a Slim Fly", q)
		}
	}
	if Translations(make([][]int32, 49), TranslationBudget) != nil {
		t.Error("49 isolated vertices recognised as a Slim Fly")
	}
}

// rewired returns adj with two of its edges swapped in place: a-b, c-d →
// a-c, b-d where a-c and b-d are no edges (the same order and degrees).
func rewired(adj [][]int32, rng *rand.Rand) [][]int32 {
	for {
		a := int32(rng.IntN(len(adj)))
		b := adj[a][rng.IntN(len(adj[a]))]
		c := int32(rng.IntN(len(adj)))
		d := adj[c][rng.IntN(len(adj[c]))]
		if a == c || a == d || b == c || b == d || slices.Contains(adj[a], c) || slices.Contains(adj[b], d) {
			continue
		}
		swap := func(x, from, to int32) {
			adj[x][slices.Index(adj[x], from)] = to
		}
		swap(a, b, c)
		swap(b, a, d)
		swap(c, d, a)
		swap(d, c, b)
		return adj
	}
}

// TestShearsAreFreeAutomorphisms recognises shuffled Slim Fly graphs of
// every q up to 9 and checks what Shears returns against the graph alone,
// as TestTranslationsAreFreeAutomorphisms does: q² permutations, the
// first the identity, each an automorphism fixing no vertex but the
// identity, closed under composition; each side of the design is then
// one orbit. The translations are among them.
func TestShearsAreFreeAutomorphisms(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2))
	for _, q := range []int{3, 4, 5, 7, 8, 9} {
		t.Run(fmt.Sprintf("q=%d", q), func(t *testing.T) {
			adj := shuffledSlimFly(t, q, rng)
			sh := Shears(adj, TranslationBudget)
			if len(sh) != q*q {
				t.Fatalf("%d shears, want %d", len(sh), q*q)
			}
			checkFreeGroup(t, adj, sh)
			for _, p := range DesignTranslations(q) {
				if !slices.ContainsFunc(DesignShears(q), func(x []int32) bool { return slices.Equal(x, p) }) {
					t.Fatal("a translation is no shear")
				}
			}
		})
	}
}
