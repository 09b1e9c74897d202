package engine

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/slimfly"
)

// BenchmarkCompute times what the plugin does inside OpenSM's lock on a
// first sweep, with its default settings: read the subnet OpenSM hands
// over (slimroute JSON with OpenSM's LIDs, LMC 2), route, assign VLs,
// build and verify the tables.
func BenchmarkCompute(b *testing.B) {
	for _, q := range []int{5, 7, 11} {
		f, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			b.Fatal(err)
		}
		lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: 2})
		if err != nil {
			b.Fatal(err)
		}
		g, err := RecordLIDs(f, lids)
		if err != nil {
			b.Fatal(err)
		}
		var js bytes.Buffer
		if err := fabric.WriteJSON(&js, g); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("q=%d", q), func(b *testing.B) {
			for b.Loop() {
				if _, err := Compute(js.Bytes(), "", runtime.GOMAXPROCS(0), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
