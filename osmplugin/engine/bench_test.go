package engine

import (
	"fmt"
	"runtime"
	"testing"

	"slimroute/fabric"
)

// BenchmarkCompute times what the plugin does inside OpenSM's lock on a
// first sweep, with its default settings: read the subnet OpenSM hands
// over (slimroute JSON with OpenSM's LIDs, LMC 2), route, assign VLs,
// build and verify the tables.
func BenchmarkCompute(b *testing.B) {
	for _, q := range []int{5, 7, 11} {
		_, js := slimFlySubnet(b, q, 2)
		b.Run(fmt.Sprintf("q=%d", q), func(b *testing.B) {
			for b.Loop() {
				if _, err := Compute(js, "", runtime.GOMAXPROCS(0), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkComputeWithPlan times the sweep of a fabric that fits the
// plan (the settings' plan key): read the subnet, recognise the Slim Fly,
// take the plan's layers, assign VLs, build and verify the tables.
func BenchmarkComputeWithPlan(b *testing.B) {
	for _, q := range []int{5, 7, 11} {
		f, js := slimFlySubnet(b, q, 2)
		cfg, plan := planned(b, b.TempDir(), f, "plan.json", fabric.FormatJSON, runtime.GOMAXPROCS(0))
		b.Run(fmt.Sprintf("q=%d", q), func(b *testing.B) {
			for b.Loop() {
				if _, err := plan.Compute(js, cfg, runtime.GOMAXPROCS(0), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
