package pipeline

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/internal/procstat"
	"slimroute/slimfly"
)

// BenchmarkRun times the whole pipeline (layers, VLs, tables, verifier) as
// the OpenSM plugin runs it on every heavy sweep, with 4 layers and the
// default settings, on Slim Fly q = 5 … 19 (VLs by hop index) and a 3-level
// Clos with 10,368 HCAs (1476 switches; DFSSSP, as "auto" picks for paths
// of more than 3 hops). It reports each stage's time (ms) and the
// process's peak RSS so far (run one size at a time for a clean peak,
// e.g. -bench 'Run/q=19$' -benchtime 1x).
func BenchmarkRun(b *testing.B) {
	for _, q := range []int{5, 7, 11, 13, 17, 19} {
		b.Run(fmt.Sprintf("q=%d", q), func(b *testing.B) {
			f, err := slimfly.Build(slimfly.Params{Q: q})
			if err != nil {
				b.Fatal(err)
			}
			benchRun(b, f, Config{Layers: 4, Deadlock: "hops", Seed: 1, LMC: -1, Workers: runtime.GOMAXPROCS(0)})
		})
	}
	b.Run("clos3-10k", func(b *testing.B) {
		f, err := clos.Build(clos.Params{Levels: 3, Radix: 36, Pods: 32})
		if err != nil {
			b.Fatal(err)
		}
		benchRun(b, f, Config{Layers: 4, Deadlock: "auto", Seed: 1, LMC: -1, Workers: runtime.GOMAXPROCS(0)})
	})
}

// BenchmarkRunLayers shows how the pipeline grows with the layers: Slim
// Fly q=11 routed in 2, 4 and 8 layers.
func BenchmarkRunLayers(b *testing.B) {
	f, err := slimfly.Build(slimfly.Params{Q: 11})
	if err != nil {
		b.Fatal(err)
	}
	for _, L := range []int{2, 4, 8} {
		b.Run(fmt.Sprintf("layers=%d", L), func(b *testing.B) {
			benchRun(b, f, Config{Layers: L, Deadlock: "hops", Seed: 1, LMC: -1, Workers: runtime.GOMAXPROCS(0)})
		})
	}
}

func benchRun(b *testing.B, f *fabric.Fabric, c Config) {
	c.Clock = time.Now
	stages := map[string]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Run(f, c)
		if err != nil {
			b.Fatal(err)
		}
		for _, st := range res.Stages {
			stages[st.Name] += st.Time
		}
	}
	b.StopTimer()
	for name, d := range stages {
		b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), name+"-ms")
	}
	b.ReportMetric(procstat.PeakRSSMB(), "peak-RSS-MB")
}
