package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestOutputsDoNotDependOnTheCores runs route, analyze --json, cabling plan
// and cabling verify --json at GOMAXPROCS 1, 2 and 8 and requires every
// file and every printed byte to be the same (timings.json aside, which
// holds wall times). ./scripts/test runs it under -race too.
func TestOutputsDoNotDependOnTheCores(t *testing.T) {
	fabrics := map[string][]string{
		"q5":   {"--slimfly", "5"},
		"q7":   {"--slimfly", "7"},
		"clos": {"--config", "../../testdata/specs/clos-2level.toml"},
	}
	if testing.Short() {
		delete(fabrics, "q7")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for name, src := range fabrics {
		t.Run(name, func(t *testing.T) {
			var first map[string][]byte
			dir := filepath.Join(t.TempDir(), "out") // the same path each time: route prints it
			for _, procs := range []int{1, 2, 8} {
				runtime.GOMAXPROCS(procs)
				os.RemoveAll(dir)
				got := outputs(t, dir, src)
				if first == nil {
					first = got
					continue
				}
				for file, b := range first {
					if !bytes.Equal(got[file], b) {
						t.Errorf("%s differs at GOMAXPROCS %d from GOMAXPROCS 1", file, procs)
					}
				}
			}
		})
	}
}

// outputs runs the commands on one fabric, writing into dir, and returns
// every output by name.
func outputs(t *testing.T, dir string, src []string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	run := func(name string, args ...string) {
		if args[0] != "cabling" || args[1] != "verify" {
			args = append(args, src...)
		}
		text, err := runApp(t, args...)
		if _, findings := err.(exitStatus); err != nil && !findings {
			t.Fatalf("%v: %v", args, err)
		}
		out[name] = []byte(text)
	}
	run("route.stdout", "route", "-o", filepath.Join(dir, "route"))
	run("analyze.json", "analyze", "--json", "--permutations", "20")
	run("plan.stdout", "cabling", "plan", "-o", filepath.Join(dir, "plan"))
	// the plan against its own expected discovery, and against one with a
	// cable gone
	exp := filepath.Join(dir, "plan", "expected.ibnetdiscover")
	run("verify-clean.json", "cabling", "verify", "--json", "--plan", filepath.Join(dir, "plan"), "--discovered", exp)
	run("verify.json", "verify", "--json", "--lfts", filepath.Join(dir, "route", "opensm-lfts.txt"),
		"--path-sl", filepath.Join(dir, "route", "path-sl.txt"), "--sl2vl", filepath.Join(dir, "route", "sl2vl.txt"))
	for _, sub := range []string{"route", "plan"} {
		files, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.IsDir() || f.Name() == "timings.json" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, sub, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[sub+"/"+f.Name()] = b
		}
	}
	return out
}
