package e2e

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"slimroute/clos"
	"slimroute/deadlock"
	"slimroute/dragonflyplus"
	"slimroute/fabric"
	"slimroute/hyperx"
	"slimroute/internal/ibsimtest"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/polarfly"
	"slimroute/slimfly"
	"slimroute/verify"
)

// routed is a fabric routed in-process the way `slimroute route` does.
type routed struct {
	f   *fabric.Fabric
	r   *layers.Routing
	a   *deadlock.Assignment
	tab *lft.Tables
	dir string // the files slimroute route wrote
	net string
}

// fabricCase names a fabric the OpenSM tests run on: the CLI arguments
// that build it and the builder that gives the same fabric in-process.
type fabricCase struct {
	name  string
	topo  []string // slimroute topo arguments
	build func() (*fabric.Fabric, error)
}

var (
	caseQ5   = fabricCase{"slimfly-q5", []string{"slimfly", "--q", "5"}, func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 5}) }}
	caseQ7   = fabricCase{"slimfly-q7", []string{"slimfly", "--q", "7"}, func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 7}) }}
	caseClos = fabricCase{"clos-2level", []string{"clos", "--radix", "16"}, func() (*fabric.Fabric, error) { return clos.Build(clos.Params{Radix: 16}) }}
	// the other low-diameter designs, small
	casePF5 = fabricCase{"polarfly-q5", []string{"polarfly", "--q", "5"}, func() (*fabric.Fabric, error) { return polarfly.Build(polarfly.Params{Q: 5}) }}
	caseHX  = fabricCase{"hyperx-4x4", []string{"hyperx", "--dims", "4x4"}, func() (*fabric.Fabric, error) { return hyperx.Build(hyperx.Params{Dims: []int{4, 4}}) }}
	caseDFP = fabricCase{"dragonfly-plus-5", []string{"dragonfly-plus", "--groups", "5", "--leaves", "2", "--spines", "2", "--global", "2", "--endpoints", "2"}, func() (*fabric.Fabric, error) {
		return dragonflyplus.Build(dragonflyplus.Params{Radix: 8, Groups: 5, Leaves: 2, Spines: 2, Global: 2, Endpoints: 2})
	}}
)

// routeCase routes a fabric with the CLI (4 layers, LMC 2) and in-process,
// and checks that both give the same tables.
func routeCase(t *testing.T, fc fabricCase, scheme string) *routed {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "route")
	net := filepath.Join(dir, fc.name+".net")
	run(t, append(append([]string{"topo"}, fc.topo...), "-o", net)...)
	run(t, "route", "--fabric", net, "--layers", "4", "--deadlock", scheme, "-o", out)
	f, err := fc.build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(f, pipeline.Config{Layers: 4, Deadlock: scheme, Seed: 1, LMC: -1})
	if err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(filepath.Join(out, "opensm-lfts.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	mine, err := lft.ReadOpenSMLFTs(fh, "opensm-lfts.txt", f)
	if err != nil {
		t.Fatal(err)
	}
	if d := lft.DiffLFTs(res.Tables, mine, 5); len(d) > 0 {
		t.Fatalf("slimroute route wrote other tables than the pipeline computes: %v", d)
	}
	return &routed{f: f, r: res.Routing, a: res.Assignment, tab: res.Tables, dir: out, net: net}
}

var tracertHop = regexp.MustCompile(`-> switch port \{0x[0-9a-f]+\}\[\d+\].*"([^"]+)"\s*$`)

// TestOpenSMFileEngineProgramsOurTables loads slimroute's LFT file and
// guid2lid into OpenSM's file engine on the simulated q=5 Slim Fly (LMC 2,
// 4 layers, hop-indexed VLs) and reads back what the switches hold: ibroute
// shows exactly our tables on every switch, OpenSM kept our LIDs,
// ibtracert follows the predicted path for 200 sampled (source,
// destination, offset) triples, and our verifier, run on OpenSM's own LFT
// dump with our path SLs and SL2VL tables, finds every LID reachable and no
// CDG cycle.
func TestOpenSMFileEngineProgramsOurTables(t *testing.T) {
	ibsimtest.Require(t, "opensm", "ibroute", "ibtracert", "ibnetdiscover")
	for _, fc := range []fabricCase{caseQ5, caseQ7, caseClos} {
		t.Run(fc.name, func(t *testing.T) { fileEngine(t, fc) })
	}
}

func fileEngine(t *testing.T, fc fabricCase) {
	rt := routeCase(t, fc, "auto")
	sim := ibsimtest.Start(t, rt.net, ibsimtest.LimitsFor(rt.f)...)
	g2l, err := os.ReadFile(filepath.Join(rt.dir, "guid2lid"))
	if err != nil {
		t.Fatal(err)
	}
	dumpDir := sim.OpenSMWithLIDs(t, 5*time.Minute, g2l, "-l", "2", "-R", "file", "-U", filepath.Join(rt.dir, "opensm-lfts.txt"))
	logb, _ := os.ReadFile(filepath.Join(dumpDir, "opensm.log"))
	if !bytes.Contains(logb, []byte("file tables configured on all switches")) {
		t.Fatalf("OpenSM did not use the file engine:\n%s", logb)
	}

	// OpenSM kept our LIDs
	disc := filepath.Join(sim.Dir, "discovered")
	os.WriteFile(disc, []byte(sim.Run(t, time.Minute, "ibnetdiscover")), 0o644)
	found := readFabric(t, disc, fabric.FormatIBNetDiscover)
	for _, p := range rt.tab.LIDs().Ports() {
		name := rt.f.Node(p.Port.Node).Name
		id, _ := found.NodeByName(name)
		if got := found.Node(id).Attrs[p.Port.Port]; got.LID != uint16(p.Base) || (p.Port.Port != 0 && got.LMC != 2) {
			t.Fatalf("%s port %d: LID %d LMC %d, planned %d LMC %d", name, p.Port.Port, got.LID, got.LMC, p.Base, p.LMC)
		}
	}

	// ibroute on every switch shows exactly our table
	checkIBRoute(t, sim, rt)

	checkTracert(t, sim, rt, 200)

	// our verifier on what OpenSM dumped, with our SLs and SL2VL as if they
	// were in force
	rep := verifyDump(t, rt, dumpDir, "")
	t.Logf("%s, OpenSM file engine: %d switches match, 200 ibtracert paths as predicted; verifier on its dump: %d paths, %d VLs, acyclic", fc.name, len(rt.tab.Switches()), rep.Walks, rep.VLs)

	// but they are not: the file engine programs the LFTs alone, the SA
	// answers SL 0 and the switches keep their SL2VL. slimroute check on
	// the dump directory judges what is in force: every path on SL 0 and
	// VL 0 — a credit loop exactly where the tables alone have one
	inForce, err := verify.Check(readDump(t, rt, dumpDir), 2)
	if err != nil {
		t.Fatal(err)
	}
	out, status := runStatus(t, "check", "--dumps", dumpDir)
	if want := map[bool]int{true: 0, false: 1}[inForce.Acyclic()]; status != want || strings.Contains(out, "CREDIT LOOP") == inForce.Acyclic() || !strings.Contains(out, "every path on SL 0") {
		t.Errorf("check on the file engine's dumps: exit %d, want %d (tables alone acyclic: %v)\n%s", status, want, inForce.Acyclic(), out)
	}
	t.Logf("%s, OpenSM file engine: as in force (SL 0, VL 0) acyclic %v; slimroute check agrees", fc.name, inForce.Acyclic())
}

// checkTracert runs ibtracert for n sampled (source, destination, LID
// offset) triples and requires the switches it passes to be the ones the
// routing predicts.
func checkTracert(t *testing.T, sim *ibsimtest.Sim, rt *routed, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	dests := rt.r.Dests()[:rt.r.NumEndpoints()]
	for i := 0; i < n; i++ {
		si, dst, off := rng.IntN(len(dests)), rng.IntN(len(dests)), rng.IntN(4)
		if si == dst {
			i--
			continue
		}
		src := dests[si]
		sl, _ := rt.tab.LIDs().Of(src.Port)
		dl, _ := rt.tab.LIDs().Of(dests[dst].Port)
		out := sim.Run(t, time.Minute, "ibtracert", fmt.Sprint(sl.Base), fmt.Sprint(int(dl.Base)+off))
		var got []string
		for _, line := range strings.Split(out, "\n") {
			if m := tracertHop.FindStringSubmatch(line); m != nil {
				got = append(got, m[1])
			}
		}
		path, err := rt.r.Path(off, src.Switch, dst)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, s := range path {
			want = append(want, rt.f.Node(rt.r.SwitchID(s)).Name)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("ibtracert %d -> %d (offset %d): %v, predicted %v\n%s", sl.Base, int(dl.Base)+off, off, got, want, out)
		}
	}
}

// checkIBRoute reads every switch's table with ibroute, requires it to
// equal the routing's, and returns ibroute's output.
func checkIBRoute(t *testing.T, sim *ibsimtest.Sim, rt *routed) string {
	t.Helper()
	var all bytes.Buffer
	for _, sw := range rt.tab.Switches() {
		own, _ := rt.tab.LIDs().Of(fabric.PortRef{Node: sw})
		all.WriteString(sim.Run(t, time.Minute, "ibroute", fmt.Sprint(own.Base)))
	}
	text := all.String()
	programmed, err := lft.ReadIBRoute(&all, "ibroute", rt.f)
	if err != nil {
		t.Fatal(err)
	}
	if d := lft.DiffLFTs(rt.tab, programmed, 10); len(d) > 0 {
		t.Fatalf("ibroute differs from our tables:\n%s", strings.Join(d, "\n"))
	}
	return text
}

// verifyDump runs our verifier on the LFT dump OpenSM wrote in dir, with
// our path SLs and the SL2VL tables sl2vl (text in the -d layout; "": our
// own), read from text the way `slimroute verify` reads them.
func verifyDump(t *testing.T, rt *routed, dir, sl2vl string) *verify.Report {
	t.Helper()
	theirs := readDump(t, rt, dir)
	var err error
	var psl, vls bytes.Buffer
	if err := lft.WritePathSL(&psl, rt.tab, 2); err != nil {
		t.Fatal(err)
	}
	if theirs, err = lft.ReadPathSL(&psl, "path-sl", theirs); err != nil {
		t.Fatal(err)
	}
	if sl2vl == "" {
		lft.WriteSL2VL(&vls, rt.tab)
		sl2vl = vls.String()
	}
	if theirs, err = lft.ReadSL2VL(strings.NewReader(sl2vl), "sl2vl", theirs); err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Check(theirs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Acyclic() {
		t.Fatalf("cycle in OpenSM's tables: %s", rep.CycleString())
	}
	return rep
}

// readDump reads the LFT dump OpenSM wrote into dir onto rt's fabric.
func readDump(t *testing.T, rt *routed, dir string) *lft.Tables {
	t.Helper()
	fh, err := os.Open(filepath.Join(dir, "opensm-lfts.dump"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	tab, err := lft.ReadOpenSMLFTs(fh, "opensm-lfts.dump", rt.f)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}
