package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/slimfly"
	"slimroute/transition"
)

// TestJobFileChangesSwitchOverOffline: route --jobs NEW --previous DIR
// switches over as the plugin does. On Slim Fly q = 5, drawn chains of
// four job files (the first routed in full, with or without jobs; each
// next one with --previous the directory before): every step replays
// the previous routing and routes from it, and package transition,
// reading both directories' files, judges every switch-over safe, with
// no path SL and no SL2VL entry changed and the LFT entries that change
// the ones summary.json counts, all toward hosts of the new jobs.
// A directory whose files were edited after route wrote them is not
// replayed, but recomputed in full and judged.
func TestJobFileChangesSwitchOverOffline(t *testing.T) {
	dir := t.TempDir()
	f, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	net := writeFabric(t, dir, "sf5.json", f)
	var hosts []string
	for _, h := range f.IDsOf(fabric.HCA) {
		hosts = append(hosts, f.Name(h))
	}
	draws := 3
	if testing.Short() {
		draws = 1
	}
	var last string
	for draw := 0; draw < draws; draw++ {
		rng := rand.New(rand.NewPCG(uint64(draw), 30))
		prev := filepath.Join(dir, fmt.Sprintf("d%d-0", draw))
		args := []string{"route", "--fabric", net, "-o", prev}
		if draw%2 == 0 {
			args = append(args, "--jobs", writeJobs(t, dir, fmt.Sprintf("j%d-0.jobs", draw), drawJobLines(rng, hosts)))
		}
		if out, err := runApp(t, args...); err != nil {
			t.Fatalf("draw %d: %v\n%s", draw, err, out)
		}
		for step := 1; step < 4; step++ {
			lines := drawJobLines(rng, hosts)
			next := filepath.Join(dir, fmt.Sprintf("d%d-%d", draw, step))
			out, err := runApp(t, "route", "--fabric", net, "--jobs", writeJobs(t, dir, fmt.Sprintf("j%d-%d.jobs", draw, step), lines), "--previous", prev, "-o", next)
			if err != nil || !strings.Contains(out, "replayed the routing in "+prev) || !strings.Contains(out, "routed from the tables in "+prev) {
				t.Fatalf("draw %d step %d: %v\n%s", draw, step, err, out)
			}
			judgeOfflineSwitchOver(t, f, prev, next, lines, fmt.Sprintf("draw %d step %d", draw, step))
			prev = next
		}
		last = prev
	}
	// every job ended (an empty job file), then new ones: both switch over
	for i, lines := range [][]string{nil, drawJobLines(rand.New(rand.NewPCG(9, 30)), hosts)} {
		next := filepath.Join(dir, fmt.Sprintf("ended-%d", i))
		out, err := runApp(t, "route", "--fabric", net, "--jobs", writeJobs(t, dir, fmt.Sprintf("ended-%d.jobs", i), lines), "--previous", last, "-o", next)
		if err != nil || !strings.Contains(out, "routed from the tables in "+last) || !strings.Contains(out, "switch-over judged safe") {
			t.Fatalf("after every job ended, step %d: %v\n%s", i, err, out)
		}
		last = next
	}
	// new jobs and a cable gone: recomputed in full, the switch-over
	// judged with the previous tables on the fabric as it is now
	var cable int
	for i, l := range f.Links() {
		if f.Kind(l.A.Node) == fabric.Switch && f.Kind(l.B.Node) == fabric.Switch {
			cable = i
			break
		}
	}
	damaged, err := f.Without(nil, []int{cable})
	if err != nil {
		t.Fatal(err)
	}
	now := filepath.Join(dir, "damaged")
	out, err := runApp(t, "route", "--fabric", writeFabric(t, dir, "damaged.json", damaged), "--jobs", filepath.Join(dir, "j0-2.jobs"), "--previous", last, "-o", now)
	if err != nil || !strings.Contains(out, "recomputing in full") {
		t.Fatalf("new jobs and a cable gone: %v\n%s", err, out)
	}
	checkAgainstPrevious(t, "new jobs and a cable gone", out, last, now, f, damaged)

	// an edited directory: one LFT entry of a switch changed by hand
	lfts := filepath.Join(last, "opensm-lfts.txt")
	b, _ := os.ReadFile(lfts)
	i := bytes.Index(b, []byte("\n0x0002 ")) + 1 // sw-0-0-0's entry toward the second switch
	line := string(b[i : i+10])
	port, err := strconv.Atoi(line[7:])
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	edited := fmt.Sprintf("0x0002 %03d", 1+port%7)
	os.WriteFile(lfts, slices.Concat(b[:i], []byte(edited), b[i+10:]), 0o644)
	full := filepath.Join(dir, "edited")
	out, err = runApp(t, "route", "--fabric", net, "--jobs", filepath.Join(dir, "j0-1.jobs"), "--previous", last, "-o", full)
	if err != nil || !strings.Contains(out, "replaying it gave other tables than its files hold") || !strings.Contains(out, "recomputing in full") {
		t.Fatalf("an edited directory (%q → %q): %v\n%s", line, edited, err, out)
	}
	checkAgainstPrevious(t, "the edited directory's full recompute", out, last, full, f, f)
}

// judgeOfflineSwitchOver judges the switch-over from the routing in prev
// to the one in next, routed for the jobs of lines.
func judgeOfflineSwitchOver(t *testing.T, f *fabric.Fabric, prev, next string, lines []string, what string) {
	t.Helper()
	old, now := readRouteDir(t, f, prev), readRouteDir(t, f, next)
	rep, err := transition.Check(old, now)
	if err != nil || !rep.Safe() || rep.Changed.PathSLs != 0 || rep.Changed.SL2VL != 0 || rep.Changed.Entries == 0 {
		t.Fatalf("%s: %v %v", what, err, rep)
	}
	var sum struct {
		Jobs struct {
			From    string   `json:"switched_over_from"`
			History []string `json:"history"`
		} `json:"jobs"`
		Against struct {
			Entries    int `json:"lft_entries_changed"`
			SwitchOver struct {
				Safe bool `json:"safe"`
			} `json:"switch_over"`
		} `json:"against_previous"`
	}
	b, _ := os.ReadFile(filepath.Join(next, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil || sum.Jobs.From != prev || !sum.Against.SwitchOver.Safe || sum.Against.Entries != rep.Changed.Entries {
		t.Fatalf("%s: summary.json says %+v (%v); transition counts %d entries", what, sum, err, rep.Changed.Entries)
	}
	for _, name := range []string{"path-sl.txt", "sl2vl.txt"} {
		a, _ := os.ReadFile(filepath.Join(prev, name))
		b, _ := os.ReadFile(filepath.Join(next, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: %s changed", what, name)
		}
	}
	jobLIDs := map[lft.LID]bool{}
	for _, l := range lines {
		for _, h := range strings.Split(strings.Fields(l)[1], ",") {
			id, _ := f.NodeByName(h)
			p, ok := now.LIDs().Of(fabric.PortRef{Node: id, Port: 1})
			if !ok {
				t.Fatalf("%s: host %s has no LIDs", what, h)
			}
			for lid := p.Base; lid <= p.Top(); lid++ {
				jobLIDs[lid] = true
			}
		}
	}
	for _, sw := range now.Switches() {
		for lid := lft.LID(1); lid <= now.LIDs().Top(); lid++ {
			if old.Port(sw, lid) != now.Port(sw, lid) && !jobLIDs[lid] {
				t.Fatalf("%s: %s's entry for LID %d changed, no host of the new jobs'", what, f.Name(sw), lid)
			}
		}
	}
}

// readRouteDir reads the tables route wrote into dir, onto f.
func readRouteDir(t *testing.T, f *fabric.Fabric, dir string) *lft.Tables {
	t.Helper()
	open := func(name string) *os.File {
		fh, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fh.Close() })
		return fh
	}
	tab, err := lft.ReadOpenSMLFTs(open("opensm-lfts.txt"), "opensm-lfts.txt", f)
	if err == nil {
		tab, err = lft.ReadPathSL(open("path-sl.txt"), "path-sl.txt", tab)
	}
	if err == nil {
		tab, err = lft.ReadSL2VL(open("sl2vl.txt"), "sl2vl.txt", tab)
	}
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// drawJobLines draws 2 to 5 jobs of 8 to 40 distinct hosts, scattered,
// with drawn patterns and weights, and phases for some, as job file lines.
func drawJobLines(rng *rand.Rand, hosts []string) []string {
	free := rng.Perm(len(hosts))
	var lines []string
	for k := 0; k < 2+rng.IntN(4) && len(free) >= 8; k++ {
		n := min(len(free), 8+rng.IntN(33))
		var names []string
		for _, h := range free[:n] {
			names = append(names, hosts[h])
		}
		free = free[n:]
		l := fmt.Sprintf("%d %s %s weight=%d", 500+k, strings.Join(names, ","), []string{"ring", "tree", "all-to-all", "neighbours"}[rng.IntN(4)], 1+rng.IntN(3))
		if rng.IntN(2) == 0 {
			a := rng.IntN(50)
			l += fmt.Sprintf(" period=100 phases=%d-%d", a, a+1+rng.IntN(50))
		}
		lines = append(lines, l)
	}
	return lines
}
