package pipeline

import (
	"fmt"
	"testing"
	"time"

	"slimroute/analysis"
	"slimroute/slimfly"
)

// BenchmarkFailures routes Slim Fly q = 7, 11, 13 intact and after every
// failure level of failureLevels (seed 1), with 4 VLs and the default
// settings, and reports the VLs, the routes of more than 3 hops, the
// routing time and the share of (source switch, destination endpoint)
// pairs with ≥ 3 link-disjoint paths:
//
//	go test ./pipeline -run '^$' -bench Failures -benchtime 1x
func BenchmarkFailures(b *testing.B) {
	levels := append([]failure{{name: "intact"}}, failureLevels...)
	for _, q := range []int{7, 11, 13} {
		intact, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			b.Fatal(err)
		}
		for _, fl := range levels {
			b.Run(fmt.Sprintf("q=%d/%s", q, fl.name), func(b *testing.B) {
				f := intact
				if fl.name != "intact" {
					f = fail(b, intact, fl, 1)
				}
				var res *Result
				start := time.Now()
				for i := 0; i < b.N; i++ {
					var err error
					if res, err = Run(f, Config{Layers: 4, Deadlock: "auto", VLs: 4, Seed: 1, LMC: -1, Workers: 2}); err != nil {
						b.Fatal(err)
					}
				}
				elapsed := time.Since(start) / time.Duration(b.N)
				b.StopTimer()
				rep, err := analysis.Analyze(res.Tables, analysis.Options{Permutations: 1, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(res.Assignment.VLs), "VLs")
				b.ReportMetric(float64(res.Assignment.LongRoutes), "long-routes")
				b.ReportMetric(float64(elapsed.Milliseconds()), "route-ms")
				b.ReportMetric(100*float64(rep.Disjoint[3])/float64(rep.Pairs), "disjoint3-%")
			})
		}
	}
}
