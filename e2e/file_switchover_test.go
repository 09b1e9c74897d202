package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/ibsimtest"
	"slimroute/lft"
	"slimroute/slimfly"
	"slimroute/transition"
)

// TestOpenSMFileEngineSwitchesOverToNewJobs: where OpenSM loads
// slimroute's files (routing_engine file), a changed job file is routed
// offline with route --jobs NEW --previous DIR and the new LFT file put
// where OpenSM reads it, then SIGHUP. On the simulated q = 5 Slim Fly,
// twice (two drawn job files after the first): ibroute shows the new
// tables on every switch; package transition, on what OpenSM held before
// and after (its LFT dumps, with the routings' path SLs and SL2VL tables),
// judges the switch-over safe, with no path SL and no SL2VL entry
// changed; and the LFT blocks that differ between the dumps are the ones
// route said it would send (summary.json, against_previous).
func TestOpenSMFileEngineSwitchesOverToNewJobs(t *testing.T) {
	ibsimtest.Require(t, "opensm", "ibroute")
	dir := t.TempDir()
	net := filepath.Join(dir, "sf5.net")
	run(t, "topo", "slimfly", "--q", "5", "-o", net)
	f, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, h := range f.IDsOf(fabric.HCA) {
		hosts = append(hosts, f.Name(h))
	}
	rng := rand.New(rand.NewPCG(17, 5))
	jobFile := func(i int) string {
		path := filepath.Join(dir, fmt.Sprintf("jobs-%d.txt", i))
		os.WriteFile(path, []byte(strings.Join(drawJobs(rng, hosts), "\n")+"\n"), 0o644)
		return path
	}
	prev := filepath.Join(dir, "route-0")
	run(t, "route", "--fabric", net, "--jobs", jobFile(0), "-o", prev)
	live := filepath.Join(dir, "opensm-lfts.txt") // the file OpenSM reads at each sweep
	copyFile(t, filepath.Join(prev, "opensm-lfts.txt"), live)
	g2l, err := os.ReadFile(filepath.Join(prev, "guid2lid"))
	if err != nil {
		t.Fatal(err)
	}
	sim := ibsimtest.Start(t, net, ibsimtest.LimitsFor(f)...)
	sm := sim.StartOpenSM(t, ibsimtest.SMOptions{Config: "lmc 2\nrouting_engine file\nforce_log_flush TRUE\n", GUID2LID: g2l, Args: []string{"-U", live}})
	const configured = "file tables configured on all switches"
	waitForLog(t, sm, configured, 1)
	checkIBRoute(t, sim, &routed{f: f, tab: readRouteFiles(t, f, prev)})
	for step := 1; step <= 2; step++ {
		before := readDumpWith(t, f, sm.Dir, prev)
		next := filepath.Join(dir, fmt.Sprintf("route-%d", step))
		out := run(t, "route", "--fabric", net, "--jobs", jobFile(step), "--previous", prev, "-o", next)
		if !strings.Contains(out, "routed from the tables in "+prev) || !strings.Contains(out, "switch-over judged safe") {
			t.Fatalf("step %d: route did not switch over:\n%s", step, out)
		}
		copyFile(t, filepath.Join(next, "opensm-lfts.txt"), live)
		if err := syscall.Kill(sm.PID(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		waitForLog(t, sm, configured, step+1)
		now := readRouteFiles(t, f, next)
		checkIBRoute(t, sim, &routed{f: f, tab: now})
		after := readDumpWith(t, f, sm.Dir, next)
		rep, err := transition.Check(before, after)
		if err != nil || !rep.Safe() || rep.Changed.PathSLs != 0 || rep.Changed.SL2VL != 0 || rep.Changed.Entries == 0 {
			t.Fatalf("step %d: the switch-over between OpenSM's dumps: %v\n%v", step, err, rep)
		}
		blocks, _ := lft.Sent(before, after)
		var sum struct {
			Against struct {
				Blocks int `json:"lft_blocks_to_send"`
			} `json:"against_previous"`
		}
		b, _ := os.ReadFile(filepath.Join(next, "summary.json"))
		if err := json.Unmarshal(b, &sum); err != nil || sum.Against.Blocks != blocks {
			t.Fatalf("step %d: route said %d LFT blocks to send (%v), OpenSM's dumps differ in %d", step, sum.Against.Blocks, err, blocks)
		}
		t.Logf("step %d: switched over offline, SIGHUP: the new tables on every switch (ibroute); %d LFT entries in %d blocks changed, no path SL or SL2VL entry; transition on OpenSM's dumps: safe (%d paths judged)",
			step, rep.Changed.Entries, blocks, rep.Paths)
		prev = next
	}
}

// drawJobs draws 2 to 4 scattered jobs of 8 to 40 hosts, as job file lines.
func drawJobs(rng *rand.Rand, hosts []string) []string {
	free := rng.Perm(len(hosts))
	var lines []string
	for k := 0; k < 2+rng.IntN(3); k++ {
		n := 8 + rng.IntN(33)
		var names []string
		for _, h := range free[:n] {
			names = append(names, hosts[h])
		}
		free = free[n:]
		lines = append(lines, fmt.Sprintf("%d %s %s", 300+k, strings.Join(names, ","), []string{"ring", "tree", "all-to-all"}[rng.IntN(3)]))
	}
	return lines
}

// copyFile copies src to dst by writing a temporary file and renaming it,
// as an operator would, so that OpenSM never reads half a file.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst+".new", b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dst+".new", dst); err != nil {
		t.Fatal(err)
	}
}

// readRouteFiles reads the tables route wrote into dir onto f.
func readRouteFiles(t *testing.T, f *fabric.Fabric, dir string) *lft.Tables {
	t.Helper()
	fh, err := os.Open(filepath.Join(dir, "opensm-lfts.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	tab, err := lft.ReadOpenSMLFTs(fh, "opensm-lfts.txt", f)
	if err != nil {
		t.Fatal(err)
	}
	return withSLs(t, tab, dir)
}

// readDumpWith reads the LFT dump OpenSM wrote into smDir onto f, with the
// path SLs and SL2VL tables route wrote into dir.
func readDumpWith(t *testing.T, f *fabric.Fabric, smDir, dir string) *lft.Tables {
	t.Helper()
	return withSLs(t, readDump(t, &routed{f: f}, smDir), dir)
}

// withSLs gives tab the path SLs and SL2VL tables route wrote into dir.
func withSLs(t *testing.T, tab *lft.Tables, dir string) *lft.Tables {
	t.Helper()
	for _, step := range []struct {
		name string
		read func(*os.File) (*lft.Tables, error)
	}{
		{"path-sl.txt", func(fh *os.File) (*lft.Tables, error) { return lft.ReadPathSL(fh, "path-sl.txt", tab) }},
		{"sl2vl.txt", func(fh *os.File) (*lft.Tables, error) { return lft.ReadSL2VL(fh, "sl2vl.txt", tab) }},
	} {
		fh, err := os.Open(filepath.Join(dir, step.name))
		if err != nil {
			t.Fatal(err)
		}
		tab, err = step.read(fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return tab
}
