package pipeline

import (
	"errors"
	"strings"
	"testing"

	"slimroute/analysis"
	"slimroute/deadlock"
	"slimroute/dragonflyplus"
	"slimroute/layers"
	"slimroute/lft"
)

// TestDragonflyPlusFallsBackWhenItsValiantLayersGetNoVLs: when the VL
// assignment refuses a Dragonfly+'s Valiant layers (as it does past 16
// SLs on a large one), routeAndAssign routes the fabric again as any
// other (minimal to minimal + 1 hops) and says so; other refusals stand,
// and an accepted Valiant routing is kept.
func TestDragonflyPlusFallsBackWhenItsValiantLayersGetNoVLs(t *testing.T) {
	f, err := dragonflyplus.Build(dragonflyplus.Params{Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	opts := Config{Layers: 4, Seed: 1, LMC: -1}.layersOptions()
	refuseValiant := func(r *layers.Routing) (*deadlock.Assignment, error) {
		if _, _, ok := r.DragonflyPlus(); ok {
			return nil, errors.New("17 SLs")
		}
		return deadlock.AssignAuto(r, deadlock.Options{})
	}
	r, a, plain, err := routeAndAssign(f, opts, refuseValiant, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := r.DragonflyPlus(); ok || r.Bounds != (layers.Bounds{PerPair: true}) || a == nil || !strings.Contains(plain, "17 SLs") {
		t.Fatalf("after a refusal: Valiant %v, bounds %v, note %q", ok, r.Bounds, plain)
	}
	r, _, plain, err = routeAndAssign(f, opts, func(r *layers.Routing) (*deadlock.Assignment, error) {
		return deadlock.AssignAuto(r, deadlock.Options{})
	}, func(string) {})
	if _, _, ok := r.DragonflyPlus(); err != nil || !ok || plain != "" {
		t.Fatalf("accepted: err %v, Valiant %v, note %q", err, ok, plain)
	}
	_, _, _, err = routeAndAssign(f, opts, func(*layers.Routing) (*deadlock.Assignment, error) { return nil, errors.New("never") }, func(string) {})
	if err == nil || err.Error() != "never" {
		t.Fatalf("a refusal of both routings: %v", err)
	}
}

// TestDragonflyPlusWithParallelGlobalCables: on Dragonfly+ shapes whose
// groups share 2 to 4 global cables each (fewer groups than the builder's
// most), the routing group pair by group pair keeps at least as many
// pairs with three disjoint paths of 2 to 6 hops as the general search
// (minimal to minimal + 1 hops) and loads random permutations at most
// 10 % more: a group's layers take the parallel cables straight before
// any detour (dfCandidates). Without them it loaded up to a third more.
func TestDragonflyPlusWithParallelGlobalCables(t *testing.T) {
	for _, p := range []dragonflyplus.Params{
		{Radix: 16, Groups: 5, Leaves: 4, Spines: 4, Global: 2, Endpoints: 4}, // 2 between two groups
		{Radix: 16, Groups: 9, Leaves: 4, Spines: 4, Global: 4, Endpoints: 4}, // 2
		{Radix: 16, Groups: 4, Leaves: 3, Spines: 3, Global: 2, Endpoints: 3}, // 2
		{Radix: 16, Groups: 5, Leaves: 6, Spines: 6, Global: 2, Endpoints: 6}, // 3
		{Radix: 16, Groups: 3, Leaves: 4, Spines: 4, Global: 2, Endpoints: 4}, // 4
		{Radix: 16, Groups: 5, Leaves: 4, Spines: 4, Global: 4, Endpoints: 4}, // 4
	} {
		f, err := dragonflyplus.Build(p)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Layers: 4, VLs: 4, Seed: 1, LMC: -1, Workers: 2}
		lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: 2})
		if err != nil {
			t.Fatal(err)
		}
		tables := func(noValiant bool) *lft.Tables {
			opts := cfg.layersOptions()
			opts.NoValiant = noValiant
			r, a, _, err := routeAndAssign(f, opts, func(r *layers.Routing) (*deadlock.Assignment, error) { return assign(r, cfg) }, func(string) {})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, ok := r.DragonflyPlus(); ok == noValiant {
				t.Fatalf("%+v: routed group pair by group pair: %v", p, ok)
			}
			tab, err := lft.Build(f, lids, r, withSpare(f, a, cfg.VLs), cfg.Workers)
			if err != nil {
				t.Fatal(err)
			}
			return tab
		}
		measure := func(tab *lft.Tables) (d3, perm float64) {
			rep, err := analysis.Analyze(tab, analysis.Options{Permutations: 20, Seed: 1, Workers: 2, Bounds: layers.DragonflyPlusBounds})
			if err != nil {
				t.Fatal(err)
			}
			for _, pl := range rep.Patterns {
				if pl.Name == "random permutations" {
					perm = pl.MeanMaxLoad
				}
			}
			return 100 * float64(rep.Disjoint[3]) / float64(rep.Pairs), perm
		}
		d3, perm := measure(tables(false))
		gd3, gperm := measure(tables(true))
		t.Logf("%+v: group pair by group pair %.1f %% and %.3f, the general search %.1f %% and %.3f", p, d3, perm, gd3, gperm)
		if d3 < gd3 || perm > 1.1*gperm {
			t.Errorf("%+v: %.1f %% and %.3f against the general search's %.1f %% and %.3f", p, d3, perm, gd3, gperm)
		}
	}
}
