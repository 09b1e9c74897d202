package repair_test

import (
	"fmt"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/repair"
	"slimroute/slimfly"
)

// TestMendingMovesOnlyToGivePairsPathsBack follows the chains of
// TestChainsOfFailuresRepairEveryStep (seed 1, 4 and 8 VLs) with
// Options.Mend (runChain), and at every step repairs the same tables
// without it too. Judged with stepJudge's walker (no code shared with the
// repair): the mended tables pass the verifier; they differ from the
// unmended ones in exactly Stats.Mended LFT entries, each on a switch
// whose pair with that LID's port got more disjoint routes of at most
// three hops; no pair has fewer; a path SL differs only where its route
// does; on a fabric not designed with diameter 2 (the Clos, the fat tree)
// nothing is mended; a plug-back step mends nothing, and with everything
// back the tables are the intact routing's.
func TestMendingMovesOnlyToGivePairsPathsBack(t *testing.T) {
	for _, cf := range chainFabrics {
		if testing.Short() && !cf.short {
			continue
		}
		for _, vls := range []int{4, 8} {
			t.Run(fmt.Sprintf("%s/vls=%d", cf.name, vls), func(t *testing.T) {
				var last *lft.Tables
				steps, mended, pairs := 0, 0, 0
				base := runChain(t, cf, vls, 1, true, func(t *testing.T, step failures.Step, base, prev, got *lft.Tables, st repair.Stats) {
					steps++
					where := fmt.Sprintf("step %d (%s)", steps, step.Change)
					strict, _, err := repair.Repair(prev, step.Fabric, repair.Options{Workers: 2, VLs: vls, Base: base})
					if err != nil {
						t.Fatalf("%s, without mending: %v", where, err)
					}
					if (step.Back || !cf.diameter2) && st.Mended > 0 {
						t.Fatalf("%s: %d entries mended", where, st.Mended)
					}
					checkVerified(t, got, vls)
					judgeMending(t, where, strict, got, st)
					mended, pairs, last = mended+st.Mended, pairs+st.MendedPairs, got
				})
				sameTables(t, base, last)
				t.Logf("%d steps: %d entries mended for %d pairs", steps, mended, pairs)
			})
		}
	}
}

// judgeMending compares the tables a repair gave with (got) and without
// (strict) mending, on the same fabric.
func judgeMending(t *testing.T, where string, strict, got *lft.Tables, st repair.Stats) {
	t.Helper()
	f := got.Fabric()
	ws, wg := newTableWalk(strict, f), newTableWalk(got, f)
	lids := got.LIDs()
	disjoint := func(w *tableWalk, s fabric.NodeID, pl lft.PortLIDs) int {
		var routes [][]hop
		for lid := pl.Base; lid <= pl.Top(); lid++ {
			if r, ok := w.route(s, lid); ok {
				routes = append(routes, r)
			}
		}
		return disjointAtMost3(routes)
	}
	moved := 0
	for _, s := range got.Switches() {
		a, b := strict.LFT(s), got.LFT(s)
		for _, pl := range lids.Ports() {
			peer, ok := f.Peer(pl.Port)
			if pl.Port.Port == 0 || !ok || peer.Node == s || f.Kind(peer.Node) != fabric.Switch {
				continue
			}
			before, after := disjoint(ws, s, pl), disjoint(wg, s, pl)
			if after < before {
				t.Fatalf("%s: %s to %s: %d disjoint routes mended, %d not", where, f.Name(s), f.PortString(pl.Port), after, before)
			}
			for lid := pl.Base; lid <= pl.Top(); lid++ {
				if a[lid] == b[lid] {
					continue
				}
				moved++
				if after <= before || !hasHCAs(f, s) {
					t.Fatalf("%s: %s's entry for LID 0x%04x moved, its pair with %s has %d disjoint routes, %d before", where, f.Name(s), lid, f.PortString(pl.Port), after, before)
				}
			}
		}
	}
	if moved != st.Mended {
		t.Fatalf("%s: %d entries moved, Stats.Mended %d", where, moved, st.Mended)
	}
	checkMendedSLs(t, where, ws, wg)
}

// checkMendedSLs: a path SL differs between the two walks' tables only
// where the route from the HCA's switch does.
func checkMendedSLs(t *testing.T, where string, ws, wg *tableWalk) {
	t.Helper()
	f, lids := wg.f, wg.tab.LIDs()
	for _, src := range lids.Ports() {
		peer, ok := f.Peer(src.Port)
		if src.Port.Port == 0 || !ok {
			continue
		}
		for _, dst := range lids.Ports() {
			for lid := dst.Base; lid <= dst.Top(); lid++ {
				if ws.tab.PathSL(src.Port, lid) == wg.tab.PathSL(src.Port, lid) {
					continue
				}
				a, _ := ws.route(peer.Node, lid)
				b, _ := wg.route(peer.Node, lid)
				if fmt.Sprint(a) == fmt.Sprint(b) {
					t.Fatalf("%s: the path SL of %s to LID 0x%04x changed, its route did not", where, f.PortString(src.Port), lid)
				}
			}
		}
	}
}

func hasHCAs(f *fabric.Fabric, s fabric.NodeID) bool {
	for p := 1; p <= f.Ports(s); p++ {
		if peer, ok := f.Peer(fabric.PortRef{Node: s, Port: p}); ok && f.Kind(peer.Node) != fabric.Switch {
			return true
		}
	}
	return false
}

// TestMendingOnOtherLayerCounts: Slim Fly q = 5 routed in 1 layer (LMC 0:
// no route of a pair is left that did not break, nothing to mend), 2 and
// 8 layers (LMC 1 and 3), three cables failed (three seeds): the mended
// tables pass the verifier and judgeMending against the unmended ones.
func TestMendingOnOtherLayerCounts(t *testing.T) {
	for _, layers := range []int{1, 2, 8} {
		base := routedLayers(t, 5, layers)
		for seed := uint64(1); seed <= 3; seed++ {
			g := failure(t, base.Fabric(), 3, 0, seed)
			opts := repair.Options{Workers: 2, VLs: 8}
			strict, _, err := repair.Repair(base, g, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.Mend = true
			got, st, err := repair.Repair(base, g, opts)
			if err != nil {
				t.Fatal(err)
			}
			where := fmt.Sprintf("%d layers, seed %d", layers, seed)
			if layers == 1 && st.Mended > 0 {
				t.Fatalf("%s: %d entries mended with one LID per port", where, st.Mended)
			}
			checkVerified(t, got, 8)
			judgeMending(t, where, strict, got, st)
			t.Logf("%s: %d entries mended", where, st.Mended)
		}
	}
}

// routedLayers routes Slim Fly q in the given number of layers on 8 VLs.
func routedLayers(t *testing.T, q, layers int) *lft.Tables {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: q})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(f, pipeline.Config{Layers: layers, VLs: 8, Seed: 1, LMC: -1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return res.Tables
}
