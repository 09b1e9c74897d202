package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slimroute/internal/failures"
	"slimroute/slimfly"
)

// TestRoutePreviousFollowsAChain: route on Slim Fly q = 5 (4 VLs), then
// route --previous through seeded chains of failures and plug-backs
// (cables up to 3 %, a switch, everything back), each step written into
// the directory it reads (the base's, whose files the first repair keeps
// in DIR/base) or into a new one: every step says it repaired the
// routing, none recomputes, and once everything is back the tables are
// the first run's byte for byte.
func TestRoutePreviousFollowsAChain(t *testing.T) {
	intact, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 2; seed++ {
		dir := t.TempDir()
		first := filepath.Join(dir, "r0")
		if _, err := runApp(t, append(append([]string{"route", "--fabric", writeFabric(t, dir, "intact.json", intact)}, routeArgs...), "-o", first)...); err != nil {
			t.Fatal(err)
		}
		steps, err := failures.Chain(intact, 0.03, 1, seed)
		if err != nil {
			t.Fatal(err)
		}
		prev := first
		for i, step := range steps {
			out := prev // in place, or (every third step) into a new directory
			if i%3 == 2 {
				out = filepath.Join(dir, fmt.Sprint("r", i+1))
			}
			text, err := runApp(t, "route", "--fabric", writeFabric(t, dir, fmt.Sprint("step", i+1, ".json"), step.Fabric), "--previous", prev, "-o", out)
			if err != nil {
				t.Fatalf("seed %d step %d (%s): %v", seed, i+1, step.Change, err)
			}
			if !strings.Contains(text, "repaired the routing in "+prev) || strings.Contains(text, "recomputing in full") {
				t.Fatalf("seed %d step %d (%s): not a repair:\n%s", seed, i+1, step.Change, text)
			}
			prev = out
		}
		want := filepath.Join(dir, "want")
		if _, err := runApp(t, append(append([]string{"route", "--fabric", filepath.Join(dir, "intact.json")}, routeArgs...), "-o", want)...); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"opensm-lfts.txt", "path-sl.txt", "sl2vl.txt", "guid2lid"} {
			a, err1 := os.ReadFile(filepath.Join(want, name))
			b, err2 := os.ReadFile(filepath.Join(prev, name))
			if err1 != nil || err2 != nil || string(a) != string(b) {
				t.Fatalf("seed %d: with everything back, %s is not the intact routing's (%v %v)", seed, name, err1, err2)
			}
		}
	}
}
