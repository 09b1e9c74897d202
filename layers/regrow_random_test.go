package layers

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"slimroute/fabric"
)

// TestRegrowOnRandomDiameterTwoFabrics regrows (the command line's
// default) random fabrics that are not Slim Flies: 6 to 40 switches
// cabled at random, dense enough to be mostly within two hops, no
// parallel cables, 0 to 3 HCAs per switch (some dual-ported to two
// switches), 4 layers (8 on a third: not regrown), own or shared trees. Judged by walking the
// tables: the routing rules (checkRouting), the same tables on one and
// two workers, and no fewer pairs with three disjoint paths than without
// regrowing.
func TestRegrowOnRandomDiameterTwoFabrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 0))
	n := 60
	if testing.Short() {
		n = 15
	}
	applied := 0
	for i := 0; i < n; i++ {
		f := denseFabric(t, rng, 6+rng.IntN(35), 0.25+0.5*rng.Float64())
		o := Options{Layers: []int{4, 4, 8}[rng.IntN(3)], Seed: uint64(i), Trees: []int{-1, 0, 3}[rng.IntN(3)], Workers: 1}
		t.Run(fmt.Sprintf("case=%d", i), func(t *testing.T) {
			o.NoRegrow = true
			r0, err := Compute(f, o)
			if err != nil {
				t.Fatal(err) // a spanning path keeps the switches connected
			}
			o.NoRegrow = false
			r1, err := Compute(f, o)
			if err != nil {
				t.Fatal(err)
			}
			checkRouting(t, f, r1)
			if regrowApplies(r1.g, r1) {
				applied++
			}
			o.Workers = 2
			r2, err := Compute(f, o)
			if err != nil {
				t.Fatal(err)
			}
			for k := range r1.next {
				if !slices.Equal(r1.next[k], r2.next[k]) {
					t.Fatalf("layer %d differs between 1 and 2 workers", k)
				}
			}
			if a, b := pairsWithThree(r0), pairsWithThree(r1); b < a {
				t.Errorf("%d pairs with three disjoint paths regrown, %d without", b, a)
			}
		})
	}
	t.Logf("regrowing applied to %d of %d fabrics", applied, n)
	if applied < n/4 {
		t.Fatalf("regrowing applied to %d of %d fabrics: the generator misses it", applied, n)
	}
}

// denseFabric returns S switches, each pair cabled with probability p
// (a spanning path keeps them connected), with 0 to 3 HCAs each.
func denseFabric(t *testing.T, rng *rand.Rand, S int, p float64) *fabric.Fabric {
	t.Helper()
	const ports = 64
	var nodes []fabric.Node
	var links []fabric.Link
	next := make([]int, 0, S)
	for s := 0; s < S; s++ {
		nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: fmt.Sprintf("s%d", s), GUID: fabric.GUID(0x1000 + s), Ports: ports})
		next = append(next, 1)
	}
	cable := func(a, b int) {
		if next[a] <= ports && next[b] <= ports {
			links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(a), Port: next[a]}, B: fabric.PortRef{Node: fabric.NodeID(b), Port: next[b]}})
			next[a]++
			next[b]++
		}
	}
	for a := 0; a < S; a++ {
		for b := a + 1; b < S; b++ {
			if b == a+1 || rng.Float64() < p {
				cable(a, b)
			}
		}
	}
	for s := 0; s < S; s++ {
		for h := rng.IntN(4); h > 0; h-- {
			id := len(nodes)
			nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: fmt.Sprintf("h%d", id), GUID: fabric.GUID(0x100000 + id*16), Ports: 2})
			next = append(next, 1)
			cable(s, id)
			if rng.IntN(5) == 0 {
				cable(rng.IntN(S), id)
			}
		}
	}
	f, err := fabric.New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
