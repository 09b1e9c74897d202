package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// analyze sets the disjoint-path figures beside the ceiling and prints the
// shift loads, in text and JSON, for slimroute's routing and for OpenSM's
// dump; the dump's bounds come from --min-len/--max-len, both or neither.
func TestAnalyzePrintsCeilingAndShifts(t *testing.T) {
	out, err := runApp(t, "analyze", "--slimfly", "5", "--permutations", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ceiling (2 to 3 hops)", "adjacent", "distance 2", "shift permutations (199 shifts", "all layers (flows split)", "first pairs short of their ceiling"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	const net, dump = "../../analysis/testdata/small.net", "../../analysis/testdata/small-minhop-lmc2.lfts"
	out, err = runApp(t, "analyze", "--fabric", net, "--lfts", dump, "--permutations", "2", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Pairs   int `json:"pairs"`
		Ceiling struct {
			Bounds   string `json:"bounds"`
			Possible []int  `json:"possible_at_least"`
			Achieved []int  `json:"achieved_at_least"`
		} `json:"ceiling"`
		Shifts struct {
			Shifts int `json:"shifts"`
		} `json:"shift_permutations"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// sw-a and sw-b are joined by two cables: every pair can have 2
	// disjoint paths, none 3; 4 endpoints make 3 shifts.
	if rep.Ceiling.Bounds != "minimal to minimal+1 hops" || len(rep.Ceiling.Possible) != 5 || rep.Ceiling.Possible[2] != rep.Pairs ||
		rep.Ceiling.Achieved[2] < 1 || rep.Ceiling.Achieved[2] > rep.Pairs || rep.Ceiling.Possible[3] != 0 || rep.Shifts.Shifts != 3 {
		t.Errorf("dump report: %+v", rep)
	}
	_, err = runApp(t, "analyze", "--fabric", net, "--lfts", dump, "--min-len", "2")
	if err == nil || !strings.Contains(err.Error(), "min-len=2, max-len=0") {
		t.Errorf("--min-len alone: %v", err)
	}
}

// analyze --lfts refuses tables it cannot measure by the file, or by
// --lft-layers when that flag asked for other layers than the tables give,
// and the advice works: the layers it names read the tables, and verify
// (same fabric, same file) lists the LID a table lacks.
func TestAnalyzeLFTRefusalsNameTheFileOrTheFlag(t *testing.T) {
	dir := t.TempDir()
	if o := runCLI("route", "--slimfly", "3", "-o", filepath.Join(dir, "r")); o.status != 0 {
		t.Fatal(o.stderr)
	}
	lfts := filepath.Join(dir, "r", "opensm-lfts.txt")
	data, err := os.ReadFile(lfts)
	if err != nil {
		t.Fatal(err)
	}
	// sw-0-0-0's table without LID 0x0092 (hca-1-0-1-2, LID offset 2)
	lines := strings.Split(string(data), "\n")
	del := filepath.Join(dir, "del.txt")
	for i, l := range lines {
		if strings.HasPrefix(l, "0x0092 ") {
			os.WriteFile(del, []byte(strings.Join(append(lines[:i:i], lines[i+1:]...), "\n")), 0o644)
			break
		}
	}
	sf3 := []string{"analyze", "--slimfly", "3", "--permutations", "1", "--lfts"}
	refused(t, dir, append(sf3, del), del+":", "sw-0-0-0", "LID 0x0092", `"hca-1-0-1-2"[1]`, "slimroute verify", "--lfts "+del)
	if o := runCLI("verify", "--slimfly", "3", "--lfts", del); o.status != 1 || !strings.Contains(o.stdout, "sw-0-0-0 has no route to LID 0x0092") {
		t.Errorf("verify, as advised: status %d\n%s%s", o.status, o.stdout, o.stderr)
	}
	for _, layers := range []string{"8", "2", "1"} {
		refused(t, dir, append(sf3, lfts, "--lft-layers", layers), "--lft-layers "+layers, lfts, "give --lft-layers 4")
	}
	if o := runCLI(append(sf3, lfts, "--lft-layers", "4")...); o.status != 0 {
		t.Errorf("--lft-layers 4, as advised: %s", o.stderr)
	}
}
