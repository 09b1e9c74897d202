package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"slimroute/fabric"
	"slimroute/internal/ibsimtest"
	"slimroute/jobs"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/verify"
)

// buildPlugin compiles the OpenSM plugin into a fresh directory and returns
// it (for LD_LIBRARY_PATH: OpenSM dlopens lib<name>.so by name).
func buildPlugin(t *testing.T) string {
	t.Helper()
	for _, h := range []string{"/usr/include/infiniband/opensm/osm_opensm.h", "/usr/include/infiniband/umad.h"} {
		if _, err := os.Stat(h); err != nil {
			msg := "missing " + h + "; install libopensm-dev and libibumad-dev (./scripts/test does)"
			if os.Getenv(ibsimtest.RequireEnv) == "1" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-tags", "osmplugin", "-o", filepath.Join(dir, "libslimroute.so"), "slimroute/osmplugin")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the plugin: %v\n%s", err, out)
	}
	return dir
}

var (
	saSL     = regexp.MustCompile(`(?m)^\s*sl\.+0x([0-9a-f]+)`)
	sl2vlRow = regexp.MustCompile(`(?m)^ports: in\s+(\d+), out\s+(\d+):((?:\s*\|\s*\d+)+)\|`)
)

// TestPluginProgramsOurRouting runs OpenSM with slimroute as a routing-
// engine plugin on simulated fabrics — Slim Fly q = 5 and 7, a Clos, a
// PolarFly, a HyperX and a Dragonfly+ — (LMC 2, 4 layers, hop-indexed
// VLs, QoS on) and reads back what the fabric holds: ibroute shows exactly
// the tables `slimroute route` computes offline, ibtracert follows the
// predicted paths, the SA's PathRecord SLs are our path SLs, the switches'
// SL2VL tables (smpquery) are ours, and our verifier, run on OpenSM's own
// LFT dump with those SLs and the SL2VL tables read from the switches,
// finds no cycle.
func TestPluginProgramsOurRouting(t *testing.T) {
	ibsimtest.Require(t, "opensm", "ibroute", "ibtracert", "saquery", "smpquery")
	plugin := buildPlugin(t)
	for _, fc := range []fabricCase{caseQ5, caseQ7, caseClos, casePF5, caseHX, caseDFP} {
		t.Run(fc.name, func(t *testing.T) { pluginCase(t, plugin, fc) })
	}
}

// startWithPlugin simulates rt's fabric (with a console, for cable
// failures) and starts OpenSM on it with the plugin built in plugin as its
// routing engine (LMC 2, QoS on, the planned LIDs) and the given settings.
func startWithPlugin(t *testing.T, plugin string, rt *routed, settingsText string) (*ibsimtest.Sim, *ibsimtest.SM) {
	t.Helper()
	sim := ibsimtest.StartWithConsole(t, rt.net, ibsimtest.LimitsFor(rt.f)...)
	g2l, err := os.ReadFile(filepath.Join(rt.dir, "guid2lid"))
	if err != nil {
		t.Fatal(err)
	}
	opts := pluginOptions(t, sim, plugin, settingsText)
	opts.GUID2LID = g2l
	return sim, sim.StartOpenSM(t, opts)
}

// pluginOptions are the options of an OpenSM on sim whose routing engine
// is the plugin built in plugin (LMC 2, QoS on, the log flushed line by
// line), with settingsText as its settings file, written into sim.Dir.
func pluginOptions(t *testing.T, sim *ibsimtest.Sim, plugin, settingsText string) ibsimtest.SMOptions {
	t.Helper()
	settings := filepath.Join(sim.Dir, "slimroute.toml")
	if err := os.WriteFile(settings, []byte(settingsText), 0o644); err != nil {
		t.Fatal(err)
	}
	return ibsimtest.SMOptions{
		Config: fmt.Sprintf("event_plugin_name slimroute\nevent_plugin_options %s\nrouting_engine slimroute\nlmc 2\nqos TRUE\nforce_log_flush TRUE\n", settings),
		Env:    []string{"LD_LIBRARY_PATH=" + plugin},
	}
}

func pluginCase(t *testing.T, plugin string, fc fabricCase) {
	rt := routeCase(t, fc, "auto")
	// repair = false: after the cable failure below the plugin recomputes
	// in full, which the pipeline predicts offline (the repair is
	// TestPluginRoutesOnFourVLsAsCablesFail's)
	sim, sm := startWithPlugin(t, plugin, rt, "layers = 4\ndeadlock = \"auto\"\nseed = 1\nrepair = false\n")
	log := sm.Log()
	if !strings.Contains(log, "slimroute tables configured on all switches") {
		t.Fatalf("OpenSM did not route with the plugin:\n%s", log)
	}
	checkIBRoute(t, sim, rt)
	checkTracert(t, sim, rt, 200)

	// the SA hands out our path SLs
	rng := rand.New(rand.NewPCG(7, 7))
	dests := rt.r.Dests()[:rt.r.NumEndpoints()]
	slsSeen := map[uint8]bool{}
	for i := 0; i < 40; i++ {
		src, dst := dests[rng.IntN(len(dests))], dests[rng.IntN(len(dests))]
		sl, _ := rt.tab.LIDs().Of(src.Port)
		dl, _ := rt.tab.LIDs().Of(dst.Port)
		dlid := dl.Base + lft.LID(rng.IntN(4))
		out := sim.Run(t, time.Minute, "saquery", "PR", "--slid", fmt.Sprint(sl.Base), "--dlid", fmt.Sprint(dlid))
		m := saSL.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("saquery PR %d -> %d: no SL in\n%s", sl.Base, dlid, out)
		}
		got, _ := strconv.ParseUint(m[1], 16, 8)
		want := rt.tab.PathSL(src.Port, dlid)
		if uint8(got) != want {
			t.Fatalf("PathRecord %d -> %d: SL %d, ours %d", sl.Base, dlid, got, want)
		}
		slsSeen[want] = true
	}
	if n := rt.a.SLs; n > 1 && len(slsSeen) < 2 {
		t.Errorf("the sample met only SLs %v of the %d in use", slsSeen, n)
	}

	// the switches hold our SL2VL tables
	held := readSL2VL(t, sim, rt)
	readCASL2VL(t, sim, rt, hcaSample(rt, rt.tab.Switches()[:4]))
	// our verifier on OpenSM's own dump, with the SL2VL the switches hold
	rep := verifyDump(t, rt, sm.Dir, held)
	t.Logf("%s plugin: tables, 200 traces, 40 path SLs and %d SL2VL rows as predicted; verifier on OpenSM's dump: %d paths over %d VLs, acyclic", fc.name, strings.Count(held, "\n"), rep.Walks, rep.VLs)
	checkAudit(t, sm, rt)

	if fc.name == caseDFP.name {
		dragonflyPlusCableFails(t, sim, sm, rt)
		return
	}
	if fc.name != caseQ5.name {
		return // the cable failure is exercised on q=5
	}
	// A cable fails: OpenSM re-sweeps and the plugin routes around it. The
	// pipeline is deterministic, so the new tables are predicted offline.
	sw0, _ := rt.f.NodeByName("sw-0-0-0")
	after, rt2, rep2 := unplugAndCheck(t, sim, sm, rt, fabric.PortRef{Node: sw0, Port: 5})
	t.Logf("after the cable failed: the plugin's new tables (scheme %s, %d VLs) as predicted on every switch, complete and acyclic (%d paths)", after.Assignment.Scheme, after.Assignment.VLs, rep2.Walks)
	pluginRoutesForJobs(t, sim, sm, rt2)
}

// dragonflyPlusCableFails unplugs the global cable between the first two
// groups of rt's Dragonfly+ (their only one): the layers cannot route the
// fabric group pair by group pair as it is, so the plugin's full recompute
// (repair = false) routes it as its design and repairs the tables
// (pipeline/complete_dfplus.go), as the pipeline predicts offline — every
// switch's LFT as ibroute reads it, OpenSM's dump verified with the SL2VL
// tables the switches hold.
func dragonflyPlusCableFails(t *testing.T, sim *ibsimtest.Sim, sm *ibsimtest.SM, rt *routed) {
	t.Helper()
	a, _ := rt.f.NodeByName("dfp-spine-0-0")
	end := fabric.PortRef{Node: -1}
	for p := 1; p <= rt.f.Ports(a) && end.Node < 0; p++ {
		peer, ok := rt.f.Peer(fabric.PortRef{Node: a, Port: p})
		if ok && strings.HasPrefix(rt.f.Name(peer.Node), "dfp-spine-1-") {
			end = fabric.PortRef{Node: a, Port: p}
		}
	}
	if end.Node < 0 {
		t.Fatal("dfp-spine-0-0 has no global cable to group 1")
	}
	after, _, rep := unplugAndCheck(t, sim, sm, rt, end)
	if after.Completed == nil {
		t.Fatal("the Dragonfly+ less a global cable is not routed as its design")
	}
	t.Logf("after the global cable failed: %s; ibroute as predicted on every switch, OpenSM's dump complete and acyclic (%d paths, %d VLs)", after.Completed, rep.Walks, rep.VLs)
}

// unplugAndCheck unplugs the cable at end of rt's fabric on sim and waits
// for OpenSM's re-sweep: the plugin's new tables are the pipeline's
// offline prediction for the fabric without it, on every switch as
// ibroute reads them, and OpenSM's dump passes the verifier with the
// SL2VL tables the switches hold. It returns the prediction, the routed
// fabric and the verifier's report.
func unplugAndCheck(t *testing.T, sim *ibsimtest.Sim, sm *ibsimtest.SM, rt *routed, end fabric.PortRef) (*pipeline.Result, *routed, *verify.Report) {
	t.Helper()
	li, ok := rt.f.LinkAt(end)
	if !ok {
		t.Fatalf("%s holds no cable", rt.f.PortString(end))
	}
	broken, err := rt.f.Without(nil, []int{li})
	if err != nil {
		t.Fatal(err)
	}
	after, err := pipeline.Run(broken, pipeline.Config{Layers: 4, Deadlock: "auto", Seed: 1, LMC: -1})
	if err != nil {
		t.Fatal(err)
	}
	sim.Console(t, fmt.Sprintf(`Unlink "%s"[%d]`, rt.f.Name(end.Node), end.Port))
	waitForResweep(t, sm, 2*time.Minute)
	rt2 := &routed{f: broken, r: after.Routing, a: after.Assignment, tab: after.Tables}
	checkIBRoute(t, sim, rt2)
	rep := verifyDump(t, rt2, sm.Dir, readSL2VL(t, sim, rt2))
	return after, rt2, rep
}

// pluginRoutesForJobs gives the running plugin a job file (jobs = in its
// settings, SIGHUP): its third sweep routes for the jobs, as the pipeline
// predicts offline for the same file on rt's fabric — every switch's LFT
// as ibroute reads it, OpenSM's dump verified — and the jobs share fewer
// channels than under rt's routing, as analyze --jobs measures. Then the
// job file changes twice (a job's hosts moved, another job gone, then a
// new one; SIGHUP after each): each sweep routes for the new jobs from
// the last one's tables, as predicted (pipeline.Config.SwitchOverFrom),
// and judges the switch-over safe (switchOverTo).
func pluginRoutesForJobs(t *testing.T, sim *ibsimtest.Sim, sm *ibsimtest.SM, rt *routed) {
	t.Helper()
	var hosts []string
	for _, h := range rt.f.IDsOf(fabric.HCA) {
		if _, ok := rt.tab.LIDs().Of(fabric.PortRef{Node: h, Port: 1}); ok {
			hosts = append(hosts, rt.f.Name(h))
		}
	}
	rand.New(rand.NewPCG(30, 30)).Shuffle(len(hosts), func(a, b int) { hosts[a], hosts[b] = hosts[b], hosts[a] })
	text := "1 " + strings.Join(hosts[:48], ",") + " ring\n2 " + strings.Join(hosts[48:96], ",") + " tree\n3 " + strings.Join(hosts[96:120], ",") + " ring weight=2\n"
	settings := filepath.Join(sim.Dir, "slimroute.toml")
	if err := os.WriteFile(settings, []byte("layers = 4\ndeadlock = \"auto\"\nseed = 1\nrepair = false\njobs = \"jobs.txt\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, js, rt3, programmed := routeForJobFile(t, sim, sm, rt, text, 3, nil) // (the settings changed: in full)
	rep := verifyDump(t, rt3, sm.Dir, readSL2VL(t, sim, rt3))
	before, err := jobs.Analyze(rt.tab, js, "jobs.txt")
	if err != nil {
		t.Fatal(err)
	}
	now, err := jobs.Analyze(res.Tables, js, "jobs.txt")
	if err != nil {
		t.Fatal(err)
	}
	shared := func(r *jobs.Report) (n int) {
		for _, j := range r.Jobs {
			for _, s := range j.Shared {
				n += s.Channels
			}
		}
		return n
	}
	if shared(now) >= shared(before) {
		t.Errorf("the jobs share %d channels under the routing for them, %d without", shared(now)/2, shared(before)/2)
	}
	t.Logf("jobs = jobs.txt, SIGHUP: the plugin routed for 3 jobs (%d moves) as predicted on every switch; OpenSM's dump acyclic over %d paths; channels the jobs share %d → %d, busiest %.3f → %.3f",
		res.Routing.Traffic.Moves, rep.Walks, shared(before)/2, shared(now)/2, before.Busiest, now.Busiest)

	// the job file changed twice more, SIGHUP after each: safe switch-overs
	text = "1 " + strings.Join(hosts[:48], ",") + " ring\n2 " + strings.Join(hosts[120:168], ",") + " tree\n"
	res, js, programmed = switchOverTo(t, sim, sm, rt, text, 4, res, js, programmed)
	text = "2 " + strings.Join(hosts[120:168], ",") + " tree\n4 " + strings.Join(hosts[168:200], ",") + " ring\n"
	switchOverTo(t, sim, sm, rt, text, 5, res, js, programmed)
}

// switchOverTo changes the job file to text, SIGHUP (routeForJobFile's
// sweep-th routing, predicted from the routing in force, was): the
// plugin's line says it routed from the last tables and judged the
// switch-over safe, the LFT blocks and entries that differ between what
// ibroute read before (programmed) and after are the ones it said it
// would send and change, every entry that changed is toward a host of a
// job in either file (wasJobs, text), and OpenSM's dump is verified. It
// returns the prediction, the jobs and the LFTs ibroute read.
func switchOverTo(t *testing.T, sim *ibsimtest.Sim, sm *ibsimtest.SM, rt *routed, text string, sweep int, was *pipeline.Result, wasJobs []jobs.Job, programmed *lft.Tables) (*pipeline.Result, []jobs.Job, *lft.Tables) {
	t.Helper()
	res, js, rtNow, programmedNow := routeForJobFile(t, sim, sm, rt, text, sweep, was)
	lines := strings.Split(sm.Log(), "\n")
	last := "" // the plugin's line for this sweep
	for i := len(lines) - 1; i >= 0 && last == ""; i-- {
		if strings.Contains(lines[i], "to send: ") {
			last = lines[i]
		}
	}
	for _, want := range []string{"the job file jobs.txt changed since the last routing", "from the last routing's tables", "switch-over judged safe"} {
		if !strings.Contains(last, want) {
			t.Errorf("sweep %d's line lacks %q:\n%s", sweep, want, last)
		}
	}
	said := regexp.MustCompile(`to send: (\d+) LFT blocks`).FindStringSubmatch(last)
	blocks, entries := blocksChanged(t, rt.f, programmed, programmedNow)
	if said == nil || said[1] != strconv.Itoa(blocks) {
		t.Errorf("sweep %d: %d LFT blocks differ from the last sweep's as ibroute reads them; the plugin said %v", sweep, blocks, said)
	}
	if said := regexp.MustCompile(`against the last routing (\d+) LFT entries`).FindStringSubmatch(last); said == nil || said[1] != strconv.Itoa(len(entries)) {
		t.Errorf("sweep %d: %d LFT entries differ from the last sweep's as ibroute reads them; the plugin said %v", sweep, len(entries), said)
	}
	hostOf := map[lft.LID]string{}
	for _, j := range append(slices.Clone(wasJobs), js...) {
		for _, h := range j.Hosts {
			id, _ := rt.f.NodeByName(h)
			if pl, ok := res.Tables.LIDs().Of(fabric.PortRef{Node: id, Port: 1}); ok {
				for l := pl.Base; l <= pl.Top(); l++ {
					hostOf[l] = h
				}
			}
		}
	}
	for _, e := range entries {
		if hostOf[e.lid] == "" {
			t.Fatalf("sweep %d: switch %s's entry for LID %d changed: no job host of either file holds it", sweep, rt.f.Name(e.sw), e.lid)
		}
	}
	verifyDump(t, rtNow, sm.Dir, readSL2VL(t, sim, rtNow))
	t.Logf("the job file changed, SIGHUP (sweep %d): routed from the last tables as predicted on every switch; %d LFT blocks (%d entries) sent, all toward the jobs' hosts; switch-over judged safe", sweep, blocks, len(entries))
	return res, js, programmedNow
}

// routeForJobFile writes text as jobs.txt beside the plugin's settings,
// sends OpenSM SIGHUP, waits for its sweep-th routing and checks that the
// switches hold the routing the pipeline predicts for it on rt's fabric;
// it returns the prediction, the jobs, and the LFTs ibroute read.
func routeForJobFile(t *testing.T, sim *ibsimtest.Sim, sm *ibsimtest.SM, rt *routed, text string, sweep int, from *pipeline.Result) (*pipeline.Result, []jobs.Job, *routed, *lft.Tables) {
	t.Helper()
	file := filepath.Join(sim.Dir, "jobs.txt")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	js, err := jobs.Read(strings.NewReader(text), file)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := jobs.Traffic(rt.f, js, file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(rt.f, pipeline.Config{Layers: 4, Deadlock: "auto", Seed: 1, LMC: -1, Traffic: tr, SwitchOverFrom: from})
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(sm.PID(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitForSweep(t, sm, sweep)
	if n := strings.Count(sm.Log(), "routed for the jobs'"); n != sweep-2 {
		t.Fatalf("OpenSM's log says %d times that the plugin routed for the jobs, want %d:\n%s", n, sweep-2, sm.Log())
	}
	routedNow := &routed{f: rt.f, r: res.Routing, a: res.Assignment, tab: res.Tables}
	text2 := checkIBRoute(t, sim, routedNow)
	programmed, err := lft.ReadIBRoute(strings.NewReader(text2), "ibroute", rt.f)
	if err != nil {
		t.Fatal(err)
	}
	return res, js, routedNow, programmed
}

// lftEntry is one LFT entry: a switch and a LID.
type lftEntry struct {
	sw  fabric.NodeID
	lid lft.LID
}

// blocksChanged counts the 64-entry LFT blocks that differ between a and
// b, switch by switch, and lists the entries that do.
func blocksChanged(t *testing.T, f *fabric.Fabric, a, b *lft.Tables) (int, []lftEntry) {
	t.Helper()
	blocks := 0
	var entries []lftEntry
	for _, sw := range f.IDsOf(fabric.Switch) {
		x, y := a.LFT(sw), b.LFT(sw)
		last := -1
		for lid := 0; lid < max(len(x), len(y)); lid++ {
			ex, ey := uint8(lft.Drop), uint8(lft.Drop)
			if lid < len(x) {
				ex = x[lid]
			}
			if lid < len(y) {
				ey = y[lid]
			}
			if ex != ey {
				entries = append(entries, lftEntry{sw, lft.LID(lid)})
				if lid/64 != last {
					blocks, last = blocks+1, lid/64
				}
			}
		}
	}
	return blocks, entries
}

// waitForResweep waits until the sweep in which the plugin configures its
// second set of tables is over. The plugin's log line comes when it hands
// the tables to OpenSM, before OpenSM has sent them to the switches; the
// sweep ends with SUBNET UP (logged at INFO level on every sweep after the
// first, right after OpenSM writes its dump files), so that is the line to
// wait for, after the plugin's second one.
func waitForResweep(t *testing.T, sm *ibsimtest.SM, timeout time.Duration) {
	t.Helper()
	const configured = "slimroute tables configured on all switches"
	deadline := time.Now().Add(timeout)
	for {
		log := sm.Log()
		if first := strings.Index(log, configured); first >= 0 {
			rest := log[first+len(configured):]
			if second := strings.Index(rest, configured); second >= 0 && strings.Contains(rest[second:], "SUBNET UP") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no completed re-sweep with the plugin %v after the cable failed:\n%s", timeout, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// readSL2VL reads every switch's SL2VL tables back with smpquery, requires
// them to equal the routing's, and returns them as an SL2VL file (-d
// layout) for the verifier.
func readSL2VL(t *testing.T, sim *ibsimtest.Sim, rt *routed) string {
	t.Helper()
	return readSL2VLOf(t, sim, rt, rt.tab.Switches())
}

// readSL2VLOf is readSL2VL for some switches only.
func readSL2VLOf(t *testing.T, sim *ibsimtest.Sim, rt *routed, switches []fabric.NodeID) string {
	t.Helper()
	var held strings.Builder
	for _, sw := range switches {
		own, _ := rt.tab.LIDs().Of(fabric.PortRef{Node: sw})
		n := rt.f.Node(sw)
		for out := 1; out <= n.Ports; out++ {
			if _, ok := rt.f.Peer(fabric.PortRef{Node: sw, Port: out}); !ok {
				continue
			}
			text := sim.Run(t, time.Minute, "smpquery", "sl2vl", fmt.Sprint(own.Base), fmt.Sprint(out))
			rows := sl2vlRow.FindAllStringSubmatch(text, -1)
			if len(rows) == 0 {
				t.Fatalf("smpquery sl2vl %d %d: no table\n%s", own.Base, out, text)
			}
			for _, row := range rows {
				in, _ := strconv.Atoi(row[1])
				o, _ := strconv.Atoi(row[2])
				var vls [16]uint8
				for sl, f := range strings.Split(strings.Trim(strings.TrimSpace(row[3]), "|"), "|") {
					v, _ := strconv.Atoi(strings.TrimSpace(f))
					vls[sl] = uint8(v)
				}
				if in == o {
					continue
				}
				if _, cabled := rt.f.Peer(fabric.PortRef{Node: sw, Port: in}); !cabled && in != 0 {
					continue // a dead port's table carries no traffic
				}
				fmt.Fprintf(&held, "%s %d %d", n.GUID, in, o)
				for sl := 0; sl < 16; sl += 2 {
					fmt.Fprintf(&held, " 0x%x%x", vls[sl], vls[sl+1])
				}
				held.WriteString("\n")
				for sl := 0; sl < 16; sl++ {
					if want := rt.tab.SL2VL(sw, in, o, uint8(sl)); vls[sl] != want {
						t.Fatalf("%s in %d out %d SL %d: VL %d, ours %d", n.Name, in, o, sl, vls[sl], want)
					}
				}
			}
		}
	}
	return held.String()
}

// TestPluginBadSettingsFallBack gives the plugin settings it must refuse —
// an unknown key, or more layers than OpenSM's lmc gives LIDs per port: the
// error goes to OpenSM's log, the plugin programs nothing and OpenSM routes
// with its default engine instead.
func TestPluginBadSettingsFallBack(t *testing.T) {
	ibsimtest.Require(t, "opensm")
	plugin := buildPlugin(t)
	for _, c := range []struct {
		settings string
		lmc      int
		want     string
	}{
		{"layers = 4\nlayres = 2\n", 2, "unknown key layres"},
		{"layers = 4\n", 0, "layers = 4 needs LMC 2 or more"},
	} {
		dir := t.TempDir()
		net := filepath.Join(dir, "sf.net")
		run(t, "topo", "slimfly", "--q", "3", "-o", net)
		sim := ibsimtest.Start(t, net)
		settings := filepath.Join(dir, "slimroute.toml")
		os.WriteFile(settings, []byte(c.settings), 0o644)
		sm := sim.StartOpenSM(t, ibsimtest.SMOptions{
			Config: fmt.Sprintf("event_plugin_name slimroute\nevent_plugin_options %s\nrouting_engine slimroute\nlmc %d\nforce_log_flush TRUE\n", settings, c.lmc),
			Env:    []string{"LD_LIBRARY_PATH=" + plugin},
		})
		log := sm.Log()
		for _, want := range []string{c.want, "falls back to the next engine", "minhop tables configured on all switches"} {
			if !strings.Contains(log, want) {
				t.Errorf("%q, lmc %d: OpenSM's log lacks %q", c.settings, c.lmc, want)
			}
		}
		if strings.Contains(log, "slimroute tables configured") {
			t.Errorf("%q, lmc %d: the plugin programmed tables despite the bad settings", c.settings, c.lmc)
		}
	}
}

// checkAudit judges what the fabric holds from the files beside OpenSM's
// dumps alone, as an operator would: OpenSM's subnet list, LFT and SL2VL
// dumps with the path SLs the plugin wrote there (slimroute-path-sl.txt),
// through
// `slimroute verify` — verified with the VLs the switches offer, and
// refused with one VL fewer than the paths take. The summary names the
// command.
func checkAudit(t *testing.T, sm *ibsimtest.SM, rt *routed) {
	t.Helper()
	summary := filepath.Join(sm.Dir, "slimroute-summary.txt")
	waitForFile(t, summary)
	text, _ := os.ReadFile(summary)
	if !strings.Contains(string(text), "slimroute verify --fabric "+filepath.Join(sm.Dir, "opensm-subnet.lst")+" --lfts "+filepath.Join(sm.Dir, "opensm-lfts.dump")) {
		t.Errorf("the summary does not name the command that checks the fabric:\n%s", text)
	}
	args := []string{"verify", "--fabric", filepath.Join(sm.Dir, "opensm-subnet.lst"), "--lfts", filepath.Join(sm.Dir, "opensm-lfts.dump"),
		"--path-sl", filepath.Join(sm.Dir, "slimroute-path-sl.txt"), "--sl2vl", filepath.Join(sm.Dir, "opensm-sl2vl.dump")}
	if out, status := runStatus(t, append(args, "--vls", "8")...); status != 0 || !strings.Contains(out, "verified: every LID reachable, no loops, no credit loop") {
		t.Fatalf("verify on OpenSM's dumps and the plugin's path SLs: exit %d\n%s", status, out)
	}
	top := rt.a.VLs - 1
	if out, status := runStatus(t, append(args, "--vls", fmt.Sprint(top))...); status != 1 || !strings.Contains(out, fmt.Sprintf("paths take VL %d", top)) {
		t.Fatalf("verify --vls %d with paths on VL %d: exit %d\n%s", top, top, status, out)
	}
	// one verdict from the dump directory, with the wiring against a plan
	plan := filepath.Join(t.TempDir(), "plan")
	run(t, "cabling", "plan", "--fabric", rt.net, "-o", plan)
	if out, status := runStatus(t, "check", "--dumps", sm.Dir, "--plan", plan, "--vls", "8"); status != 0 || !strings.Contains(out, "slimroute check: OK") || !strings.Contains(out, "findings (plan") {
		t.Fatalf("check on the plugin's fabric: exit %d\n%s", status, out)
	}
	if out, status := runStatus(t, "check", "--dumps", sm.Dir, "--vls", fmt.Sprint(top)); status != 1 || !strings.Contains(out, fmt.Sprintf("VLs: paths take VL %d", top)) {
		t.Fatalf("check --vls %d with paths on VL %d: exit %d\n%s", top, top, status, out)
	}
}

// readCASL2VL reads the SL2VL tables of HCA ports with smpquery and
// requires each to equal the routing's (lft.Tables.CASL2VL): the VLs the
// HCA sends each SL on.
func readCASL2VL(t *testing.T, sim *ibsimtest.Sim, rt *routed, ports []fabric.PortRef) {
	t.Helper()
	for _, p := range ports {
		own, _ := rt.tab.LIDs().Of(p)
		text := sim.Run(t, time.Minute, "smpquery", "sl2vl", fmt.Sprint(own.Base), fmt.Sprint(p.Port))
		rows := sl2vlRow.FindAllStringSubmatch(text, -1)
		if len(rows) != 1 {
			t.Fatalf("smpquery sl2vl %d %d: want one table of HCA port %s\n%s", own.Base, p.Port, rt.f.PortString(p), text)
		}
		want := rt.tab.CASL2VL(p)
		for sl, f := range strings.Split(strings.Trim(strings.TrimSpace(rows[0][3]), "|"), "|") {
			if v, _ := strconv.Atoi(strings.TrimSpace(f)); sl < 16 && uint8(v) != want[sl] {
				t.Fatalf("HCA port %s sends SL %d on VL %d, ours %d\n%s", rt.f.PortString(p), sl, v, want[sl], text)
			}
		}
	}
}

// hcaSample returns the LID-holding HCA ports attached to the given
// switches, the first of each.
func hcaSample(rt *routed, switches []fabric.NodeID) []fabric.PortRef {
	var out []fabric.PortRef
	for _, sw := range switches {
		for _, pl := range rt.tab.LIDs().Ports() {
			if peer, ok := rt.f.Peer(pl.Port); ok && pl.Port.Port != 0 && peer.Node == sw {
				out = append(out, pl.Port)
				break
			}
		}
	}
	return out
}

// TestPluginProgramsTheHCAsSL2VL: under DFSSSP an HCA sends each SL on
// its own VL, so its SL2VL table is not the default one. OpenSM asks the
// plugin for every HCA port's table (as in port 0, out port 0); smpquery
// reads back, on HCA ports of every switch of the q = 5 Slim Fly, the
// tables the routing holds (lft.Tables.CASL2VL), which the test first
// requires to differ from all-VL-0.
func TestPluginProgramsTheHCAsSL2VL(t *testing.T) {
	ibsimtest.Require(t, "opensm", "smpquery")
	plugin := buildPlugin(t)
	rt := routeCase(t, caseQ5, "dfsssp")
	ports := hcaSample(rt, rt.tab.Switches())
	nonzero := 0
	for _, p := range ports {
		if rt.tab.CASL2VL(p) != [16]uint8{} {
			nonzero++
		}
	}
	if nonzero == 0 {
		t.Fatal("no sampled HCA port maps an SL to a VL other than 0: the test could not fail")
	}
	sim, sm := startWithPlugin(t, plugin, rt, "layers = 4\ndeadlock = \"dfsssp\"\nseed = 1\n")
	waitForSweep(t, sm, 1)
	readCASL2VL(t, sim, rt, ports)
	t.Logf("%d HCA ports (%d with VLs other than 0) hold the SL2VL tables the routing gives them", len(ports), nonzero)
}
