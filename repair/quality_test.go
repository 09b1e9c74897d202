package repair_test

import (
	"fmt"
	"os"
	"slimroute/repair"
	"testing"
	"time"

	"slimroute/analysis"
	"slimroute/internal/failures"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

// gap is how many points the share of (source switch, destination
// endpoint) pairs with ≥ 3 link-disjoint paths of an allowed length lies
// under the share the ceiling allows, both on the fabric t was computed
// for (the damaged one after a failure).
func gap(t testing.TB, tab *lft.Tables) (achieved, possible float64) {
	t.Helper()
	rep, err := analysis.Analyze(tab, analysis.Options{Permutations: 1, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ceiling == nil {
		t.Fatalf("no ceiling: %s", rep.CeilingError)
	}
	n := float64(rep.Pairs)
	return 100 * float64(rep.Ceiling.Achieved[3]) / n, 100 * float64(rep.Ceiling.Possible[3]) / n
}

// After cables or switches fail, the share of pairs with ≥ 3 disjoint
// paths after a full recompute falls about as far as the ceiling on the
// damaged fabric falls: the gap under the ceiling grows by at most 1
// point. A repair keeps every entry whose route survived, so a rerouted
// pair joins trees it did not choose; its figures are logged, not held to
// the bound (q = 5 loses up to 8 points with 2 switches gone, q = 7 up to
// 1.6; docs/opensm-plugin.md says how to ask the plugin for a full
// recompute). Seeded draws on q = 5 and 7: 1, 2 and 5 cables, 1 and 2
// switches, 3 seeds.
func TestQualityAfterFailuresFollowsTheCeiling(t *testing.T) {
	for _, q := range []int{5, 7} {
		f, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		cfg := pipeline.Config{Layers: 4, VLs: 4, Seed: 1, LMC: -1, Workers: 2}
		prev := routed(t, q, "", 0, 1) // the intact routing, as cfg routes it
		a0, p0 := gap(t, prev.Tables)
		for _, lv := range [][2]int{{1, 0}, {2, 0}, {5, 0}, {0, 1}, {0, 2}} {
			for seed := uint64(1); seed <= 3; seed++ {
				g := failure(t, f, lv[0], lv[1], seed)
				full, err := pipeline.Run(g, cfg)
				if err != nil {
					t.Fatal(err)
				}
				af, pf := gap(t, full.Tables)
				msg := fmt.Sprintf("q=%d, %d cables and %d switches failed (seed %d): ceiling %.2f → %.2f %%, full recompute %.2f → %.2f %%", q, lv[0], lv[1], seed, p0, pf, a0, af)
				if pf-af > p0-a0+1 {
					t.Errorf("%s: %.2f points further under the ceiling", msg, pf-af-(p0-a0))
				}
				tab, _, err := repair.Repair(prev.Tables, g, repair.Options{Workers: 2, VLs: 4})
				if err != nil {
					t.Logf("%s; repair refused: %v", msg, err)
					continue
				}
				ar, _ := gap(t, tab)
				t.Logf("%s, repair %.2f %% (%.2f points further under the ceiling)", msg, ar, pf-ar-(p0-a0))
			}
		}
	}
}

// TestChainOfRepairsAgainstAFullRecompute follows seeded chains of
// failures on Slim Fly q = 5 and 7, the two-level Clos and the three-level
// fat tree of chainFabrics (4 and 8 VLs, seeds 1 and 2; -short: 4
// VLs, seed 1; cables one at a time up to 5 %, two switches, everything
// back), each step repaired with mending (Options.Mend, as the plugin and
// route --previous run), and at every fourth failure step (on a longer
// chain, about ten of its steps) and the last two compares the repaired
// tables with a full recompute of the same fabric:
// the share of pairs with ≥ 3 disjoint paths is at most 1 point lower
// (issue 28; without mending no repair can keep that:
// TestEachRepairKeepsWhatAnyRepairOfItsStepCould), and the repair
// changes at most a tenth of the entries the recompute would (every
// entry changed moves traffic; no more than it, where the recompute
// routes the fabric as its design and repairs that, pipeline.Completion;
// on the Clos and the fat tree, whose up/down recompute moves few
// entries after a cable, the counts are logged). On the fat tree's DFSSSP
// tables a route that no SL in use fits goes on a DFSSSP layer; before
// such routes were ordered by the channels they share with the pair's
// other routes (as the routes that fit are), its seed-2 chain ended 3.81
// points under the recompute.
// The ceiling, the mean entries changed per step and the time per repair
// are logged (docs/quality.md, "After failures").
func TestChainOfRepairsAgainstAFullRecompute(t *testing.T) {
	seeds, vls := uint64(2), []int{4, 8}
	if testing.Short() {
		seeds, vls = 1, vls[:1]
	}
	for _, cf := range chainFabrics[:4] {
		f, err := cf.build()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vls {
			cfg := pipeline.Config{Layers: 4, VLs: v, Seed: 1, LMC: -1, Workers: 2}
			base, err := pipeline.Run(f, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for seed := uint64(1); seed <= seeds; seed++ {
				chainAgainstRecompute(t, fmt.Sprintf("%s %d VLs seed %d", cf.name, v, seed), base.Tables, cfg, seed, cf.diameter2)
			}
		}
	}
}

// chainAgainstRecompute runs one chain (see
// TestChainOfRepairsAgainstAFullRecompute); the entries a repair changes
// are held against the recompute's on designs of diameter 2 only.
func chainAgainstRecompute(t *testing.T, name string, base *lft.Tables, cfg pipeline.Config, seed uint64, diameter2 bool) {
	steps, err := failures.Chain(base.Fabric(), 0.05, 2, seed)
	if err != nil {
		t.Fatal(err)
	}
	fails := 0
	for _, s := range steps {
		if !s.Back {
			fails++
		}
	}
	every := max(4, fails/8) // about ten steps compared
	cur, changed, back, sls, mended := base, [2]int{}, [2]int{}, 0, 0
	var took time.Duration
	for i, step := range steps {
		got, st, err := repair.Repair(cur, step.Fabric, repair.Options{Workers: 2, VLs: cfg.VLs, Base: base, Clock: time.Now, Mend: true})
		if err != nil {
			t.Fatalf("%s step %d (%s): %v", name, i+1, step.Change, err)
		}
		took += st.Time
		if step.Back {
			back[0], back[1] = back[0]+st.Changed, back[1]+1
		} else {
			changed[0], changed[1] = changed[0]+st.Changed, changed[1]+1
			sls, mended = sls+st.PathSLs, mended+st.Mended
		}
		if !step.Back && (i%every == 0 || i >= fails-2) {
			ar, p := gap(t, got)
			msg := fmt.Sprintf("%s step %d (%s): ceiling %.2f %%, the chain of repairs %.2f %% (%d entries changed, %d mended)", name, i+1, step.Change, p, ar, st.Changed, st.Mended)
			full, err := pipeline.Run(step.Fabric, cfg)
			if err != nil {
				t.Logf("%s; a full recompute does not fit: %v", msg, err)
			} else {
				af, _ := gap(t, full.Tables)
				moved := len(lft.DiffLFTs(cur, full.Tables, 1<<30))
				t.Logf("%s, a full recompute %.2f %% (%d entries changed)", msg, af, moved)
				switch {
				case af-ar > 1:
					t.Errorf("%s: %.2f points under the recompute", msg, af-ar)
				case full.Completed != nil && st.Changed > moved:
					// routed as the design and repaired: as few change
					t.Errorf("%s: the repair changed %d entries, more than a full recompute's %d", msg, st.Changed, moved)
				case diameter2 && full.Completed == nil && st.Changed*10 > moved:
					t.Errorf("%s: the repair changed %d entries, more than a tenth of a full recompute's %d", msg, st.Changed, moved)
				}
			}
		}
		cur = got
	}
	t.Logf("%s: %d failure steps, %d entries (%d mended) and %d path SLs changed per step; %d plug-back steps, %d entries per step; %.1f ms per repair",
		name, changed[1], changed[0]/changed[1], mended/changed[1], sls/changed[1], back[1], back[0]/back[1], float64(took.Microseconds())/1000/float64(len(steps)))
}

// TestChainsKeepUpWithARecomputeAsTheDesign: along seeded chains of
// failures on Slim Fly q = 7 (three seeds) and 9 (one), 4 VLs, at every
// failure step where a full recompute routes the fabric as its design and
// repairs that (pipeline.Completion: up to 1 % of the cables and a
// switch gone), the chain of repairs (mending, as the recompute does)
// keeps at least as many pairs with three disjoint paths of the right
// lengths as that recompute, less 1 point (issue 28). Past that bound the recompute routes the
// fabric as it is (TestChainOfRepairsAgainstAFullRecompute).
func TestChainsKeepUpWithARecomputeAsTheDesign(t *testing.T) {
	if testing.Short() {
		t.Skip("a full recompute per step: 45 s")
	}
	for _, c := range []struct {
		q     int
		seeds uint64
	}{{7, 3}, {9, 1}} {
		cfg := pipeline.Config{Layers: 4, VLs: 4, Seed: 1, LMC: -1, Workers: 2}
		base := routed(t, c.q, "", 0, 1) // the intact routing, as cfg routes it
		f := base.Tables.Fabric()
		for seed := uint64(1); seed <= c.seeds; seed++ {
			steps, err := failures.Chain(f, 0.05, 2, seed)
			if err != nil {
				t.Fatal(err)
			}
			cur, compared, under := base.Tables, 0, -100.0
			for i, step := range steps {
				if step.Back {
					break
				}
				got, _, err := repair.Repair(cur, step.Fabric, repair.Options{Workers: 2, VLs: 4, Base: base.Tables, Mend: true})
				if err != nil {
					t.Fatalf("q=%d seed %d step %d (%s): %v", c.q, seed, i+1, step.Change, err)
				}
				cur = got
				full, err := pipeline.Run(step.Fabric, cfg)
				if err != nil || full.Completed == nil {
					break // past the bound: routed as it is from here on
				}
				a, _ := gap(t, got)
				b, _ := gap(t, full.Tables)
				compared++
				under = max(under, b-a)
				if a < b-1 {
					t.Errorf("q=%d seed %d step %d (%s): the chain %.2f %%, a recompute %.2f %%", c.q, seed, i+1, step.Change, a, b)
				}
			}
			if compared == 0 {
				t.Fatalf("q=%d seed %d: no step recomputed as the design", c.q, seed)
			}
			t.Logf("q=%d seed %d: %d failure steps compared, the chain at most %.2f points under", c.q, seed, compared, under)
		}
	}
}

// TestChainOnQ11AgainstARecompute is TestChainOfRepairsAgainstAFullRecompute
// on Slim Fly q = 11 (4 VLs, seed 1: 102 cables, two switches, about ten
// failure steps compared). A recompute of the damaged q = 11 takes most
// of a minute, so it runs only with SLIMROUTE_LONG=1 (8 minutes on this
// 2-core machine under load); docs/quality.md has its figures.
func TestChainOnQ11AgainstARecompute(t *testing.T) {
	if os.Getenv("SLIMROUTE_LONG") != "1" {
		t.Skip("SLIMROUTE_LONG=1 runs it (8 minutes)")
	}
	f, err := slimfly.Build(slimfly.Params{Q: 11})
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.Config{Layers: 4, VLs: 4, Seed: 1, LMC: -1, Workers: 2}
	base, err := pipeline.Run(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	chainAgainstRecompute(t, "slimfly-q11", base.Tables, cfg, 1, true)
}
