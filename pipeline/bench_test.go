package pipeline

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"slimroute/slimfly"
)

// BenchmarkRun times the whole pipeline (layers, VLs, tables, verifier) as
// the OpenSM plugin runs it on every heavy sweep, on Slim Fly q = 5 … 19
// with 4 layers, and reports each stage's share (ms) and the process's
// peak RSS so far (run one size at a time for a clean peak, e.g.
// -bench 'Run/q=19$' -benchtime 1x).
func BenchmarkRun(b *testing.B) {
	for _, q := range []int{5, 7, 11, 13, 17, 19} {
		b.Run(fmt.Sprintf("q=%d", q), func(b *testing.B) {
			f, err := slimfly.Build(slimfly.Params{Q: q})
			if err != nil {
				b.Fatal(err)
			}
			stages := map[string]time.Duration{}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := Run(f, Config{Layers: 4, Deadlock: "hops", Seed: 1, LMC: -1})
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
			b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
		})
	}
}

// peakRSSMB reads the process's peak resident set size (VmHWM).
func peakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
