package layers

import (
	"fmt"
	"runtime"
	"testing"

	"slimroute/internal/procstat"
	"slimroute/slimfly"
)

// BenchmarkCompute routes Slim Fly q = 5 … 19 in 4 layers. Besides time it
// reports the heap allocated per run and the process's peak RSS so far
// (run one size at a time, e.g. -bench 'Compute/q=19$', for a clean peak).
func BenchmarkCompute(b *testing.B) {
	for _, q := range []int{5, 7, 11, 13, 17, 19} {
		b.Run(fmt.Sprintf("q=%d", q), func(b *testing.B) {
			f, err := slimfly.Build(slimfly.Params{Q: q})
			if err != nil {
				b.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Compute(f, Options{Layers: 4, Seed: 1, Workers: runtime.GOMAXPROCS(0)}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			r, _ := Compute(f, Options{Layers: 4, Seed: 1, Workers: runtime.GOMAXPROCS(0)})
			b.ReportMetric(float64(r.Trees), "trees/switch")
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MB-alloc/op")
			b.ReportMetric(procstat.PeakRSSMB(), "peak-RSS-MB")
		})
	}
}
