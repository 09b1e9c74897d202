package repair_test

import (
	"fmt"
	"runtime"
	"slimroute/repair"
	"testing"
	"time"

	"slimroute/analysis"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
	"slimroute/verify"
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
	var st repair.Stats
	b.ResetTimer()
	for b.Loop() {
		if _, st, err = repair.Repair(prev.Tables, g, repair.Options{Workers: runtime.GOMAXPROCS(0), VLs: 4, Mend: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(full.Milliseconds()), "full-ms")
	b.ReportMetric(float64(st.Crossed), "crossed")
	b.ReportMetric(float64(st.Changed), "changed")
	b.ReportMetric(float64(st.Escaped), "on-spare")
	b.ReportMetric(float64(st.Mended), "mended")
}

// BenchmarkFailureLevels compares, on Slim Fly q = 7 and 11 (4 layers,
// 4 VLs, seed 1), the repair of the intact tables with a full recompute
// after 1, 2, 5 and 10 failed cables and 1 and 2 failed switches: the
// changed and crossed LFT entries, the time, the VLs the verifier sees and
// the share of (source switch, destination endpoint) pairs with ≥ 3
// link-disjoint paths, after the repair (rep-) and after a recompute
// (full-). A refused repair reports refused = 1.
//
//	go test ./repair -run '^$' -bench FailureLevels -benchtime 1x
func BenchmarkFailureLevels(b *testing.B) {
	levels := []struct {
		name             string
		cables, switches int
	}{{"1 cable", 1, 0}, {"2 cables", 2, 0}, {"5 cables", 5, 0}, {"10 cables", 10, 0}, {"1 switch", 0, 1}, {"2 switches", 0, 2}}
	for _, q := range []int{7, 11} {
		f, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			b.Fatal(err)
		}
		cfg := pipeline.Config{Layers: 4, VLs: 4, Seed: 1, LMC: -1, Workers: runtime.GOMAXPROCS(0)}
		prev, err := pipeline.Run(f, cfg)
		if err != nil {
			b.Fatal(err)
		}
		for _, lv := range levels {
			b.Run(fmt.Sprintf("q=%d/%s", q, lv.name), func(b *testing.B) {
				g := failure(b, f, lv.cables, lv.switches, 1)
				start := time.Now()
				full, err := pipeline.Run(g, cfg)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(time.Since(start).Milliseconds()), "full-ms")
				b.ReportMetric(disjoint3(b, full.Tables), "full-disjoint3-%")
				b.ReportMetric(float64(len(lft.DiffLFTs(prev.Tables, full.Tables, 1<<30))), "full-changed")
				start = time.Now()
				tab, st, err := repair.Repair(prev.Tables, g, repair.Options{Workers: runtime.GOMAXPROCS(0), VLs: 4, Mend: true})
				if err != nil {
					b.ReportMetric(1, "refused")
					return
				}
				b.ReportMetric(float64(time.Since(start).Milliseconds()), "rep-ms")
				rep, err := verify.Check(tab, runtime.GOMAXPROCS(0))
				if err != nil || !rep.Acyclic() {
					b.Fatalf("the repaired tables fail the verifier: %v %s", err, rep.CycleString())
				}
				b.ReportMetric(float64(rep.VLs), "rep-VLs")
				b.ReportMetric(float64(st.Crossed), "rep-crossed")
				b.ReportMetric(float64(st.Changed), "rep-changed")
				b.ReportMetric(disjoint3(b, tab), "rep-disjoint3-%")
			})
		}
	}
}

// disjoint3 is the share of (source switch, destination endpoint) pairs
// with at least 3 link-disjoint paths among the 4 layers.
func disjoint3(b *testing.B, t *lft.Tables) float64 {
	rep, err := analysis.Analyze(t, analysis.Options{Permutations: 1, Seed: 1, Workers: 2})
	if err != nil {
		b.Fatal(err)
	}
	return 100 * float64(rep.Disjoint[3]) / float64(rep.Pairs)
}
