package e2e

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"slimroute/fabric"
	"slimroute/internal/ibsimtest"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/repair"
)

// TestPluginRoutesOnFourVLsAsCablesFail runs the plugin inside OpenSM on
// the simulated q=7 Slim Fly with 4 VLs (LMC 2, QoS on, vls = 4, deadlock
// auto) and unplugs cables one after another through ibsim's console.
// After each re-sweep the plugin must have programmed tables (not left
// OpenSM to a fallback): it repairs its last routing (or, where the
// repair refuses, recomputes), so ibroute on every switch equals the
// tables the same repair (or the pipeline) predicts offline, and the
// repair's count of changed entries is the tables' difference; the SL2VL
// tables read back from the switches at the failed cable's ends and three
// others equal ours (all 98 switches take minutes; TestPluginProgramsOurRouting
// reads them all), at most 4 VLs are in use, and our verifier finds
// OpenSM's dump with our SLs and SL2VL deadlock-free.
func TestPluginRoutesOnFourVLsAsCablesFail(t *testing.T) {
	ibsimtest.Require(t, "opensm", "ibroute", "smpquery")
	plugin := buildPlugin(t)
	rt := routeCase(t, caseQ7, "auto")
	sim, sm := startWithPlugin(t, plugin, rt, "layers = 4\ndeadlock = \"auto\"\nvls = 4\nseed = 1\n")
	waitForSweep(t, sm, 1)
	checkIBRoute(t, sim, rt)

	// three inter-switch cables, drawn with a fixed seed, one after another
	var inter []int
	for i, l := range rt.f.Links() {
		if rt.f.Node(l.A.Node).Kind == fabric.Switch && rt.f.Node(l.B.Node).Kind == fabric.Switch {
			inter = append(inter, i)
		}
	}
	rng := rand.New(rand.NewPCG(14, 14))
	var failed []int
	last, repairs := rt.tab, 0
	for step := 1; step <= 3; step++ {
		li := inter[rng.IntN(len(inter))]
		for contains(failed, li) {
			li = inter[rng.IntN(len(inter))]
		}
		failed = append(failed, li)
		l := rt.f.Links()[li]
		broken, err := rt.f.Without(nil, failed)
		if err != nil {
			t.Fatal(err)
		}
		// the plugin repairs its last routing; where that cannot be done it
		// recomputes, as the pipeline does offline
		tab, st, err := repair.Repair(last, broken, repair.Options{Workers: 2, VLs: 4})
		if err != nil {
			t.Logf("after %d failed cables the repair refuses (%v): the plugin recomputes", step, err)
			want, err := pipeline.Run(broken, pipeline.Config{Layers: 4, Deadlock: "auto", VLs: 4, Seed: 1, LMC: -1, Workers: 2})
			if err != nil {
				t.Fatalf("after %d failed cables the pipeline cannot route on 4 VLs: %v", step, err)
			}
			tab = want.Tables
		} else if changed := len(lft.DiffLFTs(last, tab, 1<<30)); changed != st.Changed {
			t.Fatalf("the repair reports %d changed LFT entries, the tables differ in %d", st.Changed, changed)
		}
		sim.Console(t, fmt.Sprintf("Unlink %q[%d]", rt.f.Node(l.A.Node).Name, l.A.Port))
		waitForSweep(t, sm, step+1)
		if err == nil {
			repairs++
		}
		if n := strings.Count(sm.Log(), "repaired the last routing"); n != repairs {
			t.Fatalf("the plugin repaired %d times, want %d:\n%s", n, repairs, sm.Log())
		}
		rt2 := &routed{f: broken, tab: tab}
		last = tab
		checkIBRoute(t, sim, rt2)
		a, _ := broken.NodeByName(rt.f.Name(l.A.Node))
		b, _ := broken.NodeByName(rt.f.Name(l.B.Node))
		sample := []fabric.NodeID{a, b}
		sws := rt2.tab.Switches()
		for i := 0; i < 3; i++ {
			sample = append(sample, sws[rng.IntN(len(sws))])
		}
		readSL2VLOf(t, sim, rt2, sample)
		rep := verifyDump(t, rt2, sm.Dir, "")
		if rep.VLs > 4 {
			t.Fatalf("after %d failed cables: %d VLs", step, rep.VLs)
		}
		how := "recomputed"
		if err == nil {
			how = fmt.Sprintf("repaired: %d entries crossed it, %d changed, %d routes on spare SLs %v", st.Crossed, st.Changed, st.Escaped, st.Spares)
		}
		t.Logf("cable %s failed (%d down): the plugin's tables as predicted on every switch (%s); SL2VL of 5 switches read back as ours; OpenSM's dump verified acyclic over %d paths on %d VLs",
			rt.f.PortString(l.A), step, how, rep.Walks, rep.VLs)
	}
}

// waitForSweep waits until the plugin has configured tables n times and
// OpenSM has brought the subnet up after the last of them: the end of the
// sweep, not just the plugin's part of it.
func waitForSweep(t *testing.T, sm *ibsimtest.SM, n int) {
	t.Helper()
	const done = "slimroute tables configured on all switches"
	deadline := time.Now().Add(3 * time.Minute)
	for {
		log := sm.Log()
		if strings.Count(log, done) >= n {
			i := strings.LastIndex(log, done)
			if strings.Contains(log[i:], "SUBNET UP") {
				return
			}
		}
		if strings.Contains(log, "falls back to the next engine") && strings.Count(log, done) < n {
			t.Fatalf("the plugin failed and OpenSM fell back:\n%s", log)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sweep %d with the plugin:\n%s", n, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
