package layers

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"slimroute/fabric"
)

// TestLedgerFollowsTheTables: the loads the improving passes hand on —
// read once, then kept current by regrow, balance (with mend) and unload
// as they move routes — equal, after every pass, the loads read afresh
// from the tables it left. Drawn cases: the regrowing cases (Slim Flies
// q = 4, 5, 7, with failed cables or a failed switch, shared or own
// trees, symmetric or not, one or two workers) and random fabrics of
// diameter about 2 (some regrown, some only balanced). (Mending once
// listed a channel anew each time a move's load change on it left zero,
// and charged it twice: red in 7 of these cases, f7e1e15.)
func TestLedgerFollowsTheTables(t *testing.T) {
	check := func(t *testing.T, f *fabric.Fabric, o Options) {
		o.Unbalanced = true // the passes are run here, one at a time
		r, err := Compute(f, o)
		if err != nil {
			t.Skipf("%v", err) // a draw that split the fabric
		}
		g := r.g
		led := readLedger(g, r)
		same := func(pass string) {
			t.Helper()
			fresh := readLedger(g, r)
			for k := range fresh.layer {
				if i := firstDiff(led.layer[k], fresh.layer[k]); i >= 0 {
					t.Fatalf("after %s, layer %d channel %d: the ledger says %d, the tables %d", pass, k, i, led.layer[k][i], fresh.layer[k][i])
				}
			}
			if i := firstDiff(led.total, fresh.total); i >= 0 {
				t.Fatalf("after %s, channel %d over all layers: the ledger says %d, the tables %d", pass, i, led.total[i], fresh.total[i])
			}
		}
		regrowing := regrowApplies(g, r)
		if regrowing {
			regrow(g, r, o.Seed, led)
			same("regrow")
		}
		balance(g, r, true, led)
		same("balance")
		if regrowing {
			unload(g, r, o.Seed, true, led)
			same("unload")
		}
	}
	forRegrowCases(t, 41, func(t *testing.T, _ int, f *fabric.Fabric, o Options) { check(t, f, o) })
	rng := rand.New(rand.NewPCG(43, 0))
	for i := 0; i < 12; i++ {
		f := denseFabric(t, rng, 6+rng.IntN(30), 0.25+0.5*rng.Float64())
		o := Options{Layers: 4, Seed: uint64(i), Trees: []int{-1, 0, 3}[rng.IntN(3)], Workers: 1 + i%2}
		t.Run(fmt.Sprintf("dense=%d", i), func(t *testing.T) { check(t, f, o) })
	}
}

// firstDiff returns the first index where a and b differ, -1 for none.
func firstDiff(a, b []int64) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
