package layers

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"slimroute/fabric"
	"slimroute/hyperx"
	"slimroute/internal/disguise"
	"slimroute/slimfly"
)

// TestSymmetricRoutingMatchesTheFullSearch routes Slim Flies, each also
// disguised (nodes in another order, other GUIDs and names, switch ports
// permuted: what a discovered fabric looks like), with the defaults the
// command line uses, once searching one destination switch per orbit of
// the translations (symmetry.go) and once every destination, and judges
// the first by walking its tables:
//   - the routing rules hold (checkRouting);
//   - it is invariant under every element of its group (a Slim Fly's
//     shears from q = 7 on, else translations), found from the fabric's
//     cables alone: the next switch of τ(s) toward τ(d) is τ of the next
//     switch of s toward d, in every layer;
//   - no more than 0.5 points fewer pairs with three disjoint paths, every
//     layer ≥ 1 within 1.3 × its mean or 0.02 above the full search's
//     ratio (on some disguises the full search leaves a layer at 1.47 ×)
//     or its busiest channel at most one route above the full search's
//     (loads are whole routes: on the 5×3 HyperX one route is 0.18 of a
//     layer's mean), and the busiest channel over all layers (all-to-all
//     traffic) no more than 1 % above the full search's.
//
// HyperX fabrics of two dimensions are judged alike, under the grid's
// translations.
func TestSymmetricRoutingMatchesTheFullSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	for _, design := range symmetricDesigns(t) {
		plain := design.f
		for _, disguise := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/disguised=%v", design.name, disguise), func(t *testing.T) {
				f := plain
				if disguise {
					f = disguised(t, plain, rng)
				}
				o := Options{Layers: 4, Seed: 1, Workers: 2}
				sym, err := Compute(f, o)
				if err != nil {
					t.Fatal(err)
				}
				if sym.g.sym == nil {
					t.Fatal("the design was not recognised")
				}
				o.asymmetric = true
				full, err := Compute(f, o)
				if err != nil {
					t.Fatal(err)
				}
				checkRouting(t, f, sym)
				checkInvariant(t, sym)
				judgeAgainstFull(t, sym, full)
			})
		}
	}
}

// checkInvariant checks that r's next switches commute with every
// translation of its switch graph, read from the routing's channels.
func checkInvariant(t *testing.T, r *Routing) {
	t.Helper()
	S := r.NumSwitches()
	adj := make([][]int32, S)
	for s := range adj {
		for _, c := range r.Channels(s) {
			adj[s] = append(adj[s], int32(c.Peer))
		}
	}
	tr := translationsOf(adj)
	if tr == nil {
		t.Fatal("no translations found")
	}
	// a switch's endpoints are interchangeable: the j-th of s (in
	// destination order) goes with the j-th of τ(s)
	first := make([]int, S)
	for d := r.NumEndpoints() - 1; d >= 0; d-- {
		first[r.DestSwitch(d)] = d
	}
	bad := 0
	for _, p := range tr[1:] {
		for k := 0; k < r.NumLayers(); k++ {
			for d := 0; d < r.NumEndpoints(); d++ {
				t := r.DestSwitch(d)
				e := first[p[t]] + d - first[t]
				for s := 0; s < S; s++ {
					x, y := r.NextSwitch(k, s, d), r.NextSwitch(k, int(p[s]), e)
					if (x < 0) != (y < 0) || x >= 0 && int(p[x]) != y {
						bad++
					}
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d next switches do not commute with the translations", bad)
	}
}

// judgeAgainstFull compares the quality of r with the full search's.
func judgeAgainstFull(t *testing.T, r, full *Routing) {
	t.Helper()
	a, b := pairsWithThree(r), pairsWithThree(full)
	pairs := r.Stats[0].Pairs
	t.Logf("pairs with three disjoint paths: %d symmetric, %d full, of %d", a, b, pairs)
	if 200*(b-a) > pairs {
		t.Errorf("%d pairs with three disjoint paths, the full search %d: more than 0.5 points fewer", a, b)
	}
	loads, fl := walkedLoads(r), walkedLoads(full)
	L := len(loads) - 1
	route := int64(0) // the most one switch's endpoints add to a channel
	for s := range r.NumSwitches() {
		route = max(route, int64(r.Hosts(s)))
	}
	for k := 1; k < L; k++ {
		x, y := float64(slices.Max(loads[k]))/mean(loads[k]), float64(slices.Max(fl[k]))/mean(fl[k])
		if x > max(1.3, y+0.02) && slices.Max(loads[k]) > slices.Max(fl[k])+route {
			t.Errorf("layer %d: busiest channel %.2f × its mean, the full search's %.2f (%d/%.2f, %d/%.2f)", k, x, y, slices.Max(loads[k]), mean(loads[k]), slices.Max(fl[k]), mean(fl[k]))
		}
	}
	x, y := slices.Max(loads[L]), slices.Max(fl[L])
	t.Logf("busiest channel over all layers: %d symmetric, %d full", x, y)
	if 100*x > 101*y {
		t.Errorf("busiest channel over all layers %d, the full search's %d", x, y)
	}
}

// TestEveryNumberingOfASlimFlyRoutesAlike routes Slim Flies (and HyperX
// fabrics of two dimensions) as built and
// disguised in several ways (nodes in another order, other GUIDs and
// names, switch ports permuted) and requires the same routing up to the
// isomorphism: the same statistics per layer, as many pairs with three
// disjoint paths, and the same channel loads per layer (walked from the
// tables, as sorted lists).
func TestEveryNumberingOfASlimFlyRoutesAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 2))
	for _, design := range symmetricDesigns(t) {
		plain, q := design.f, design.name
		o := Options{Layers: 4, Seed: 1, Workers: 2}
		want, err := Compute(plain, o)
		if err != nil {
			t.Fatal(err)
		}
		wantLoads, wantThree := sortedLoads(want), pairsWithThree(want)
		for i := 0; i < 3; i++ {
			r, err := Compute(disguised(t, plain, rng), o)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(r.Stats) != fmt.Sprint(want.Stats) {
				t.Errorf("%s, disguise %d: layer statistics %v, as built %v", q, i, r.Stats, want.Stats)
			}
			if n := pairsWithThree(r); n != wantThree {
				t.Errorf("%s, disguise %d: %d pairs with three disjoint paths, as built %d", q, i, n, wantThree)
			}
			if fmt.Sprint(sortedLoads(r)) != fmt.Sprint(wantLoads) {
				t.Errorf("%s, disguise %d: the channel loads differ from the routing as built", q, i)
			}
		}
	}
}

// sortedLoads returns walkedLoads with each layer's loads sorted.
func sortedLoads(r *Routing) [][]int64 {
	loads := walkedLoads(r)
	for _, l := range loads {
		slices.Sort(l)
	}
	return loads
}

// symmetricDesign is a fabric routed under its design's translations.
type symmetricDesign struct {
	name string
	f    *fabric.Fabric
}

// symmetricDesigns returns Slim Flies of q = 4, 5, 7, 8 and HyperX
// fabrics of 4×4, 6×6, 5×3 and 8×4 switches (fewer with -short).
func symmetricDesigns(t *testing.T) []symmetricDesign {
	t.Helper()
	var out []symmetricDesign
	qs, dims := []int{4, 5, 7, 8}, [][]int{{4, 4}, {6, 6}, {5, 3}, {8, 4}}
	if testing.Short() {
		qs, dims = qs[:2], dims[:2]
	}
	for _, q := range qs {
		out = append(out, symmetricDesign{fmt.Sprintf("q=%d", q), builtSlimFly(t, q)})
	}
	for _, d := range dims {
		f, err := hyperx.Build(hyperx.Params{Dims: d})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, symmetricDesign{fmt.Sprintf("hyperx %dx%d", d[0], d[1]), f})
	}
	return out
}

// translationsOf returns the group the routing of the Slim Fly or HyperX
// whose switch graph adj is promises to be invariant under, as
// permutations of adj's vertices (nil for none): a Slim Fly's shears from
// q = 7 on (slimfly.Shears), its translations below, or the grid's
// translations carried over by hyperx.Match's map.
func translationsOf(adj [][]int32) [][]int32 {
	if q := slimfly.QOf(len(adj)); q >= 7 {
		if sh := slimfly.Shears(adj, slimfly.TranslationBudget); sh != nil {
			return sh
		}
	}
	if tr := slimfly.Translations(adj, slimfly.TranslationBudget); tr != nil {
		return tr
	}
	dims, phi := hyperx.Match(adj)
	if phi == nil {
		return nil
	}
	inv := make([]int32, len(phi))
	for v, x := range phi {
		inv[x] = int32(v)
	}
	var out [][]int32
	for _, p := range hyperx.DesignTranslations(dims, len(adj)) {
		img := make([]int32, len(p))
		for v := range adj {
			img[v] = inv[p[phi[v]]]
		}
		out = append(out, img)
	}
	return out
}

// builtSlimFly returns the Slim Fly of q as slimfly.Build makes it.
func builtSlimFly(t *testing.T, q int) *fabric.Fabric {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: q})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// disguised returns f as disguise.Fabric makes it.
func disguised(t *testing.T, f *fabric.Fabric, rng *rand.Rand) *fabric.Fabric {
	t.Helper()
	g, err := disguise.Fabric(f, rng)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
