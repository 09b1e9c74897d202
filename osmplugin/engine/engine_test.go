package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/jobs"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
	"slimroute/transition"
	"slimroute/verify"
)

// subnet returns the q=3 Slim Fly as the shim hands it over: slimroute
// JSON with the LIDs OpenSM assigned (LMC lmc) on every port.
func subnet(t *testing.T, lmc int) (*fabric.Fabric, []byte) {
	t.Helper()
	return slimFlySubnet(t, 3, lmc)
}

// slimFlySubnet is the Slim Fly of q as the shim hands it over: slimroute
// JSON with LIDs of the given LMC recorded on its ports.
func slimFlySubnet(t testing.TB, q, lmc int) (*fabric.Fabric, []byte) {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: q})
	if err != nil {
		t.Fatal(err)
	}
	return withLIDs(t, f, lmc)
}

// withLIDs is f as the shim hands it over: with LIDs of the given LMC
// recorded on its ports, and as slimroute JSON.
func withLIDs(t testing.TB, f *fabric.Fabric, lmc int) (*fabric.Fabric, []byte) {
	t.Helper()
	lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: lmc})
	if err != nil {
		t.Fatal(err)
	}
	g, err := RecordLIDs(f, lids)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := fabric.WriteJSON(&b, g); err != nil {
		t.Fatal(err)
	}
	return g, b.Bytes()
}

func settings(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "slimroute.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPluginAnswersAsThePipeline: what the plugin hands OpenSM — every
// switch's LFT, the path SL of every (source LID, DLID), every SL2VL
// entry — is what pipeline.Run computes for the same subnet; unknown
// GUIDs and LIDs get "none" answers, never another node's.
func TestPluginAnswersAsThePipeline(t *testing.T) {
	f, js := subnet(t, 2)
	st, err := Compute(js, "", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pipeline.Run(f, pipeline.Config{Deadlock: "auto", LIDsFromFabric: true, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, sw := range want.Tables.Switches() {
		got, ok := st.LFT(f.Node(sw).GUID)
		if !ok || !bytes.Equal(got, want.Tables.LFT(sw)) {
			t.Fatalf("%s: the plugin's LFT differs from the pipeline's", f.Node(sw).Name)
		}
	}
	if _, ok := st.LFT(0xdeadbeef); ok {
		t.Fatal("an unknown switch GUID got a table")
	}
	lids := want.LIDs
	for _, src := range lids.Ports() {
		for dlid := lft.LID(1); dlid <= lids.Top(); dlid++ {
			w := want.Tables.PathSL(src.Port, dlid)
			if src.Port.Port == 0 {
				w = 0 // a switch sends no path records
			}
			if got := st.PathSL(src.Base+1%(1<<src.LMC), dlid); got != w {
				t.Fatalf("path SL %d -> %d: %d, want %d", src.Base, dlid, got, w)
			}
		}
	}
	if st.PathSL(lids.Top()+1, 1) != 0 {
		t.Fatal("an unknown source LID got an SL")
	}
	for _, sw := range want.Tables.Switches() {
		n := f.Node(sw)
		for in := 0; in <= n.Ports; in++ {
			for out := 1; out <= n.Ports; out++ {
				for sl := uint8(0); sl < 16; sl++ {
					if got, w := st.SL2VL(n.GUID, in, out, sl), want.Tables.SL2VL(sw, in, out, sl); got != w {
						t.Fatalf("%s %d->%d SL %d: VL %d, want %d", n.Name, in, out, sl, got, w)
					}
				}
			}
		}
	}
	// an HCA's egress under the hop-indexed scheme: VL 0 for every SL
	h := f.IDsOf(fabric.HCA)[0]
	for sl := uint8(0); sl < 16; sl++ {
		if vl := st.SL2VL(f.Node(h).GUID, 0, 1, sl); vl != 0 {
			t.Fatalf("HCA egress SL %d: VL %d, want 0 (hop 0)", sl, vl)
		}
	}
	if !strings.Contains(st.Summary(), "verifier: no loops, acyclic") {
		t.Fatalf("summary %q", st.Summary())
	}
}

// TestPluginHCAEgressFollowsDFSSSP: with DFSSSP an HCA sends SL k on VL k
// (the SL is the route's VL).
func TestPluginHCAEgressFollowsDFSSSP(t *testing.T) {
	f, js := subnet(t, 2)
	st, err := Compute(js, settings(t, "deadlock = \"dfsssp\"\nvls = 4\n"), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := f.Node(f.IDsOf(fabric.HCA)[0]).GUID
	for sl := uint8(0); sl < 4; sl++ {
		if vl := st.SL2VL(h, 0, 1, sl); vl != sl {
			t.Fatalf("HCA egress SL %d: VL %d", sl, vl)
		}
	}
}

// TestPluginRefusesWhatItCannotRoute: bad settings name the key, and an
// LMC that cannot hold the layers says which LMC would.
func TestPluginRefusesWhatItCannotRoute(t *testing.T) {
	_, js := subnet(t, 2)
	if _, err := Compute(js, settings(t, "layres = 4\n"), 2, nil); err == nil || !strings.Contains(err.Error(), "unknown key layres") {
		t.Fatalf("bad settings: %v", err)
	}
	if _, err := Compute(js, filepath.Join(t.TempDir(), "none.toml"), 2, nil); err == nil || !strings.Contains(err.Error(), "reading the plugin settings") {
		t.Fatalf("missing settings file: %v", err)
	}
	_, lmc0 := subnet(t, 0)
	if _, err := Compute(lmc0, settings(t, "layers = 4\n"), 2, nil); err == nil || !strings.Contains(err.Error(), "needs LMC 2") {
		t.Fatalf("layers 4 on LMC 0: %v", err)
	}
	// advice comes in the settings file's terms, and following it works
	_, err := Compute(js, settings(t, "vls = 1\n"), 2, nil)
	if err == nil || !strings.Contains(err.Error(), "(vls = 3)") || strings.Contains(err.Error(), "--vls") {
		t.Fatalf("vls = 1: %v", err)
	}
	if _, err := Compute(js, settings(t, "vls = 3\n"), 2, nil); err != nil {
		t.Fatalf("following the advice (vls = 3): %v", err)
	}
	if _, err := Compute([]byte("{"), "", 2, nil); err == nil {
		t.Fatal("a broken subnet description was accepted")
	}
}

// TestPluginRepairsAfterACableFails: after one cable fails the plugin
// repairs its last routing (4 VLs: the hop-indexed tables leave VL 3 as a
// spare) instead of recomputing: the summary says so, the tables differ
// from the last ones only for LIDs whose routes crossed the cable, and
// every answer comes from the repaired tables. With repair = false, or
// with nothing to repair from, it recomputes; a cable plugged back in is
// repaired too, back to the intact routing.
func TestPluginRepairsAfterACableFails(t *testing.T) {
	f, js := subnet(t, 2)
	cfg := settings(t, "vls = 4\n")
	first, err := Compute(js, cfg, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	broken, b := withoutACable(t, f)
	repaired, err := Compute(b.Bytes(), cfg, 2, first)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(repaired.Summary(), "repaired the last routing") {
		t.Fatalf("no repair: %s", repaired.Summary())
	}
	changed := 0
	for _, id := range broken.IDsOf(fabric.Switch) {
		now, _ := repaired.LFT(broken.GUID(id))
		before, _ := first.LFT(broken.GUID(id))
		for lid := range now {
			if now[lid] != before[lid] {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Fatal("the repair changed no LFT entry, though a cable is gone")
	}
	full, err := Compute(b.Bytes(), settings(t, "vls = 4\nrepair = false\n"), 2, first)
	if err != nil || strings.Contains(full.Summary(), "repaired") {
		t.Fatalf("repair = false: %v %s", err, full.Summary())
	}
	// both say what OpenSM sends; the recompute moves more
	var rb, fb, x int
	if _, err := fmt.Sscanf(sentOf(t, repaired.Summary()), "to send: %d LFT blocks, %d SL2VL tables", &rb, &x); err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscanf(sentOf(t, full.Summary()), "to send: %d LFT blocks, %d SL2VL tables", &fb, &x); err != nil {
		t.Fatal(err)
	}
	if rb == 0 || fb <= rb {
		t.Fatalf("the repair sends %d LFT blocks, the full recompute %d", rb, fb)
	}
	// the recompute says how many LFT entries it changes, counted here
	var said, sls int
	i := strings.Index(full.Summary(), "against the last routing ")
	if i < 0 {
		t.Fatalf("no count of the entries changed: %s", full.Summary())
	}
	if _, err := fmt.Sscanf(full.Summary()[i:], "against the last routing %d LFT entries and %d path SLs change", &said, &sls); err != nil {
		t.Fatal(err)
	}
	moved, at := 0, func(tab []uint8, lid int) uint8 { // beyond the table: a drop
		if lid < len(tab) {
			return tab[lid]
		}
		return 0xFF
	}
	for _, id := range broken.IDsOf(fabric.Switch) {
		now, _ := full.LFT(broken.GUID(id))
		before, _ := first.LFT(broken.GUID(id))
		for lid := 1; lid < max(len(now), len(before)); lid++ {
			if at(now, lid) != at(before, lid) {
				moved++
			}
		}
	}
	if said != moved || moved == 0 || sls == 0 {
		t.Fatalf("the full recompute says %d LFT entries and %d path SLs change; %d entries differ", said, sls, moved)
	}
	back, err := Compute(js, cfg, 2, repaired)
	if err != nil || !strings.Contains(back.Summary(), "repaired the last") {
		t.Fatalf("the cable back: %v %s", err, back.Summary())
	}
	// back to the intact routing
	for _, id := range f.IDsOf(fabric.Switch) {
		x, _ := back.LFT(f.GUID(id))
		y, _ := first.LFT(f.GUID(id))
		if !bytes.Equal(x, y) {
			t.Fatalf("%s: with the cable back the tables are not the intact ones", f.Name(id))
		}
	}
}

// TestPluginRecomputesWhenTheSettingsChange drives the plugin through a
// seeded run of sweeps, each of which may edit the settings file (a
// comment, or another seed) and fail a cable. The plugin must recompute in
// full exactly when the file's text changed — SIGHUP starts such a sweep,
// so that is how an operator forces a recompute — and say so, with tables
// that are then the pipeline's for the new settings; otherwise it repairs
// (or recomputes for a reason of the repair's own, never the settings).
func TestPluginRecomputesWhenTheSettingsChange(t *testing.T) {
	intact, _ := subnet(t, 2)
	var bySettings, repairs, others int
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0x5e77))
		text, routeSeed := "vls = 4\nseed = 1\n", 1
		path := settings(t, text)
		f := intact
		var last *State
		for sweep := 0; sweep < 8; sweep++ {
			edited := false
			switch rng.IntN(3) {
			case 0:
				text += fmt.Sprintf("# recompute %d\n", sweep)
				edited = true
			case 1:
				routeSeed = 1 + rng.IntN(3)
				next := fmt.Sprintf("vls = 4\nseed = %d\n", routeSeed)
				edited = next != text
				text = next
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if rng.IntN(2) == 0 && len(failures.InterSwitch(f)) > 0 {
				inter := failures.InterSwitch(f)
				g, err := f.Without(nil, []int{inter[rng.IntN(len(inter))]})
				if err == nil && len(g.SwitchView().Components()) == 1 {
					f = g
				}
			}
			var js bytes.Buffer
			if err := fabric.WriteJSON(&js, f); err != nil {
				t.Fatal(err)
			}
			st, err := Compute(js.Bytes(), path, 2, last)
			if err != nil {
				t.Fatalf("seed %d sweep %d: %v", seed, sweep, err)
			}
			said := strings.Contains(st.Summary(), "settings file "+path+" changed since the last routing; recomputing in full")
			repaired := strings.Contains(st.Summary(), "repaired the last routing")
			switch {
			case last != nil && edited != said:
				t.Fatalf("seed %d sweep %d: settings edited %v, but the log line says %q", seed, sweep, edited, st.Summary())
			case said && repaired:
				t.Fatalf("seed %d sweep %d: the settings changed, yet the plugin repaired: %s", seed, sweep, st.Summary())
			case last != nil && !edited && !repaired && !strings.Contains(st.Summary(), "recomputing in full"):
				t.Fatalf("seed %d sweep %d: neither a repair nor a reason to recompute: %s", seed, sweep, st.Summary())
			}
			switch {
			case said:
				bySettings++
			case repaired:
				repairs++
			case last != nil:
				others++
			}
			if !repaired {
				want, err := pipeline.Run(f, pipeline.Config{Deadlock: "auto", VLs: 4, Seed: uint64(routeSeed), LIDsFromFabric: true, Workers: 2})
				if err != nil {
					t.Fatal(err)
				}
				for _, sw := range want.Tables.Switches() {
					if got, _ := st.LFT(f.GUID(sw)); !bytes.Equal(got, want.Tables.LFT(sw)) {
						t.Fatalf("seed %d sweep %d: %s: the recomputed table is not the pipeline's with seed %d", seed, sweep, f.Name(sw), routeSeed)
					}
				}
			}
			last = st
		}
	}
	t.Logf("%d recomputes for a changed settings file, %d repairs, %d recomputes the repair asked for", bySettings, repairs, others)
	if bySettings == 0 || repairs == 0 {
		t.Fatal("the run of sweeps did not exercise both outcomes")
	}
}

// sentOf is the "to send: …" part of a summary line.
func sentOf(t *testing.T, summary string) string {
	t.Helper()
	i := strings.Index(summary, "to send: ")
	if i < 0 {
		t.Fatalf("no 'to send' in %q", summary)
	}
	return summary[i:]
}

// TestPluginRepairsAChainOfFailures: through seeded chains of failures on
// Slim Fly q = 5 (cables one at a time up to 3 % of them, a switch, then
// everything plugged back in a random order), every sweep of the plugin is
// a repair of the last one's routing, never a full recompute, its tables
// pass the verifier, and once everything is back the tables are the first
// sweep's. 8 VLs: on 4, a long chain may exhaust the spare VL (see the
// repair package's chain test).
func TestPluginRepairsAChainOfFailures(t *testing.T) {
	f, js := slimFlySubnet(t, 5, 2)
	cfg := settings(t, "vls = 8\n")
	first, err := Compute(js, cfg, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	sweepChains(t, f, cfg, first, 0.03, 1, 2, func(where string, _ failures.Step, st *State) {
		if !strings.Contains(st.Summary(), "repaired the last routing") {
			t.Fatalf("%s: not a repair: %s", where, st.Summary())
		}
	})
}

// sweepChains gives the plugin, from its first sweep's state, the seeded
// chains of failures of f (share of the cables, then switches switches,
// then everything back, seeds 1 to seeds), a sweep per step: every sweep
// must route, pass the verifier and check, and every chain must end on
// the first sweep's tables.
func sweepChains(t *testing.T, f *fabric.Fabric, cfg string, first *State, share float64, switches int, seeds uint64, check func(where string, step failures.Step, st *State)) {
	t.Helper()
	for seed := uint64(1); seed <= seeds; seed++ {
		steps, err := failures.Chain(f, share, switches, seed)
		if err != nil {
			t.Fatal(err)
		}
		last := first
		for i, step := range steps {
			where := fmt.Sprintf("seed %d step %d (%s)", seed, i+1, step.Change)
			var b bytes.Buffer
			if err := fabric.WriteJSON(&b, step.Fabric); err != nil {
				t.Fatal(err)
			}
			st, err := Compute(b.Bytes(), cfg, 2, last)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if rep, err := verify.Check(st.tables, 2); err != nil || !rep.Acyclic() {
				t.Fatalf("%s: the verifier refuses: %v", where, err)
			}
			check(where, step, st)
			last = st
		}
		for _, id := range f.IDsOf(fabric.Switch) {
			x, _ := last.LFT(f.GUID(id))
			y, _ := first.LFT(f.GUID(id))
			if !bytes.Equal(x, y) {
				t.Fatalf("seed %d: %s: with everything back the tables are not the first sweep's", seed, f.Name(id))
			}
		}
	}
}

// TestPluginKeepsRoutingPastTheRepairBudget: seeded chains on Slim Fly
// q = 5 with vls = 4 that go past what a repair covers (8 % of the cables
// and two switches gone, beyond maxGoneShare), then everything back in a
// random order: where a full recompute does not fit 4 VLs, every sweep
// still hands OpenSM a routing — the last one repaired — that the
// verifier accepts on the fabric of that sweep, and the chain ends on the
// first sweep's tables.
func TestPluginKeepsRoutingPastTheRepairBudget(t *testing.T) {
	f, js := slimFlySubnet(t, 5, 2)
	cfg := settings(t, "vls = 4\n")
	first, err := Compute(js, cfg, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	kept, dark := 0, 0
	sweepChains(t, f, cfg, first, 0.08, 2, 3, func(where string, step failures.Step, st *State) {
		if strings.Contains(st.Summary(), "kept the last routing") {
			kept++
		}
		if len(st.dark) > 0 {
			dark++
		}
		if p, ok := unrouted(st, step.Fabric); ok {
			t.Fatalf("%s: %s is cabled to a switch the routing serves but has no LID in it", where, step.Fabric.PortString(p))
		}
		for _, id := range step.Fabric.IDsOf(fabric.Switch) {
			if _, ok := st.LFT(step.Fabric.GUID(id)); !ok {
				t.Fatalf("%s: no table for %s", where, step.Fabric.Name(id))
			}
		}
	})
	t.Logf("%d sweeps kept the last routing where a full recompute did not fit, %d of them leaving switches out", kept, dark)
}

// unrouted returns a port of an HCA of g cabled to a switch st routes
// (not one it leaves out) that st's tables hold no LID of.
func unrouted(st *State, g *fabric.Fabric) (fabric.PortRef, bool) {
	has := map[fabric.GUID]bool{}
	for _, pl := range st.tables.LIDs().Ports() {
		has[st.tables.Fabric().GUID(pl.Port.Node)] = true
	}
	for _, l := range g.Links() {
		a, b := l.A, l.B
		if g.Node(a.Node).Kind == fabric.Switch {
			a, b = b, a
		}
		if g.Node(a.Node).Kind != fabric.Switch && !st.dark[g.GUID(b.Node)] && !has[g.GUID(a.Node)] {
			return a, true
		}
	}
	return fabric.PortRef{}, false
}

// TestPluginRoutesForTheJobFile: with jobs = FILE in the settings, the
// plugin routes for the jobs as the pipeline does with the same traffic
// (every switch's LFT the same), says so in its log line, recomputes in
// full when the job file changes (and repairs as before when it does
// not), and routes without the jobs, saying why, when the file names a
// host the subnet lacks.
func TestPluginRoutesForTheJobFile(t *testing.T) {
	f, js := slimFlySubnet(t, 5, 2)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "slimroute.toml")
	jobsFile := filepath.Join(dir, "jobs.txt")
	write := func(p, text string) {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(cfg, "vls = 4\njobs = \"jobs.txt\"\n")
	var hosts []string
	for _, h := range f.IDsOf(fabric.HCA) {
		hosts = append(hosts, f.Name(h))
	}
	rand.New(rand.NewPCG(4, 4)).Shuffle(len(hosts), func(a, b int) { hosts[a], hosts[b] = hosts[b], hosts[a] })
	write(jobsFile, "1 "+strings.Join(hosts[:40], ",")+" ring\n2 "+strings.Join(hosts[40:90], ",")+" tree\n")
	st, err := Compute(js, cfg, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.Summary(), "routed for the jobs'") {
		t.Fatalf("the log line does not say the plugin routed for the jobs: %s", st.Summary())
	}
	text, _ := os.ReadFile(jobsFile)
	jl, err := jobs.Read(bytes.NewReader(text), jobsFile)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := jobs.Traffic(f, jl, jobsFile)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(f, pipeline.Config{Deadlock: "auto", VLs: 4, LMC: 0, LIDsFromFabric: true, Workers: 2, Traffic: tr})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range f.IDsOf(fabric.Switch) {
		got, _ := st.LFT(f.GUID(id))
		if !bytes.Equal(got, res.Tables.LFT(id)) {
			t.Fatalf("%s: the plugin's LFT differs from the pipeline's for the same jobs", f.Name(id))
		}
	}
	again, err := Compute(js, cfg, 2, st)
	if err != nil || !strings.Contains(again.Summary(), "repaired the last routing") {
		t.Fatalf("an unchanged job file: %v %s", err, again.Summary())
	}
	write(jobsFile, "1 "+strings.Join(hosts[:60], ",")+" ring\n")
	changed, err := Compute(js, cfg, 2, again)
	if err != nil || !strings.Contains(changed.Summary(), "the job file jobs.txt changed since the last routing; routed for the jobs from the last routing's tables") ||
		!strings.Contains(changed.Summary(), "switch-over judged safe") {
		t.Fatalf("a changed job file, the subnet as it was: not a safe switch-over: %v %s", err, changed.Summary())
	}
	rep, err := transition.Check(st.tables, changed.tables)
	if err != nil || !rep.Safe() {
		t.Fatalf("the switch-over: %v %s", err, rep)
	}
	t.Log(changed.Summary())
	write(cfg, "vls = 4\njobs = \"jobs.txt\"\nrepair = false\n")
	unrepaired, err := Compute(js, cfg, 2, changed)
	if err != nil {
		t.Fatal(err)
	}
	write(jobsFile, "1 "+strings.Join(hosts[10:70], ",")+" ring\n")
	changed, err = Compute(js, cfg, 2, unrepaired)
	if err != nil || !strings.Contains(changed.Summary(), "the job file jobs.txt changed since the last routing") || !strings.Contains(changed.Summary(), "switch-over") {
		t.Fatalf("a changed job file, repair = false: the switch-over is not judged: %v %s", err, changed.Summary())
	}
	write(jobsFile, "1 nosuchhost[01-02] ring\n")
	bad, err := Compute(js, cfg, 2, changed)
	if err != nil || !strings.Contains(bad.Summary(), "routing without the jobs") || !strings.Contains(bad.Summary(), "nosuchhost01") {
		t.Fatalf("a job file naming unknown hosts: %v %s", err, bad.Summary())
	}
}

// TestPluginMendsUnlessTold: after a cable fails, the plugin's repair
// mends by default (the log line counts the entries of routes that did
// not break it moved) and moves none with mend = false; the two repairs
// differ in exactly those entries.
func TestPluginMendsUnlessTold(t *testing.T) {
	f, js := subnet(t, 2)
	broken, b := withoutACable(t, f)
	var states [2]*State
	var moved [2]int
	for i, text := range []string{"vls = 4\n", "vls = 4\nmend = false\n"} {
		cfg := settings(t, text)
		first, err := Compute(js, cfg, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if states[i], err = Compute(b.Bytes(), cfg, 2, first); err != nil {
			t.Fatal(err)
		}
		sum := states[i].Summary()
		at := strings.Index(sum, " of routes that did not break moved")
		if at < 0 {
			t.Fatalf("%q: no repair: %s", text, sum)
		}
		fields := strings.Fields(sum[:at])
		if moved[i], err = strconv.Atoi(strings.TrimSuffix(fields[len(fields)-1], ",")); err != nil {
			t.Fatal(err)
		}
	}
	if moved[0] == 0 || moved[1] != 0 {
		t.Fatalf("entries mended by default %d, with mend = false %d", moved[0], moved[1])
	}
	differ := 0
	for _, id := range broken.IDsOf(fabric.Switch) {
		a, _ := states[0].LFT(broken.GUID(id))
		c, _ := states[1].LFT(broken.GUID(id))
		for lid := range a {
			if a[lid] != c[lid] {
				differ++
			}
		}
	}
	if differ != moved[0] {
		t.Fatalf("the repairs differ in %d entries, %d were mended", differ, moved[0])
	}
}

// withoutACable returns f without the first switch-to-switch cable of
// sw-0-0-0, and that fabric as the shim hands it over.
func withoutACable(t *testing.T, f *fabric.Fabric) (*fabric.Fabric, *bytes.Buffer) {
	t.Helper()
	sw, _ := f.NodeByName("sw-0-0-0")
	var li int
	for p := 1; p <= f.Ports(sw); p++ {
		if peer, ok := f.Peer(fabric.PortRef{Node: sw, Port: p}); ok && f.Kind(peer.Node) == fabric.Switch {
			li, _ = f.LinkAt(fabric.PortRef{Node: sw, Port: p})
			break
		}
	}
	broken, err := f.Without(nil, []int{li})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := fabric.WriteJSON(&b, broken); err != nil {
		t.Fatal(err)
	}
	return broken, &b
}
