package repair

import (
	"runtime"
	"testing"
	"time"

	"slimroute/pipeline"
	"slimroute/slimfly"
)

// BenchmarkRepair repairs the tables of an intact Slim Fly q=19 (722
// switches, 10,108 HCAs, 4 layers) after one failed cable, and reports
// beside it the time of the full pipeline on the damaged fabric (full-ms)
// and the entries the repair found crossed and changed.
func BenchmarkRepair(b *testing.B) {
	f, err := slimfly.Build(slimfly.Params{Q: 19})
	if err != nil {
		b.Fatal(err)
	}
	cfg := pipeline.Config{Layers: 4, VLs: 4, Seed: 1, LMC: -1, Workers: runtime.GOMAXPROCS(0)}
	prev, err := pipeline.Run(f, cfg)
	if err != nil {
		b.Fatal(err)
	}
	g := failure(b, f, 1, 0, 1)
	start := time.Now()
	if _, err := pipeline.Run(g, cfg); err != nil {
		b.Fatal(err)
	}
	full := time.Since(start)
	var st Stats
	b.ResetTimer()
	for b.Loop() {
		if _, st, err = Repair(prev.Tables, g, Options{Workers: runtime.GOMAXPROCS(0), VLs: 4}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(full.Milliseconds()), "full-ms")
	b.ReportMetric(float64(st.Crossed), "crossed")
	b.ReportMetric(float64(st.Changed), "changed")
	b.ReportMetric(float64(st.Escaped), "on-spare")
}
