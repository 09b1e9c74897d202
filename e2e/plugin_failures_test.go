package e2e

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/internal/ibsimtest"
	"slimroute/lft"
	"slimroute/repair"
	"slimroute/verify"
)

// TestPluginRoutesOnFourVLsAsCablesFail runs the plugin inside OpenSM on
// the simulated q=7 Slim Fly with 4 VLs (LMC 2, QoS on, vls = 4, deadlock
// auto), unplugs five cables one after another and then a switch through
// ibsim's console, plugs them back in one after another (the switch
// first), and finally asks for a full recompute (the settings file edited,
// SIGHUP). Every sweep after a change must be a repair of the plugin's
// last routing (routes whose intact path is whole again returning to it),
// so OpenSM's dump of every switch's LFT (and, after the switch went
// down and with everything back, ibroute on every switch) equals the
// tables the same repair (mending, as the plugin does by default)
// predicts offline, a repair's count of changed entries is the tables'
// difference, and what OpenSM sends (LFT blocks, SL2VL tables) is logged
// per sweep;
// the SL2VL tables read back from switches near the change and three
// others equal ours (all 98 switches take minutes; TestPluginProgramsOurRouting
// reads them all), at most 4 VLs are in use, and our verifier finds
// OpenSM's dump with our SLs and SL2VL deadlock-free. With everything
// back, every switch's LFT as ibroute reads it holds the bytes it held
// before the first cable failed; after the settings changed the plugin
// recomputes in full, to the same tables. (ibroute on all 98 switches
// after each of the 12 sweeps took most of the test's 3 to 5 minutes.)
func TestPluginRoutesOnFourVLsAsCablesFail(t *testing.T) {
	ibsimtest.Require(t, "opensm", "ibroute", "smpquery")
	t.Parallel() // (its own ibsim and OpenSM; overlaps the other long e2e tests)
	begin := time.Now()
	plugin := buildPlugin(t)
	rt := routeCase(t, caseQ7, "auto")
	sim, sm := startWithPlugin(t, plugin, rt, settingsQ7)
	waitForSweep(t, sm, 1)
	intact := checkIBRoute(t, sim, rt)
	rng := rand.New(rand.NewPCG(14, 14))
	outs := drawOutages(rt.f, rng, 5)
	last, sweeps := rt.tab, 1
	for i := range outs {
		down := outs[:i+1]
		now := withoutOutages(t, rt.f, down)
		tab, st, err := repair.Repair(last, now, repair.Options{Workers: 2, VLs: 4, Base: rt.tab, Mend: true})
		if err != nil {
			t.Fatalf("after %s the repair refuses (%v): the plugin would recompute", outs[i].name(rt.f), err)
		}
		if changed := len(lft.DiffLFTs(last, tab, 1<<30)); outs[i].link >= 0 && changed != st.Changed {
			// (a switch takes its own and its HCAs' LIDs with it: every
			// other switch's entries for them are gone, not changed)
			t.Fatalf("the repair reports %d changed LFT entries, the tables differ in %d", st.Changed, changed)
		}
		sim.Console(t, "Unlink "+outs[i].console(rt.f))
		sweeps++
		waitForSweep(t, sm, sweeps)
		requireRepairs(t, sm, sweeps-1)
		rep := checkChanged(t, sim, sm, &routed{f: now, tab: tab}, outs[i].link < 0, outs[i].near(rt.f, now), rng)
		last = tab
		t.Logf("%s down (%d down): repaired as predicted on every switch (%d entries crossed it, %d changed, %d path SLs, %d routes on spare SLs %v; %s); SL2VL read back as ours; OpenSM's dump acyclic over %d paths on %d VLs (%.0f s)",
			outs[i].name(rt.f), i+1, st.Crossed, st.Changed, st.PathSLs, st.Escaped, st.Spares, lastSent(sm.Log()), rep.Walks, rep.VLs, time.Since(begin).Seconds())
	}

	// everything comes back, the switch first, then the cables in the
	// order they failed: each a repair, routes whose intact path is whole
	// again returning to it, as the same repair predicts offline
	back := append([]outage{outs[len(outs)-1]}, outs[:len(outs)-1]...)
	var programmed string
	for i := range back {
		now := withoutOutages(t, rt.f, back[i+1:])
		tab, st, err := repair.Repair(last, now, repair.Options{Workers: 2, VLs: 4, Base: rt.tab, Mend: true})
		if err != nil {
			t.Fatalf("the repair refuses %s back: %v", back[i].name(rt.f), err)
		}
		sim.Console(t, "ReLink "+back[i].console(rt.f))
		sweeps++
		waitForSweep(t, sm, sweeps)
		requireRepairs(t, sm, sweeps-1)
		rt2 := &routed{f: now, tab: tab}
		rep := checkChanged(t, sim, sm, rt2, false, back[i].near(rt.f, now), rng)
		if i == len(back)-1 {
			programmed = checkIBRoute(t, sim, rt2) // every switch, once everything is back
		}
		last = tab
		t.Logf("%s back (%d down): repaired, %d entries back to the intact routing's, %d changed, %s; the predicted tables on every switch; SL2VL read back as ours; OpenSM's dump acyclic over %d paths on %d VLs (%.0f s)",
			back[i].name(rt.f), len(back)-i-1, st.Restored, st.Changed, lastSent(sm.Log()), rep.Walks, rep.VLs, time.Since(begin).Seconds())
	}
	if d := sameLFTBytes(t, rt.f, intact, programmed); d != "" {
		t.Fatalf("with everything back, ibroute shows other tables than before the first cable failed: %s", d)
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
	// only a comment changed and every cable is back: the layers routed
	// at the first sweep's discovery serve this recompute too
	if n := strings.Count(sm.Log(), "layers routed at discovery"); n != 2 {
		t.Errorf("OpenSM's log says %d times that the layers routed at discovery served, want 2 (the first sweep and the recompute)", n)
	}
	// the tables are the same, so OpenSM sends nothing: its dump of what
	// it holds is the proof, without querying every switch again
	if d := lft.DiffLFTs(rt.tab, readDump(t, rt, sm.Dir), 10); len(d) > 0 {
		t.Fatalf("the recompute on request changed the intact fabric's tables:\n%s", strings.Join(d, "\n"))
	}
	t.Logf("settings file edited, SIGHUP: the plugin recomputed in full; OpenSM's dump holds the same tables (%.0f s in all)", time.Since(begin).Seconds())
}

// outage is a cable (link ≥ 0, an index into the fabric's links) or a
// switch (with its HCAs' cables) that goes down.
type outage struct {
	link int
	sw   fabric.NodeID
}

// drawOutages draws cables distinct inter-switch cables of f, then a
// switch at the end of none of them.
func drawOutages(f *fabric.Fabric, rng *rand.Rand, cables int) []outage {
	inter := failures.InterSwitch(f)
	var outs []outage
	ends := map[fabric.NodeID]bool{}
	for _, i := range rng.Perm(len(inter))[:cables] {
		l := f.Links()[inter[i]]
		outs = append(outs, outage{link: inter[i]})
		ends[l.A.Node], ends[l.B.Node] = true, true
	}
	sws := f.IDsOf(fabric.Switch)
	for _, i := range rng.Perm(len(sws)) {
		if !ends[sws[i]] {
			return append(outs, outage{link: -1, sw: sws[i]})
		}
	}
	return outs
}

// name says what goes down.
func (o outage) name(f *fabric.Fabric) string {
	if o.link >= 0 {
		return "cable " + f.PortString(f.Links()[o.link].A)
	}
	return "switch " + f.Name(o.sw)
}

// console names it for ibsim's Unlink and ReLink.
func (o outage) console(f *fabric.Fabric) string {
	if o.link >= 0 {
		a := f.Links()[o.link].A
		return fmt.Sprintf("%q[%d]", f.Name(a.Node), a.Port)
	}
	return fmt.Sprintf("%q", f.Name(o.sw))
}

// near lists switches of now next to the outage, for the SL2VL read-back.
func (o outage) near(f, now *fabric.Fabric) []fabric.NodeID {
	var ends []fabric.PortRef
	if o.link >= 0 {
		l := f.Links()[o.link]
		ends = []fabric.PortRef{l.A, l.B}
	} else {
		for p := 1; p <= f.Ports(o.sw) && len(ends) < 2; p++ {
			if peer, ok := f.Peer(fabric.PortRef{Node: o.sw, Port: p}); ok && f.Kind(peer.Node) == fabric.Switch {
				ends = append(ends, peer)
			}
		}
	}
	var out []fabric.NodeID
	for _, e := range ends {
		if id, ok := now.NodeByName(f.Name(e.Node)); ok {
			out = append(out, id)
		}
	}
	return out
}

// withoutOutages is f with the outages down: their cables, and each
// switch with its HCAs (which OpenSM no longer reaches).
func withoutOutages(t *testing.T, f *fabric.Fabric, outs []outage) *fabric.Fabric {
	t.Helper()
	var nodes []fabric.NodeID
	var links []int
	for _, o := range outs {
		if o.link >= 0 {
			links = append(links, o.link)
			continue
		}
		nodes = append(nodes, o.sw)
		for p := 1; p <= f.Ports(o.sw); p++ {
			if peer, ok := f.Peer(fabric.PortRef{Node: o.sw, Port: p}); ok && f.Kind(peer.Node) != fabric.Switch {
				nodes = append(nodes, peer.Node)
			}
		}
	}
	g, err := f.Without(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// requireRepairs requires OpenSM's log to hold n repairs by the plugin.
func requireRepairs(t *testing.T, sm *ibsimtest.SM, n int) {
	t.Helper()
	if got := strings.Count(sm.Log(), "repaired the last routing"); got != n {
		t.Fatalf("the plugin repaired %d times, want %d:\n%s", got, n, sm.Log())
	}
}

// settingsQ7 is the plugin's settings file in TestPluginRoutesOnFourVLsAsCablesFail.
const settingsQ7 = "layers = 4\ndeadlock = \"auto\"\nvls = 4\nseed = 1\n"

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

// checkChanged requires what OpenSM holds after a repair's sweep to be
// rt's: its dump of every switch's LFT and, when full, ibroute on every
// switch; the SL2VL tables of near and three drawn switches and of an HCA
// port on each; and our verifier on its dump with at most 4 VLs.
func checkChanged(t *testing.T, sim *ibsimtest.Sim, sm *ibsimtest.SM, rt *routed, full bool, near []fabric.NodeID, rng *rand.Rand) *verify.Report {
	t.Helper()
	if d := lft.DiffLFTs(rt.tab, readDump(t, rt, sm.Dir), 10); len(d) > 0 {
		t.Fatalf("OpenSM holds other tables than predicted:\n%s", strings.Join(d, "\n"))
	}
	if full {
		checkIBRoute(t, sim, rt)
	}
	sample := slices.Clone(near)
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
	return rep
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
	waitForLog(t, sm, "slimroute tables configured on all switches", n)
}

// waitForLog waits until OpenSM's log holds line — its routing engine's
// "tables configured" — n times, then SUBNET UP after the last: the end
// of the sweep. It fails when the engine fails and OpenSM falls back to
// another before that, or when OpenSM exits.
func waitForLog(t *testing.T, sm *ibsimtest.SM, line string, n int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		log := sm.Log()
		if strings.Count(log, line) >= n && strings.Contains(log[strings.LastIndex(log, line):], "SUBNET UP") {
			return
		}
		if strings.Contains(log, "falls back to the next engine") && strings.Count(log, line) < n {
			t.Fatalf("the routing engine failed and OpenSM fell back:\n%s", log)
		}
		if time.Now().After(deadline) || !sm.Running() {
			t.Fatalf("OpenSM's log holds %q %d times, want %d:\n%s", line, strings.Count(log, line), n, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
