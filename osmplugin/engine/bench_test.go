package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

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
		dir := b.TempDir()
		planFile := filepath.Join(dir, "plan.json")
		fh, err := os.Create(planFile)
		if err != nil {
			b.Fatal(err)
		}
		if err := fabric.WriteJSON(fh, f); err != nil {
			b.Fatal(err)
		}
		fh.Close()
		cfg := filepath.Join(dir, "slimroute.toml")
		if err := os.WriteFile(cfg, []byte("plan = \"plan.json\"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		plan, err := Prepare(cfg, runtime.GOMAXPROCS(0), time.Now)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("q=%d", q), func(b *testing.B) {
			for b.Loop() {
				if _, err := plan.Compute(js, cfg, runtime.GOMAXPROCS(0), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
