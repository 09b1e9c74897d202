package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlaceMatchesAnalyzeAndRefusesBadRequests: on a routed q = 5 Slim
// Fly with three running jobs, place --json chooses 12 free hosts whose
// together and alone figures are the ones analyze --jobs reports for the
// job added to the file (same tables read from the route directory), no
// worse than the first fit; the job file's lines in another order give
// the same bytes; more nodes than are free, an unknown pattern, a bad
// --free list, a --free host that runs a job, and --routing with a fabric
// are refused with exit 2 naming the flag.
func TestPlaceMatchesAnalyzeAndRefusesBadRequests(t *testing.T) {
	dir := t.TempDir()
	route := filepath.Join(dir, "route")
	if o := runCLI("route", "--slimfly", "5", "-o", route); o.status != 0 {
		t.Fatal(o.stderr)
	}
	lines := []string{"1234 hca-0-0-0-[1-4],hca-0-0-1-[1-4] ring", "1235 hca-1-2-[0-2]-[1-4] all-to-all weight=2", "1236 hca-0-3-[1-4]-[1-2] tree"}
	file := writeJobs(t, dir, "jobs.txt", lines)
	o := runCLI("place", "--routing", route, "--jobs", file, "--nodes", "12", "--json")
	var rep placeReport
	if err := json.Unmarshal([]byte(o.stdout), &rep); err != nil || o.status != 0 {
		t.Fatalf("exit %d %v: %s", o.status, err, o.stderr)
	}
	if len(rep.Chosen.Hosts) != 12 || rep.Chosen.Together > rep.FirstFit.Together+1e-9 {
		t.Fatalf("chosen %+v, first fit %+v", rep.Chosen, rep.FirstFit)
	}
	with := writeJobs(t, dir, "with.txt", append(lines, "new "+rep.Chosen.Nodelist+" ring"))
	a := runCLI("analyze", "--fabric", filepath.Join(route, "fabric.json"), "--lfts", filepath.Join(route, "opensm-lfts.txt"), "--jobs", with, "--json", "--permutations", "1")
	var an struct {
		Jobs struct {
			Jobs []struct {
				ID              string
				Alone, Together float64
			}
		}
	}
	if err := json.Unmarshal([]byte(a.stdout), &an); err != nil || a.status != 0 {
		t.Fatalf("analyze: exit %d %v: %s", a.status, err, a.stderr)
	}
	if j := an.Jobs.Jobs[3]; j.ID != "new" || !nearly(j.Together, rep.Chosen.Together) || !nearly(j.Alone, rep.Chosen.Alone) {
		t.Fatalf("analyze says %+v, place %+v", j, rep.Chosen)
	}
	reordered := writeJobs(t, dir, "reordered.txt", []string{lines[2], lines[0], lines[1]})
	if o2 := runCLI("place", "--routing", route, "--jobs", reordered, "--nodes", "12", "--json"); o2.stdout != o.stdout {
		t.Fatalf("the job file in another order gives another answer:\n%s", o2.stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--nodes", "500"}, "--nodes: 500 asked for"},
		{[]string{"--nodes", "4", "--pattern", "star"}, `--pattern "star"`},
		{[]string{"--nodes", "4", "--free", "node["}, "--free: host list"},
		{[]string{"--nodes", "4", "--free", "hca-0-0-0-1,hca-0-0-2-[1-4]"}, "--free: host hca-0-0-0-1 runs job 1234"},
		{[]string{"--nodes", "4", "--slimfly", "5"}, "drop --slimfly"},
	} {
		o := runCLI(append([]string{"place", "--routing", route, "--jobs", file}, c.args...)...)
		if o.status != 2 || !strings.Contains(o.stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q: %s", c.args, o.status, c.want, o.stderr)
		}
	}
}

func writeJobs(t *testing.T, dir, name string, lines []string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func nearly(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
