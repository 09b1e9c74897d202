package jobs_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"slimroute/clos"
	"slimroute/dragonflyplus"
	"slimroute/fabric"
	"slimroute/hyperx"
	"slimroute/jobs"
	"slimroute/pipeline"
	"slimroute/polarfly"
)

// TestRoutingForJobsOnEveryDesign: routing for drawn job mixes (2 to 8
// jobs of every pattern, compact and scattered, with and without phases)
// on the other designs — Dragonfly+, HyperX, PolarFly, a three-level fat
// tree — under each one's default VLs: every routing passes the
// pipeline's verifier (every LID reachable, no loop, no credit loop), and
// no job's contention factor rises. (A Dragonfly+ routed for jobs once
// closed credit loops: its VLs are proven for the shapes of its routes
// only, layers.dragonflyShape; red without it on r = 8.)
func TestRoutingForJobsOnEveryDesign(t *testing.T) {
	type design struct {
		name  string
		build func() (*fabric.Fabric, error)
	}
	designs := []design{
		{"dragonfly+ r=8", func() (*fabric.Fabric, error) { return dragonflyplus.Build(dragonflyplus.Params{Radix: 8}) }},
		{"dragonfly+ r=6", func() (*fabric.Fabric, error) { return dragonflyplus.Build(dragonflyplus.Params{Radix: 6}) }},
		{"hyperx 4x4", func() (*fabric.Fabric, error) { return hyperx.Build(hyperx.Params{Dims: []int{4, 4}}) }},
		{"polarfly q=7", func() (*fabric.Fabric, error) { return polarfly.Build(polarfly.Params{Q: 7}) }},
		{"fat tree 3 levels", func() (*fabric.Fabric, error) { return clos.Build(clos.Params{Radix: 8, Levels: 3}) }},
	}
	mixes := 4
	if testing.Short() {
		mixes = 2
	}
	cfg := pipeline.Config{Layers: 4, Deadlock: "auto", Seed: 1, LMC: -1, Workers: 2}
	for di, d := range designs {
		f, err := d.build()
		if err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		base, err := pipeline.Run(f, cfg)
		if err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		hosts := hostNames(f)
		rng := rand.New(rand.NewPCG(uint64(di), 31))
		for m := 0; m < mixes; m++ {
			js := drawMix(rng, hosts, m%2 == 1, []string{"ring", "tree", "all-to-all", "neighbours"}, m%2 == 0)
			name := fmt.Sprintf("%s, mix %d (%d jobs)", d.name, m, len(js))
			tr, err := jobs.Traffic(f, js, "mix")
			if err != nil {
				t.Fatal(err)
			}
			c := cfg
			c.Traffic = tr
			res, err := pipeline.Run(f, c)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			alone0, together0 := judge(base.Tables, js)
			alone, together := judge(res.Tables, js)
			for i, j := range js {
				was, now := factor(alone0[i], together0[i]), factor(alone[i], together[i])
				if now > was*(1+1e-3) {
					t.Errorf("%s, job %s: contention factor %.4f with the jobs, %.4f without", name, j.ID, now, was)
				}
			}
		}
	}
}

// factor is a job's contention factor from its busiest channel alone and
// the busiest of those under all the jobs (1 without load).
func factor(alone, together float64) float64 {
	if alone == 0 {
		return 1
	}
	return together / alone
}
