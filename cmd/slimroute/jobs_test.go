package main

import (
	"encoding/json"
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
