package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slimroute/internal/failures"
)

// BenchmarkRoutePrevious measures route --previous end to end in the
// process — read the previous routing, repair it, verify it, write it —
// on a Slim Fly routed with the default settings and one inter-switch
// cable failed since: in place (the first repair of a full routing, which
// keeps the base in DIR/base; a fresh copy of the routing per run, made
// outside the timing) and into another directory. Each size routes its
// Slim Fly first (q = 11: seconds, and 170 MB of files); run one size at
// a time: go test ./cmd/slimroute -run '^$' -bench 'RoutePrevious/q=11'
// -benchtime 5x (docs/performance.md).
func BenchmarkRoutePrevious(b *testing.B) {
	for _, q := range []int{5, 7, 11} {
		b.Run(fmt.Sprintf("q=%d", q), func(b *testing.B) {
			dir := b.TempDir()
			sf, good := routedSlimFly(b, dir, q)
			damaged, err := failures.Draw(sf, 1, 0, 1)
			if err != nil {
				b.Fatal(err)
			}
			broken := writeFabric(b, dir, "broken.json", damaged)
			for _, mode := range []string{"inplace", "other"} {
				b.Run(mode, func(b *testing.B) {
					for i := range b.N {
						b.StopTimer()
						prev, out := good, filepath.Join(dir, fmt.Sprint("out-", i))
						if mode == "inplace" {
							prev = copyRoute(b, good, filepath.Join(dir, fmt.Sprint("prev-", i)), "", nil)
							out = prev
						}
						b.StartTimer()
						o := runCLI("route", "--fabric", broken, "--previous", prev, "-o", out)
						b.StopTimer()
						if o.status != 0 || !strings.Contains(o.stdout, "repaired the routing") {
							b.Fatalf("no repair (exit %d): %s%s", o.status, o.stdout, o.stderr)
						}
						os.RemoveAll(out)
					}
				})
			}
		})
	}
}
