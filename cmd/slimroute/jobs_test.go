package main

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeJobs: analyze --jobs prints a row per job and puts the jobs
// in --json; a host the fabric lacks is refused naming the file's line.
func TestAnalyzeJobs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "jobs.txt")
	os.WriteFile(file, []byte("# running jobs\n7 hca-0-0-[0-1]-[1-2] ring\n8 hca-1-[0-2]-0-1 all-to-all period=10 phases=0-4\n"), 0o644)
	out, err := runApp(t, "analyze", "--slimfly", "3", "--permutations", "2", "--jobs", file)
	if err != nil || !strings.Contains(out, "contention factor") || !strings.Contains(out, "\n7 ") || !strings.Contains(out, "\n8 ") {
		t.Fatalf("%v:\n%s", err, out)
	}
	js, err := runApp(t, "analyze", "--slimfly", "3", "--permutations", "2", "--jobs", file, "--json")
	var rep struct {
		Jobs struct {
			Jobs []struct {
				ID string `json:"id"`
			} `json:"jobs"`
		} `json:"jobs"`
	}
	if err != nil || json.Unmarshal([]byte(js), &rep) != nil || len(rep.Jobs.Jobs) != 2 {
		t.Fatalf("--json: %v, %+v", err, rep)
	}
	os.WriteFile(file, []byte("7 hca-0-0-0-1\n8 node[001-002]\n"), 0o644)
	if _, err := runApp(t, "analyze", "--slimfly", "3", "--permutations", "2", "--jobs", file); err == nil || !strings.Contains(err.Error(), file+":2: job 8: host node001 is no cabled HCA") {
		t.Errorf("a host the fabric lacks: %v", err)
	}
}

// TestJobsPicture: analyze --jobs --svg writes jobs.svg, well-formed, with
// a line per switch-to-switch cable, in each job's colour where only that
// job uses it (both jobs here use some alone), faint where none does, and
// a legend line per job and for the shared cables.
func TestJobsPicture(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "jobs.txt")
	os.WriteFile(file, []byte("1 hca-0-0-[0-4]-1 ring\n2 hca-1-[0-4]-0-[1-4] all-to-all\n"), 0o644)
	if _, err := runApp(t, "analyze", "--slimfly", "5", "--permutations", "2", "--jobs", file, "--svg", dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "jobs.svg"))
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(strings.NewReader(string(b)))
	lines := map[string]int{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("jobs.svg is not well-formed: %v", err)
		}
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "line" {
			for _, a := range el.Attr {
				if a.Name.Local == "stroke" {
					lines[a.Value]++
				}
			}
		}
	}
	// q = 5: 175 cables; the legend adds a line per job and one for "shared"
	total := 0
	for _, n := range lines {
		total += n
	}
	if total != 175+3 || lines["#1f77b4"] < 2 || lines["#ff7f0e"] < 2 || lines["black"] < 1 || lines["#ddd"] < 1 {
		t.Errorf("lines by colour %v (%d in all)", lines, total)
	}
}

// TestRouteForJobs: route --jobs writes tables that analyze --jobs finds
// no job worse off under than the plain routing's, with the pass's
// account in summary.json and the printout; with --previous it recomputes
// in full and says why; a host the fabric lacks is refused naming the
// file's line, and nothing is written.
func TestRouteForJobs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "jobs.txt")
	os.WriteFile(file, []byte("7 hca-0-[0-4]-0-[1-4] ring\n8 hca-1-[0-4]-[1-2]-1 tree\n9 hca-0-[0-2]-[2-3]-[1-2] ring weight=2\n"), 0o644)
	plain, routed := filepath.Join(dir, "plain"), filepath.Join(dir, "routed")
	if _, err := runApp(t, "route", "--slimfly", "5", "-o", plain); err != nil {
		t.Fatal(err)
	}
	out, err := runApp(t, "route", "--slimfly", "5", "--jobs", file, "-o", routed)
	if err != nil || !strings.Contains(out, "jobs ("+file+"): ") {
		t.Fatalf("%v:\n%s", err, out)
	}
	var sum struct {
		Jobs struct {
			File string `json:"file"`
			Pass struct {
				Moves int `json:"moves"`
			} `json:"pass"`
		} `json:"jobs"`
	}
	b, _ := os.ReadFile(filepath.Join(routed, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil || sum.Jobs.File != file || sum.Jobs.Pass.Moves == 0 {
		t.Fatalf("summary.json: %v %+v", err, sum)
	}
	factors := func(d string) []float64 {
		js, err := runApp(t, "analyze", "--fabric", filepath.Join(d, "fabric.json"), "--lfts", filepath.Join(d, "opensm-lfts.txt"), "--permutations", "2", "--jobs", file, "--json")
		var rep struct {
			Jobs struct {
				Jobs []struct {
					Factor float64 `json:"contention_factor"`
				} `json:"jobs"`
			} `json:"jobs"`
		}
		if err != nil || json.Unmarshal([]byte(js), &rep) != nil {
			t.Fatalf("analyze %s: %v", d, err)
		}
		var out []float64
		for _, j := range rep.Jobs.Jobs {
			out = append(out, j.Factor)
		}
		return out
	}
	before, after := factors(plain), factors(routed)
	sumB, sumA := 0.0, 0.0
	for i := range after {
		if after[i] > before[i]*(1+1e-3) {
			t.Errorf("job %d: contention factor %.3f with --jobs, %.3f without", i, after[i], before[i])
		}
		sumB, sumA = sumB+before[i], sumA+after[i]
	}
	if sumA >= sumB {
		t.Errorf("contention factors %v with --jobs, %v without: none lower", after, before)
	}
	out, err = runApp(t, "route", "--slimfly", "5", "--jobs", file, "--previous", routed, "-o", filepath.Join(dir, "again"))
	// the same jobs again, from the routing made for them: nothing moves
	if err != nil || !strings.Contains(out, "routed from the tables in "+routed) || !strings.Contains(out, ": 0 LFT entries and 0 path SLs changed") {
		t.Fatalf("--previous with --jobs: %v\n%s", err, out)
	}
	os.WriteFile(file, []byte("7 hca-0-0-0-1\n8 node[001-002]\n"), 0o644)
	bad := filepath.Join(dir, "bad")
	if _, err := runApp(t, "route", "--slimfly", "5", "--jobs", file, "-o", bad); err == nil || !strings.Contains(err.Error(), file+":2: job 8: host node001 is no cabled HCA") {
		t.Errorf("a host the fabric lacks: %v", err)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Errorf("%s written though the job file was refused", bad)
	}
}
