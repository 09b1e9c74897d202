package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"slimroute/fabric"
	"slimroute/jobs"
	"slimroute/slimfly"
)

// TestMixIsAJobFileOfTheFabric: for drawn seeds, jobmix writes a job file
// that jobs.Read accepts, of the jobs asked for, each of 16 to 64 of the
// fabric's hosts, no host in two jobs, with a phase within its period;
// the same seed writes the same file.
func TestMixIsAJobFileOfTheFabric(t *testing.T) {
	f, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	net := filepath.Join(dir, "sf5.net")
	var b bytes.Buffer
	if err := fabric.WriteIBSimNet(&b, f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(net, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, h := range f.IDsOf(fabric.HCA) {
		name, _ := fabric.HostName(f.Name(h))
		known[name] = true
	}
	for seed := range 20 {
		out := filepath.Join(dir, "jobs.txt")
		if err := run([]string{strconv.Itoa(seed), net, out, "3"}); err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		js, err := jobs.Read(bytes.NewReader(text), out)
		if err != nil || len(js) != 3 {
			t.Fatalf("seed %d: %d jobs, error %v:\n%s", seed, len(js), err, text)
		}
		used := map[string]bool{}
		for _, j := range js {
			if len(j.Hosts) < 16 || len(j.Hosts) > 64 || len(j.Phases) != 1 || j.Phases[0][1] > j.Period {
				t.Errorf("seed %d: job %s has %d hosts, phases %v in period %d", seed, j.ID, len(j.Hosts), j.Phases, j.Period)
			}
			for _, h := range j.Hosts {
				if !known[h] || used[h] {
					t.Errorf("seed %d: host %s unknown or in two jobs", seed, h)
				}
				used[h] = true
			}
		}
		if err := run([]string{strconv.Itoa(seed), net, out + "2", "3"}); err != nil {
			t.Fatal(err)
		}
		if again, _ := os.ReadFile(out + "2"); !bytes.Equal(again, text) {
			t.Errorf("seed %d: another file from the same seed", seed)
		}
	}
}
