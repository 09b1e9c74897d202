package jobs_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/jobs"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

// TestJobLoadsMatchAWalkOfTheTables: on Slim Fly q = 5 and a two-level
// Clos, routed with the defaults, 60 drawn job mixes each (2 to 8 jobs of
// 2 to 40 hosts, placed compactly or scattered, every pattern) are
// measured by Analyze and by this test's own walk of the LFTs: the same
// busiest channel per job alone and together; the contention factor is
// at least 1, and 1 for a job alone; neither lower bound (the cut and
// volume bound, the LP's dual bound over paths no longer than the
// routing's) exceeds what the routing gives, per job or together.
func TestJobLoadsMatchAWalkOfTheTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, tab := range routedTestFabrics(t) {
		hosts := hostNames(tab.Fabric())
		for c := 0; c < 60; c++ {
			js := drawJobs(rng, hosts)
			rep, err := jobs.Analyze(tab, js, "jobs")
			if err != nil {
				t.Fatal(err)
			}
			alone, together := judge(tab, js)
			for i, r := range rep.Jobs {
				if !near(r.Alone, alone[i]) || !near(r.Together, together[i]) {
					t.Fatalf("case %d job %s: Analyze says alone %g together %g, the walk %g and %g", c, r.ID, r.Alone, r.Together, alone[i], together[i])
				}
				if r.Factor < 1-1e-9 || (len(js) == 1 && !near(r.Factor, 1)) || r.Bound > r.Alone+1e-9 || r.LPBound > r.Alone+1e-9 {
					t.Fatalf("case %d job %s: factor %g, bounds %g and %g (LP) above alone %g", c, r.ID, r.Factor, r.Bound, r.LPBound, r.Alone)
				}
				if r.LPNote != "" {
					t.Fatalf("case %d job %s: no LP bound: %s", c, r.ID, r.LPNote)
				}
			}
			if rep.LPBound > rep.Busiest+1e-9 || rep.LPNote != "" {
				t.Fatalf("case %d: LP bound %g (%s) above the busiest channel %g", c, rep.LPBound, rep.LPNote, rep.Busiest)
			}
		}
	}
}

// routedTestFabrics routes Slim Fly q = 5 and a two-level Clos of radix
// 12 with the defaults.
func routedTestFabrics(t *testing.T) []*lft.Tables {
	t.Helper()
	sf, _ := slimfly.Build(slimfly.Params{Q: 5})
	cl, _ := clos.Build(clos.Params{Radix: 12})
	var out []*lft.Tables
	for _, f := range []*fabric.Fabric{sf, cl} {
		res, err := pipeline.Run(f, pipeline.Config{Layers: 4, Deadlock: "auto", Seed: 1, LMC: -1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res.Tables)
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

// hostNames lists the fabric's HCA names in node order.
func hostNames(f *fabric.Fabric) []string {
	var out []string
	for _, h := range f.IDsOf(fabric.HCA) {
		out = append(out, f.Name(h))
	}
	return out
}

// drawJobs draws 1 to 8 jobs over distinct hosts, each compact (a run of
// consecutive hosts) or scattered, with a drawn pattern.
func drawJobs(rng *rand.Rand, hosts []string) []jobs.Job {
	free := rng.Perm(len(hosts))
	var js []jobs.Job
	for k := 0; k < 1+rng.IntN(8) && len(free) >= 2; k++ {
		n := min(len(free), 2+rng.IntN(39))
		j := jobs.Job{ID: fmt.Sprint(100 + k), Pattern: []string{"ring", "tree", "all-to-all", "neighbours"}[rng.IntN(4)], Weight: float64(1 + rng.IntN(3))}
		if rng.IntN(2) == 0 { // compact: consecutive hosts from a drawn start
			start := free[0]
			for i := 0; i < n && start+i < len(hosts); i++ {
				j.Hosts = append(j.Hosts, hosts[start+i])
			}
		} else {
			for _, h := range free[:n] {
				j.Hosts = append(j.Hosts, hosts[h])
			}
		}
		free = free[n:]
		if len(j.Hosts) >= 2 {
			js = append(js, j)
		}
	}
	return js
}

// judge walks the tables itself: per job, the busiest switch-to-switch
// channel under its own traffic and, among the channels it uses, under
// everyone's.
func judge(tab *lft.Tables, js []jobs.Job) (alone, together []float64) {
	f := tab.Fabric()
	port := map[string]fabric.PortRef{}
	for _, h := range f.IDsOf(fabric.HCA) {
		port[strings.Fields(f.Name(h))[0]] = fabric.PortRef{Node: h, Port: 1}
	}
	type ch struct{ sw, out int }
	per := make([]map[ch]float64, len(js))
	all := map[ch]float64{}
	for i, j := range js {
		per[i] = map[ch]float64{}
		for _, fl := range j.Flows() {
			src, dst := port[j.Hosts[fl.From]], port[j.Hosts[fl.To]]
			pl, _ := tab.LIDs().Of(dst)
			first, _ := f.Peer(src)
			layers := 1 << pl.LMC
			for k := 0; k < layers; k++ {
				sw := first.Node
				for hop := 0; hop < 64; hop++ {
					out := int(tab.LFT(sw)[int(pl.Base)+k])
					next, _ := f.Peer(fabric.PortRef{Node: sw, Port: out})
					if f.Kind(next.Node) != fabric.Switch {
						break
					}
					per[i][ch{int(sw), out}] += fl.Weight / float64(layers)
					sw = next.Node
				}
			}
		}
		for c, v := range per[i] {
			all[c] += v
		}
	}
	for i := range js {
		a, b := 0.0, 0.0
		for c, v := range per[i] {
			a, b = max(a, v), max(b, all[c])
		}
		alone, together = append(alone, a), append(together, b)
	}
	return alone, together
}
