package e2e

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"slimroute/fabric"
	"slimroute/internal/ibsimtest"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/repair"
	"slimroute/verify"
)

// TestPluginRoutesOnFourVLsAsCablesFail runs the plugin inside OpenSM on
// the simulated q=7 Slim Fly with 4 VLs (LMC 2, QoS on, vls = 4, deadlock
// auto), unplugs cables one after another through ibsim's console, then
// plugs them back in one after another, and finally asks for a full
// recompute (the settings file edited, SIGHUP). After each re-sweep the
// plugin must have programmed tables (not left OpenSM to a fallback):
// after a cable fails it repairs its last routing (or, where the repair
// refuses, recomputes), after a cable comes back it repairs too (routes
// whose intact path is whole again return to it), after the settings
// changed it recomputes in full, so ibroute on every switch equals the
// tables the same repair or the pipeline predicts offline, and a repair's count of
// changed entries is the tables' difference; the SL2VL tables read back
// from the switches at the cable's ends and three others equal ours (all
// 98 switches take minutes; TestPluginProgramsOurRouting reads them all),
// at most 4 VLs are in use, and our verifier finds OpenSM's dump with our
// SLs and SL2VL deadlock-free. With every cable back, every switch's LFT
// as ibroute reads it holds the bytes it held before the first one failed.
func TestPluginRoutesOnFourVLsAsCablesFail(t *testing.T) {
	ibsimtest.Require(t, "opensm", "ibroute", "smpquery")
	begin := time.Now()
	plugin := buildPlugin(t)
	rt := routeCase(t, caseQ7, "auto")
	sim, sm := startWithPlugin(t, plugin, rt, settingsQ7)
	waitForSweep(t, sm, 1)
	intact := checkIBRoute(t, sim, rt)

	// three inter-switch cables, drawn with a fixed seed, one after another
	var inter []int
	for i, l := range rt.f.Links() {
		if rt.f.Node(l.A.Node).Kind == fabric.Switch && rt.f.Node(l.B.Node).Kind == fabric.Switch {
			inter = append(inter, i)
		}
	}
	rng := rand.New(rand.NewPCG(14, 14))
	var failed []int
	last, repairs, sweeps := rt.tab, 0, 1
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
		tab, st, err := repair.Repair(last, broken, repair.Options{Workers: 2, VLs: 4, Base: rt.tab})
		if err != nil {
			t.Logf("after %d failed cables the repair refuses (%v): the plugin recomputes", step, err)
			tab = predictQ7(t, broken).tab
		} else if changed := len(lft.DiffLFTs(last, tab, 1<<30)); changed != st.Changed {
			t.Fatalf("the repair reports %d changed LFT entries, the tables differ in %d", st.Changed, changed)
		}
		sim.Console(t, fmt.Sprintf("Unlink %q[%d]", rt.f.Node(l.A.Node).Name, l.A.Port))
		sweeps++
		waitForSweep(t, sm, sweeps)
		if err == nil {
			repairs++
		}
		if n := strings.Count(sm.Log(), "repaired the last routing"); n != repairs {
			t.Fatalf("the plugin repaired %d times, want %d:\n%s", n, repairs, sm.Log())
		}
		rt2 := &routed{f: broken, tab: tab}
		last = tab
		_, rep := checkProgrammed(t, sim, sm, rt2, rt.f, l, rng)
		how := "recomputed"
		if err == nil {
			how = fmt.Sprintf("repaired: %d entries crossed it, %d changed, %d routes on spare SLs %v", st.Crossed, st.Changed, st.Escaped, st.Spares)
		}
		t.Logf("cable %s failed (%d down): the plugin's tables as predicted on every switch (%s; %s); SL2VL of 5 switches read back as ours; OpenSM's dump verified acyclic over %d paths on %d VLs (%.0f s)",
			rt.f.PortString(l.A), step, how, lastSent(sm.Log()), rep.Walks, rep.VLs, time.Since(begin).Seconds())
	}

	// the cables come back in the order they failed: the plugin repairs
	// its last routing, each route whose intact path is whole again
	// returning to it, as the same repair predicts offline
	var programmed string
	for i, li := range failed {
		l := rt.f.Links()[li]
		now, err := rt.f.Without(nil, failed[i+1:])
		if err != nil {
			t.Fatal(err)
		}
		tab, st, err := repair.Repair(last, now, repair.Options{Workers: 2, VLs: 4, Base: rt.tab})
		if err != nil {
			t.Fatalf("the repair refuses a cable back: %v", err)
		}
		sim.Console(t, fmt.Sprintf("ReLink %q[%d]", rt.f.Node(l.A.Node).Name, l.A.Port))
		sweeps++
		repairs++
		waitForSweep(t, sm, sweeps)
		if n := strings.Count(sm.Log(), "repaired the last routing"); n != repairs {
			t.Fatalf("after %d cables came back the plugin repaired %d times, want %d:\n%s", i+1, n, repairs, sm.Log())
		}
		var rep *verify.Report
		programmed, rep = checkProgrammed(t, sim, sm, &routed{f: now, tab: tab}, rt.f, l, rng)
		last = tab
		t.Logf("cable %s back (%d down): repaired, %d entries back to the intact routing's, %d changed, %s; the predicted tables on every switch; SL2VL of 5 switches read back as ours; OpenSM's dump verified acyclic over %d paths on %d VLs (%.0f s)",
			rt.f.PortString(l.A), len(failed)-i-1, st.Restored, st.Changed, lastSent(sm.Log()), rep.Walks, rep.VLs, time.Since(begin).Seconds())
	}
	if d := sameLFTBytes(t, rt.f, intact, programmed); d != "" {
		t.Fatalf("with every cable back, ibroute shows other tables than before the first cable failed: %s", d)
	}

	// a full recompute on request: edit the settings file, SIGHUP OpenSM
	settings := filepath.Join(sim.Dir, "slimroute.toml")
	if err := os.WriteFile(settings, []byte(settingsQ7+"# recompute 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(sm.PID(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	sweeps++
	waitForSweep(t, sm, sweeps)
	if !strings.Contains(sm.Log(), "the settings file "+settings+" changed since the last routing; recomputing in full") {
		t.Fatalf("after the settings file changed and SIGHUP, OpenSM's log does not say the plugin recomputed for it:\n%s", sm.Log())
	}
	// the tables are the same, so OpenSM sends nothing: its dump of what
	// it holds is the proof, without querying every switch again
	if d := lft.DiffLFTs(rt.tab, readDump(t, rt, sm.Dir), 10); len(d) > 0 {
		t.Fatalf("the recompute on request changed the intact fabric's tables:\n%s", strings.Join(d, "\n"))
	}
	t.Logf("settings file edited, SIGHUP: the plugin recomputed in full; OpenSM's dump holds the same tables (%.0f s in all)", time.Since(begin).Seconds())
}

// settingsQ7 is the plugin's settings file in TestPluginRoutesOnFourVLsAsCablesFail.
const settingsQ7 = "layers = 4\ndeadlock = \"auto\"\nvls = 4\nseed = 1\n"

// predictQ7 is what the plugin computes in full for fabric f with settingsQ7.
// lastSent is what the plugin's last repair said OpenSM sends ("to send:
// N LFT blocks, M SL2VL tables"), from OpenSM's log.
func lastSent(log string) string {
	i := strings.LastIndex(log, "to send: ")
	if i < 0 {
		return "nothing to send logged"
	}
	end := strings.Index(log[i:], ";")
	if end < 0 {
		return log[i:]
	}
	return log[i : i+end]
}

func predictQ7(t *testing.T, f *fabric.Fabric) *routed {
	t.Helper()
	res, err := pipeline.Run(f, pipeline.Config{Layers: 4, Deadlock: "auto", VLs: 4, Seed: 1, LMC: -1, Workers: 2})
	if err != nil {
		t.Fatalf("the pipeline cannot route on 4 VLs: %v", err)
	}
	return &routed{f: f, r: res.Routing, a: res.Assignment, tab: res.Tables}
}

// checkProgrammed requires what OpenSM holds after a sweep to be rt's:
// ibroute on every switch, the SL2VL tables of the ends of cable l (of
// fabric full) and of three switches drawn by rng and of an HCA port on
// each of them, and our verifier on
// OpenSM's dump with at most 4 VLs. It returns ibroute's output and the
// verifier's report.
func checkProgrammed(t *testing.T, sim *ibsimtest.Sim, sm *ibsimtest.SM, rt *routed, full *fabric.Fabric, l fabric.Link, rng *rand.Rand) (string, *verify.Report) {
	t.Helper()
	text := checkIBRoute(t, sim, rt)
	a, _ := rt.f.NodeByName(full.Name(l.A.Node))
	b, _ := rt.f.NodeByName(full.Name(l.B.Node))
	sample := []fabric.NodeID{a, b}
	sws := rt.tab.Switches()
	for i := 0; i < 3; i++ {
		sample = append(sample, sws[rng.IntN(len(sws))])
	}
	readSL2VLOf(t, sim, rt, sample)
	readCASL2VL(t, sim, rt, hcaSample(rt, sample))
	rep := verifyDump(t, rt, sm.Dir, "")
	if rep.VLs > 4 {
		t.Fatalf("%d VLs in use", rep.VLs)
	}
	return text, rep
}

// sameLFTBytes compares two readings of ibroute on every switch of f
// (before and after): "" when every switch's LFT holds the same bytes,
// else the first difference. ibroute's notes on each destination (the
// node it queried for the name) are not compared: a query that timed out
// prints "unknown node", whatever the table holds.
func sameLFTBytes(t *testing.T, f *fabric.Fabric, before, after string) string {
	t.Helper()
	a, err := lft.ReadIBRoute(strings.NewReader(before), "ibroute before", f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := lft.ReadIBRoute(strings.NewReader(after), "ibroute after", f)
	if err != nil {
		t.Fatal(err)
	}
	for _, sw := range a.SortedSwitches() {
		if x, y := a.LFT(sw), b.LFT(sw); !bytes.Equal(x, y) {
			return fmt.Sprintf("%s: %d LIDs before, %d after, first difference at LID 0x%04x", f.Name(sw), len(x), len(y), firstByteDiff(x, y))
		}
	}
	return ""
}

func firstByteDiff(x, y []byte) int {
	for i := range min(len(x), len(y)) {
		if x[i] != y[i] {
			return i
		}
	}
	return min(len(x), len(y))
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
