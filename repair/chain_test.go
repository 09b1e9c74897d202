package repair

import (
	"fmt"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

// chainFabric is a fabric the chain tests start from.
type chainFabric struct {
	name  string
	build func() (*fabric.Fabric, error)
	short bool // part of the -short run
}

var chainFabrics = []chainFabric{
	{"slimfly-q5", func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 5}) }, true},
	{"slimfly-q7", func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 7}) }, false},
	{"clos-2level", func() (*fabric.Fabric, error) { return clos.Build(clos.Params{Levels: 2, Radix: 36}) }, false},
	{"fattree-3level", func() (*fabric.Fabric, error) { return clos.Build(clos.Params{Levels: 3, Radix: 16, Pods: 4}) }, true},
}

// runChain repairs every step of a chain drawn from seed on fabric cf,
// routed with vls VLs, calling judge with each step's tables before and
// after.
func runChain(t *testing.T, cf chainFabric, vls int, seed uint64, judge func(t *testing.T, step failures.Step, prev, got *lft.Tables, st Stats)) {
	f, err := cf.build()
	if err != nil {
		t.Fatal(err)
	}
	base, err := pipeline.Run(f, pipeline.Config{Layers: 4, VLs: vls, Seed: 1, LMC: -1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	steps, err := failures.Chain(f, 0.05, 2, seed)
	if err != nil {
		t.Fatal(err)
	}
	cur := base.Tables
	for i, step := range steps {
		got, st, err := Repair(cur, step.Fabric, Options{Workers: 2, VLs: vls})
		if err != nil {
			t.Fatalf("step %d of %d (%s): %v", i+1, len(steps), step.Change, err)
		}
		judge(t, step, cur, got, st)
		cur = got
	}
}

func TestChainsOfFailuresRepairEveryStep(t *testing.T) {
	for _, cf := range chainFabrics {
		for _, vls := range []int{4, 8} {
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("%s/vls=%d/seed=%d", cf.name, vls, seed), func(t *testing.T) {
					runChain(t, cf, vls, seed, func(t *testing.T, step failures.Step, prev, got *lft.Tables, st Stats) {
						if step.Back {
							return
						}
						checkRepairVLs(t, prev, got, step.Fabric, st, vls)
					})
				})
			}
		}
	}
}
