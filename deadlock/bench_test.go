package deadlock

import (
	"fmt"
	"runtime"
	"testing"

	"slimroute/layers"
	"slimroute/slimfly"
)

// BenchmarkAssign times both VL schemes on Slim Fly q = 5 … 19 routed in 4
// layers (the routing itself is not timed) and reports the heap they
// allocate. Run one size at a time for the larger q, e.g.
// -bench 'Assign/q=13/'.
func BenchmarkAssign(b *testing.B) {
	for _, q := range []int{5, 7, 11, 13, 17, 19} {
		var r *layers.Routing
		for _, scheme := range []string{"hops", "dfsssp"} {
			b.Run(fmt.Sprintf("q=%d/%s", q, scheme), func(b *testing.B) {
				if r == nil {
					f, err := slimfly.Build(slimfly.Params{Q: q})
					if err != nil {
						b.Fatal(err)
					}
					if r, err = layers.Compute(f, layers.Options{Layers: 4, Seed: 1, Workers: runtime.GOMAXPROCS(0)}); err != nil {
						b.Fatal(err)
					}
				}
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				b.ResetTimer()
				var a *Assignment
				var err error
				for i := 0; i < b.N; i++ {
					if scheme == "hops" {
						a, err = AssignHops(r, Options{Workers: runtime.GOMAXPROCS(0)})
					} else {
						a, err = AssignDFSSSP(r, Options{VLs: 15})
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MB-alloc/op")
				b.ReportMetric(float64(a.Needed), "VLs-needed")
				b.ReportMetric(float64(a.SLs), "SLs")
			})
		}
	}
}
