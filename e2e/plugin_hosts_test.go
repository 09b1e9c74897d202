package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/internal/ibsimtest"
	"slimroute/lft"
	"slimroute/osmplugin/engine"
)

// TestPluginRoutesHostsThatComeUpLate starts OpenSM with the plugin on
// the simulated q=5 Slim Fly while a few hosts are down (their cables
// unlinked in ibsim: not yet booted), then links them up one by one. Each
// host coming up must be a repair, not a full recompute: OpenSM's log
// names the host, OpenSM's dump holds every entry toward the LIDs of the
// first sweep as it was and the tables the plugin's engine predicts for
// the new subnet, ibroute on the host's switch forwards its LIDs to its
// port, and `slimroute verify` accepts OpenSM's dumps with the plugin's
// path SLs on the 4 VLs in force. Red with new hosts left to a full
// recompute.
func TestPluginRoutesHostsThatComeUpLate(t *testing.T) {
	ibsimtest.Require(t, "opensm", "ibroute")
	t.Parallel()
	plugin := buildPlugin(t)
	rt := routeCase(t, caseQ5, "auto")
	var before, after *fabric.Fabric
	var back []fabric.NodeID
	// the first draw with two or more hosts coming up and one staying down
	for seed := uint64(1); len(back) < 2 || after.NumNodes() == rt.f.NumNodes(); seed++ {
		var err error
		if before, after, back, err = failures.LateHosts(rt.f, 4, seed); err != nil {
			t.Fatal(err)
		}
	}
	sim := ibsimtest.StartWithConsole(t, rt.net, ibsimtest.LimitsFor(rt.f)...)
	for _, h := range rt.f.IDsOf(fabric.HCA) {
		if _, up := before.NodeByGUID(rt.f.GUID(h)); !up {
			sim.Console(t, fmt.Sprintf("Unlink %q[1]", rt.f.Name(h)))
		}
	}
	g2l, err := os.ReadFile(filepath.Join(rt.dir, "guid2lid"))
	if err != nil {
		t.Fatal(err)
	}
	opts := pluginOptions(t, sim, plugin, settingsQ7)
	opts.GUID2LID = g2l
	sm := sim.StartOpenSM(t, opts)
	waitForSweep(t, sm, 1)
	settings := filepath.Join(sim.Dir, "slimroute.toml")
	predicted, err := engine.Compute(subnetJSON(t, before, rt.tab), settings, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := readDump(t, &routed{f: before}, sm.Dir)
	isUp := map[fabric.GUID]bool{}
	for _, id := range before.IDsOf(fabric.HCA) {
		isUp[before.GUID(id)] = true
	}
	for i, h := range back {
		name := rt.f.Name(h)
		isUp[rt.f.GUID(h)] = true
		var down []fabric.NodeID
		for _, g := range rt.f.IDsOf(fabric.HCA) {
			if !isUp[rt.f.GUID(g)] {
				down = append(down, g)
			}
		}
		up, err := rt.f.Without(down, nil)
		if err != nil {
			t.Fatal(err)
		}
		sim.Console(t, fmt.Sprintf("ReLink %q[1]", name))
		waitForSweep(t, sm, i+2)
		requireRepairs(t, sm, i+1)
		if !strings.Contains(sm.Log(), "HCAs new to the routing or recabled (1): "+name+" (") {
			t.Fatalf("%s up: OpenSM's log does not name it as new:\n%s", name, sm.Log())
		}
		if predicted, err = engine.Compute(subnetJSON(t, up, rt.tab), settings, 2, predicted); err != nil {
			t.Fatal(err)
		}
		now := readDump(t, &routed{f: up}, sm.Dir)
		checkKeptAndPredicted(t, name, first, now, predicted, nil)
		checkHostForwarded(t, sim, rt, up, h)
		checkAuditOf(t, sm, name)
		t.Logf("%s up: repaired (%s); OpenSM holds the predicted tables, every entry toward the first sweep's LIDs as it was; ibroute forwards its LIDs; slimroute verify accepts the dumps", name, lastSent(sm.Log()))
	}
	recableOverTwoSweeps(t, sim, sm, rt, after, first, predicted, len(back)+1)
}

// recableOverTwoSweeps unplugs a host that is up (a sweep: repaired) and
// plugs it into the switch port of a host still down, on another switch
// (the next sweep): a repair naming it, at its LIDs, OpenSM's dump as
// predicted with every other entry of the first sweep as it was, ibroute
// forwarding its LIDs to its new port, slimroute verify on the dumps.
// sweeps is how many sweeps ran before.
func recableOverTwoSweeps(t *testing.T, sim *ibsimtest.Sim, sm *ibsimtest.SM, rt *routed, after *fabric.Fabric, first *lft.Tables, predicted *engine.State, sweeps int) {
	t.Helper()
	var down fabric.NodeID = -1
	for _, g := range rt.f.IDsOf(fabric.HCA) {
		if _, up := after.NodeByGUID(rt.f.GUID(g)); !up {
			down = g
			break
		}
	}
	downAt, _ := rt.f.Peer(fabric.PortRef{Node: down, Port: 1})
	var a fabric.NodeID = -1
	for _, g := range after.IDsOf(fabric.HCA) {
		if at, _ := after.Peer(fabric.PortRef{Node: g, Port: 1}); after.GUID(at.Node) != rt.f.GUID(downAt.Node) {
			a, _ = rt.f.NodeByGUID(after.GUID(g))
			break
		}
	}
	name := rt.f.Name(a)
	settings := filepath.Join(sim.Dir, "slimroute.toml")
	sim.Console(t, fmt.Sprintf("Unlink %q[1]", name))
	waitForSweep(t, sm, sweeps+1)
	requireRepairs(t, sm, sweeps)
	sim.Console(t, fmt.Sprintf("Link %q[%d] %q[1]", rt.f.Name(downAt.Node), downAt.Port, name))
	waitForSweep(t, sm, sweeps+2)
	requireRepairs(t, sm, sweeps+1)
	if !strings.Contains(sm.Log()[strings.LastIndex(sm.Log(), "repaired the last routing"):], "HCAs new to the routing or recabled (1): "+name+" (") {
		t.Fatalf("%s plugged in elsewhere: OpenSM's log does not name it as recabled:\n%s", name, sm.Log())
	}
	swapped, err := failures.SwapHosts(rt.f, a, down) // a on down's port
	if err != nil {
		t.Fatal(err)
	}
	var gone []fabric.NodeID // down, and every host still down
	for _, g := range swapped.IDsOf(fabric.HCA) {
		if _, up := after.NodeByGUID(swapped.GUID(g)); !up {
			gone = append(gone, g)
		}
	}
	moved, err := swapped.Without(gone, nil)
	if err != nil {
		t.Fatal(err)
	}
	if predicted, err = engine.Compute(subnetJSON(t, moved, rt.tab), settings, 2, predicted); err != nil {
		t.Fatal(err)
	}
	own, _ := rt.tab.LIDs().Of(fabric.PortRef{Node: a, Port: 1})
	checkKeptAndPredicted(t, name+" recabled", first, readDump(t, &routed{f: moved}, sm.Dir), predicted, &own)
	ma, _ := moved.NodeByGUID(rt.f.GUID(a))
	checkHostForwarded(t, sim, rt, moved, ma)
	checkAuditOf(t, sm, name)
	t.Logf("%s unplugged, then plugged into %s[%d]: repaired (%s), as predicted, its LIDs forwarded to its new port", name, rt.f.Name(downAt.Node), downAt.Port, lastSent(sm.Log()))
}

// subnetJSON is fabric f as the shim hands it over: its ports with the
// LIDs tab gives them (tables of the whole fabric, matched by port GUID),
// as OpenSM keeps them from its guid2lid cache.
func subnetJSON(t *testing.T, f *fabric.Fabric, tab *lft.Tables) []byte {
	t.Helper()
	lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: int(tab.LIDs().LMC()), Keep: lft.CacheOf(tab)})
	if err != nil {
		t.Fatal(err)
	}
	g, err := engine.RecordLIDs(f, lids)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := fabric.WriteJSON(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// checkKeptAndPredicted requires OpenSM's dump now to hold, on every
// switch, the entries of the first sweep's dump toward the LIDs it
// routed (but except's), and the tables predicted.
func checkKeptAndPredicted(t *testing.T, name string, first, now *lft.Tables, predicted *engine.State, except *lft.PortLIDs) {
	t.Helper()
	ff, nf := first.Fabric(), now.Fabric()
	for _, sw := range now.Switches() {
		got := now.LFT(sw)
		want, _ := predicted.LFT(nf.GUID(sw))
		if !bytes.Equal(got[:min(len(got), len(want))], want[:min(len(got), len(want))]) {
			t.Fatalf("%s up: %s holds other entries than predicted", name, nf.Name(sw))
		}
		fsw, _ := ff.NodeByGUID(nf.GUID(sw))
		for _, pl := range first.LIDs().Ports() {
			if except != nil && except.Base == pl.Base {
				continue // recabled: routed anew
			}
			for l := pl.Base; l <= pl.Top(); l++ {
				if first.Port(fsw, l) != now.Port(sw, l) {
					t.Fatalf("%s up: %s toward LID 0x%x, routed at the first sweep, changed", name, nf.Name(sw), l)
				}
			}
		}
	}
}

// checkHostForwarded requires ibroute on the switch host h hangs off in
// fabric f to forward h's LIDs (rt's plan: OpenSM keeps them) to h's port.
func checkHostForwarded(t *testing.T, sim *ibsimtest.Sim, rt *routed, f *fabric.Fabric, h fabric.NodeID) {
	t.Helper()
	fat, _ := f.Peer(fabric.PortRef{Node: h, Port: 1})
	sw, _ := rt.f.NodeByGUID(f.GUID(fat.Node))
	at := fabric.PortRef{Node: sw, Port: fat.Port}
	rh, _ := rt.f.NodeByGUID(f.GUID(h))
	own, _ := rt.tab.LIDs().Of(fabric.PortRef{Node: at.Node})
	hl, _ := rt.tab.LIDs().Of(fabric.PortRef{Node: rh, Port: 1})
	text := sim.Run(t, time.Minute, "ibroute", fmt.Sprint(own.Base), fmt.Sprint(hl.Base), fmt.Sprint(hl.Top()))
	seen := 0
	for _, m := range ibrouteLine.FindAllStringSubmatch(text, -1) {
		l, _ := strconv.ParseUint(m[1], 16, 16)
		p, _ := strconv.Atoi(m[2])
		if lft.LID(l) >= hl.Base && lft.LID(l) <= hl.Top() {
			seen++
			if p != at.Port {
				t.Fatalf("ibroute on %s: LID 0x%x leaves on port %d, not %s's port %d\n%s", rt.f.Name(at.Node), l, p, f.Name(h), at.Port, text)
			}
		}
	}
	if seen != int(hl.Top()-hl.Base)+1 {
		t.Fatalf("ibroute on %s shows %d of %s's LIDs\n%s", rt.f.Name(at.Node), seen, f.Name(h), text)
	}
}

// ibrouteLine is a LID line of ibroute's output: LID and out port.
var ibrouteLine = regexp.MustCompile(`(?m)^0x([0-9a-fA-F]+)\s+(\d+)\s*:`)

// checkAuditOf waits for the plugin's audit files of the sweep that named
// host (written in the background, as one set), then runs the command its
// summary names, `slimroute verify` on OpenSM's dumps, on 4 VLs.
func checkAuditOf(t *testing.T, sm *ibsimtest.SM, host string) {
	t.Helper()
	summary := filepath.Join(sm.Dir, engine.AuditSummary)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if text, _ := os.ReadFile(summary); strings.Contains(string(text), "HCAs new to the routing or recabled (1): "+host+" (") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no audit of the sweep that routed %s after a minute", host)
		}
	}
	out, status := runStatus(t, "verify", "--fabric", filepath.Join(sm.Dir, "opensm-subnet.lst"), "--lfts", filepath.Join(sm.Dir, "opensm-lfts.dump"),
		"--path-sl", filepath.Join(sm.Dir, engine.AuditPathSL), "--sl2vl", filepath.Join(sm.Dir, "opensm-sl2vl.dump"), "--vls", "4")
	if status != 0 || !strings.Contains(out, "verified: every LID reachable, no loops, no credit loop") {
		t.Fatalf("verify on OpenSM's dumps after %s came up: exit %d\n%s", host, status, out)
	}
}
