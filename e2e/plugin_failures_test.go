package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"slimroute/fabric"
	"slimroute/internal/ibsimtest"
	"slimroute/pipeline"
)

// TestPluginRoutesOnFourVLsAsCablesFail runs the plugin inside OpenSM on
// the simulated q=7 Slim Fly with 4 VLs (LMC 2, QoS on, vls = 4, deadlock
// auto) and unplugs cables one after another through ibsim's console.
// After each re-sweep the plugin must have programmed tables (not left
// OpenSM to a fallback): ibroute on every switch equals the tables the
// pipeline predicts offline for the damaged fabric, the SL2VL tables read
// back from the switches at the failed cable's ends and three others
// equal ours (reading all 98 switches' tables takes minutes; the full
// read-back is TestPluginProgramsOurRouting's), at most 4 VLs are in use,
// and our verifier finds OpenSM's dump with our SLs and SL2VL
// deadlock-free.
func TestPluginRoutesOnFourVLsAsCablesFail(t *testing.T) {
	ibsimtest.Require(t, "opensm", "ibroute", "smpquery")
	plugin := buildPlugin(t)
	rt := routeCase(t, caseQ7, "auto")
	sim := ibsimtest.StartWithConsole(t, rt.net, ibsimtest.LimitsFor(rt.f)...)
	settings := filepath.Join(sim.Dir, "slimroute.toml")
	os.WriteFile(settings, []byte("layers = 4\ndeadlock = \"auto\"\nvls = 4\nseed = 1\n"), 0o644)
	g2l, _ := os.ReadFile(filepath.Join(rt.dir, "guid2lid"))
	sm := sim.StartOpenSM(t, ibsimtest.SMOptions{
		Config:   fmt.Sprintf("event_plugin_name slimroute\nevent_plugin_options %s\nrouting_engine slimroute\nlmc 2\nqos TRUE\nforce_log_flush TRUE\n", settings),
		GUID2LID: g2l,
		Env:      []string{"LD_LIBRARY_PATH=" + plugin},
	})
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
		want, err := pipeline.Run(broken, pipeline.Config{Layers: 4, Deadlock: "auto", VLs: 4, Seed: 1, LMC: -1, Workers: 2})
		if err != nil {
			t.Fatalf("after %d failed cables the pipeline cannot route on 4 VLs: %v", step, err)
		}
		sim.Console(t, fmt.Sprintf("Unlink %q[%d]", rt.f.Node(l.A.Node).Name, l.A.Port))
		waitForSweep(t, sm, step+1)
		rt2 := &routed{f: broken, r: want.Routing, a: want.Assignment, tab: want.Tables}
		checkIBRoute(t, sim, rt2)
		a, _ := broken.NodeByName(rt.f.Node(l.A.Node).Name)
		b, _ := broken.NodeByName(rt.f.Node(l.B.Node).Name)
		sample := []fabric.NodeID{a, b}
		sws := rt2.tab.Switches()
		for i := 0; i < 3; i++ {
			sample = append(sample, sws[rng.IntN(len(sws))])
		}
		readSL2VLOf(t, sim, rt2, sample)
		rep := verifyDump(t, rt2, sm.Dir, "")
		if want.Assignment.VLs > 4 || rep.VLs > 4 {
			t.Fatalf("after %d failed cables: %d VLs (verifier: %d)", step, want.Assignment.VLs, rep.VLs)
		}
		t.Logf("cable %s failed (%d down): the plugin's tables as predicted on every switch (scheme %s, %d VLs, %d SLs, %d routes of more than 3 hops); SL2VL of 5 switches read back as ours; OpenSM's dump verified acyclic over %d paths",
			rt.f.PortString(l.A), step, want.Assignment.Scheme, want.Assignment.VLs, want.Assignment.SLs, want.Assignment.LongRoutes, rep.Walks)
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
