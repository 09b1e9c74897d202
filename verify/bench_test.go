package verify_test

import (
	"fmt"
	"runtime"
	"testing"

	"slimroute/pipeline"
	"slimroute/slimfly"
	"slimroute/verify"
)

// BenchmarkCheck times the verifier on the tables of the default routing
// of Slim Flies (4 layers, hop-indexed VLs), as route and the plugin run
// it.
func BenchmarkCheck(b *testing.B) {
	for _, q := range []int{7, 11, 19} {
		f, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			b.Fatal(err)
		}
		res, err := pipeline.Run(f, pipeline.Config{LMC: -1, Workers: runtime.GOMAXPROCS(0)})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("q=%d", q), func(b *testing.B) {
			for b.Loop() {
				if _, err := verify.Check(res.Tables, runtime.GOMAXPROCS(0)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
