package main

import (
	"encoding/json"
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
