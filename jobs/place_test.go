package jobs_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/jobs"
	"slimroute/lft"
)

// TestPlacementTakesFreeHostsAndBeatsFirstFit: on Slim Fly q = 5 and a
// two-level Clos, routed with the defaults, 15 drawn job mixes each and a
// new job of a drawn size and pattern: Place returns exactly that many
// distinct free hosts, its Together is no worse than the first fit's,
// both placements' figures are what Analyze reports for the new job added
// to the job file, and the running jobs listed in reverse give the same
// placement.
func TestPlacementTakesFreeHostsAndBeatsFirstFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 5))
	better := 0
	for _, tab := range routedTestFabrics(t) {
		f := tab.Fabric()
		for c := 0; c < 15; c++ {
			running := drawJobs(rng, hostNames(f))
			free := freeOf(f, running)
			if len(free) < 2 {
				continue
			}
			req := jobs.PlaceRequest{Nodes: 2 + rng.IntN(min(len(free)-1, 23)), Pattern: []string{"ring", "tree", "all-to-all", "neighbours"}[rng.IntN(4)]}
			best, first, err := jobs.Place(tab, running, "jobs", req)
			if err != nil {
				t.Fatal(err)
			}
			if len(best.Hosts) != req.Nodes || len(slices.Compact(slices.Clone(best.Hosts))) != req.Nodes || !subset(best.Hosts, free) {
				t.Fatalf("case %d: %d hosts %v, want %d distinct of the free %v", c, len(best.Hosts), best.Hosts, req.Nodes, free)
			}
			if best.Together > first.Together+1e-9 {
				t.Fatalf("case %d: together %g, first fit %g", c, best.Together, first.Together)
			}
			if best.Together < first.Together-1e-9 {
				better++
			}
			for _, pl := range []jobs.Placement{best, first} {
				checkAgainstAnalyze(t, tab, running, pl, req.Pattern)
			}
			slices.Reverse(running)
			again, _, _ := jobs.Place(tab, running, "jobs", req)
			if !reflect.DeepEqual(again, best) {
				t.Fatalf("case %d: the jobs in reverse give %v, not %v", c, again, best)
			}
		}
	}
	t.Logf("%d of the cases placed with less contention than the first fit", better)
}

// checkAgainstAnalyze: Analyze of the running jobs and the job "new" on
// pl's host list (read back from its Slurm list) gives pl's figures.
func checkAgainstAnalyze(t *testing.T, tab *lft.Tables, running []jobs.Job, pl jobs.Placement, pattern string) {
	t.Helper()
	hosts, err := jobs.ExpandHostlist(pl.Nodelist)
	if err != nil || !slices.Equal(hosts, pl.Hosts) {
		t.Fatalf("nodelist %s: %v %v", pl.Nodelist, hosts, err)
	}
	all := append(slices.Clone(running), jobs.Job{ID: "new", Hosts: hosts, Pattern: pattern, Weight: 1})
	rep, err := jobs.Analyze(tab, all, "jobs")
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Jobs[len(all)-1]
	if !near(r.Alone, pl.Alone) || !near(r.Together, pl.Together) || !near(r.Factor, pl.Factor) {
		t.Fatalf("%s: Place says alone %g together %g factor %g, Analyze %g %g %g", pl.Nodelist, pl.Alone, pl.Together, pl.Factor, r.Alone, r.Together, r.Factor)
	}
}

// freeOf lists the hosts no job runs on.
func freeOf(f *fabric.Fabric, running []jobs.Job) []string {
	busy := map[string]bool{}
	for _, j := range running {
		for _, h := range j.Hosts {
			busy[h] = true
		}
	}
	var out []string
	for _, h := range hostNames(f) {
		if !busy[h] {
			out = append(out, strings.Fields(h)[0])
		}
	}
	return out
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
