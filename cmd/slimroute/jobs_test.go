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
