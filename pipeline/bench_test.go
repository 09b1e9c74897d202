package pipeline

import (
	"fmt"
	"testing"

	"slimroute/slimfly"
)

// BenchmarkRun times the whole pipeline (layers, VLs, tables, verifier) as
// the OpenSM plugin runs it on every heavy sweep, on Slim Fly q = 5, 7, 11.
func BenchmarkRun(b *testing.B) {
	for _, q := range []int{5, 7, 11} {
		b.Run(fmt.Sprintf("q=%d", q), func(b *testing.B) {
			f, err := slimfly.Build(slimfly.Params{Q: q})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Run(f, Config{Layers: 4, Deadlock: "hops", Seed: 1, LMC: -1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
