package analysis

import (
	"strings"
	"testing"

	"slimroute/layers"
	"slimroute/slimfly"
)

// Every disjoint-path figure of slimroute's routing on Slim Fly q = 5 and
// q = 7 lies under its ceiling: pair by pair, the disjoint layer paths of
// an allowed length never outnumber what the graph allows (the brute force
// on q = 5, the flow ceiling — itself checked against the brute force — on
// q = 7), and the report's counts, classes and short pairs are those the
// pairs give. On q = 7 the ceiling lets every pair have 3; slimroute's
// share is logged as a fraction of it. Analysed with bounds narrower than
// the routing's (2 hops only), longer paths do not count.
func TestDisjointFiguresStayUnderTheCeiling(t *testing.T) {
	for _, c := range []struct {
		q      int
		bounds layers.Bounds // zero: the routing's
	}{{5, layers.Bounds{}}, {7, layers.Bounds{}}, {5, layers.Bounds{Min: 2, Max: 2}}} {
		q := c.q
		f, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		r, err := layers.Compute(f, layers.Options{Layers: 4, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		tab := program(t, r)
		b := r.Bounds
		if c.bounds != (layers.Bounds{}) {
			b = c.bounds
		}
		rep, err := Analyze(tab, Options{Permutations: 1, Bounds: b, ListShort: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		ce := rep.Ceiling
		if ce == nil {
			t.Fatalf("q=%d: no ceiling: %s", q, rep.CeilingError)
		}
		v, err := newView(tab, 4)
		if err != nil {
			t.Fatal(err)
		}
		want := tallyPairs(t, v, b, q == 5)
		for n := 0; n <= 4; n++ {
			if ce.Possible[n] != want.possible[n] || ce.Achieved[n] != want.achieved[n] {
				t.Errorf("q=%d ≥%d: report %d achieved of %d possible, pairs give %d of %d", q, n, ce.Achieved[n], ce.Possible[n], want.achieved[n], want.possible[n])
			}
			if ce.Achieved[n] > rep.Disjoint[n] {
				t.Errorf("q=%d ≥%d: %d in bounds but %d over all lengths", q, n, ce.Achieved[n], rep.Disjoint[n])
			}
		}
		short := 0
		for _, cl := range ce.Classes {
			short += cl.Short
			if cl.Pairs != want.classPairs[cl.Distance] || cl.Short != want.classShort[cl.Distance] {
				t.Errorf("q=%d %s: %d pairs %d short, pairs give %d and %d", q, cl.Name, cl.Pairs, cl.Short, want.classPairs[cl.Distance], want.classShort[cl.Distance])
			}
		}
		if short != ce.Short || ce.Short != want.short || len(ce.ShortPairs) != want.short {
			t.Errorf("q=%d: %d short (classes %d, listed %d), pairs give %d", q, ce.Short, short, len(ce.ShortPairs), want.short)
		}
		for _, p := range ce.ShortPairs {
			if p.Achieved >= p.Ceiling || !strings.HasPrefix(p.Source, "sw-") {
				t.Fatalf("q=%d: listed %+v", q, p)
			}
		}
		if q == 7 && ce.Possible[3] != rep.Pairs { // 100 % in issue 15's table
			t.Errorf("q=7: the ceiling allows 3 disjoint paths for %d of %d pairs; every pair has 3 within 3 hops", ce.Possible[3], rep.Pairs)
		}
		t.Logf("q=%d %s: ≥3 disjoint for %.1f %% of pairs, the ceiling allows %.1f %%: %.1f %% of it; short of min(4, ceiling): %d pairs",
			q, ce.Bounds, 100*float64(ce.Achieved[3])/float64(rep.Pairs), 100*float64(ce.Possible[3])/float64(rep.Pairs), 100*float64(ce.Achieved[3])/float64(ce.Possible[3]), ce.Short)
	}
}

type pairTally struct {
	possible, achieved     [5]int
	classPairs, classShort map[int]int
	short                  int
}

// tallyPairs walks every pair's layer paths and counts them against a
// ceiling computed on its own (the brute force when brute is set).
func tallyPairs(t *testing.T, v *view, b layers.Bounds, brute bool) pairTally {
	t.Helper()
	S := v.NumSwitches()
	c, err := computeCeilings(v.v, b, 255, nil)
	if err != nil {
		t.Fatal(err)
	}
	own := pairTally{classPairs: map[int]int{}, classShort: map[int]int{}}
	w := walker{t: v, S: S}
	ceil := map[[2]int]int{}
	for s := 0; s < S; s++ {
		if len(v.v.Endpoints[s]) == 0 {
			continue
		}
		for d := 0; d < v.NumEndpoints(); d++ {
			_, u := v.Endpoint(d)
			if u == s {
				continue
			}
			dist := int(c.dist[s*S+u])
			n, ok := ceil[[2]int{s, u}]
			if !ok {
				n = int(c.value[s*S+u])
				if brute {
					n = bruteCeiling(v.v, s, u, dist, b)
				}
				ceil[[2]int{s, u}] = n
			}
			var within [][]int
			for k := 0; k < 4; k++ {
				p, err := w.walk(k, s, d, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(p) == dist || (len(p) >= b.Min && len(p) <= b.Max) {
					within = append(within, p)
				}
			}
			got := maxDisjoint(within)
			if got > n {
				t.Fatalf("%s → %s: %d disjoint paths of allowed length, ceiling %d", v.SwitchName(s), v.f.PortString(v.eps[d]), got, n)
			}
			for i := 0; i <= min(n, 4); i++ {
				own.possible[i]++
			}
			for i := 0; i <= got; i++ {
				own.achieved[i]++
			}
			own.classPairs[dist]++
			if got < min(n, 4) {
				own.short++
				own.classShort[dist]++
			}
		}
	}
	return own
}

// Bounds a routing could not have are refused with the flags that fix them.
func TestAnalyzeRefusesBadBounds(t *testing.T) {
	f := readNet(t, "testdata/small.net")
	r, err := layers.Compute(f, layers.Options{Layers: 4})
	if err != nil {
		t.Fatal(err)
	}
	tab := program(t, r)
	for _, b := range []layers.Bounds{{Min: 3, Max: 2}, {Min: 2}, {Max: 3}, {Min: -1, Max: 2}, {Min: 1, Max: 9}} {
		if _, err := Analyze(tab, Options{Permutations: 1, Bounds: b}); err == nil || !strings.Contains(err.Error(), "min-len") {
			t.Errorf("bounds %+v: error %v", b, err)
		}
	}
}

// Issue 15's yardstick: with 4 layers and the default settings (regrown:
// the zero layers.Options, as the command line and the plugin run)
// the share of (source switch, destination endpoint) pairs with ≥ 3
// link-disjoint paths of an allowed length comes within the 0.5
// points of the share the ceiling allows, computed on the same fabric —
// never against a copied figure; every layer's busiest channel carries at
// most 1.3 × its mean; and against the construction without regrowing
// (the default before it) all-to-all load is no higher and random
// permutations (100, the same for both) no more than 1 % higher — the
// sampling noise of 100 permutations: with 200 the regrown layers load
// less on all of these, and 0.6 % more on q = 11 with seed 3
// (docs/quality.md). Slim Fly q = 5, 7 (seeds 1 and 2), 8, 9, 11 and 13;
// q = 8 … 13 without -short. Without regrowing, q = 7 and 11 stayed 1.7
// and 1.05 points under the ceiling.
func TestLayersComeWithinReachOfTheCeiling(t *testing.T) {
	for _, c := range []struct {
		q    int
		seed uint64
	}{{4, 1}, {5, 1}, {7, 1}, {7, 2}, {8, 1}, {9, 1}, {11, 1}, {13, 1}, {16, 1}} {
		if testing.Short() && c.q > 7 {
			continue
		}
		o := layers.Options{Layers: 4, Seed: c.seed, Workers: 2, NoRegrow: true}
		before, _, _ := slimFlyAgainstCeiling(t, c.q, o, 100)
		o.NoRegrow = false
		rep, achieved, possible := slimFlyAgainstCeiling(t, c.q, o, 100)
		t.Logf("q=%d seed %d: ≥3 disjoint %.2f %% of pairs, ceiling %.2f %%", c.q, c.seed, achieved, possible)
		if achieved < possible-0.5 {
			t.Errorf("q=%d seed %d: ≥3 disjoint for %.2f %% of pairs, %.2f points under the ceiling's %.2f %%", c.q, c.seed, achieved, possible-achieved, possible)
		}
		for _, e := range rep.EFI {
			if e.Max > 1.3*e.Mean {
				t.Errorf("q=%d seed %d layer %d: busiest channel %.0f routes, %.3f × the mean %.0f (allowed: 1.3)", c.q, c.seed, e.Layer, e.Max, e.Max/e.Mean, e.Mean)
			}
		}
		for _, p := range []struct {
			name  string
			slack float64
		}{{"all-to-all", 1}, {"random permutations", 1.01}} {
			d, r := patternLoad(t, before, p.name), patternLoad(t, rep, p.name)
			t.Logf("%s: %.3f, without regrowing %.3f", p.name, r, d)
			if r > p.slack*d {
				t.Errorf("q=%d seed %d: %s load %.3f, without regrowing %.3f (allowed: × %.2f)", c.q, c.seed, p.name, r, d, p.slack)
			}
		}
	}
}

// patternLoad returns the mean of the busiest channel's load under the
// named traffic pattern of rep.
func patternLoad(t *testing.T, rep *Report, name string) float64 {
	t.Helper()
	for _, p := range rep.Patterns {
		if p.Name == name {
			return p.MeanMaxLoad
		}
	}
	t.Fatalf("no pattern %q in the report", name)
	return 0
}

// slimFlyAgainstCeiling routes Slim Fly q with o and analyses it (with
// perms random permutations): the report and the shares of pairs with
// three disjoint paths achieved and allowed by the ceiling, in per cent.
func slimFlyAgainstCeiling(t *testing.T, q int, o layers.Options, perms int) (rep *Report, achieved, possible float64) {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: q})
	if err != nil {
		t.Fatal(err)
	}
	r, err := layers.Compute(f, o)
	if err != nil {
		t.Fatal(err)
	}
	rep, err = Analyze(program(t, r), Options{Permutations: perms, Seed: 1, Bounds: r.Bounds})
	if err != nil {
		t.Fatal(err)
	}
	ce := rep.Ceiling
	if ce == nil {
		t.Fatalf("q=%d: no ceiling: %s", q, rep.CeilingError)
	}
	return rep, 100 * float64(ce.Achieved[3]) / float64(rep.Pairs), 100 * float64(ce.Possible[3]) / float64(rep.Pairs)
}
