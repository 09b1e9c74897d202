package transition

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
)

// TestTheReportIsTheSameOnAnyNumberOfWorkers: drawn switch-overs of Slim
// Fly q = 5 — two routings under other seeds (forwarding and credit
// loops), one routing with drawn entries dropped, sent to ports without
// cables or elsewhere (dead ends, loops), and a routing to itself — give
// the very same report on 1 to 6 workers: counts, the first loop, the
// first dead ends in LID order, the credit loop and its packets.
func TestTheReportIsTheSameOnAnyNumberOfWorkers(t *testing.T) {
	f := slimFly(t, 5)
	a, b := route(t, f, 3), route(t, f, 4)
	rng := rand.New(rand.NewPCG(5, 6))
	noisy := rebuild(t, a, edits{lft: func(_ fabric.NodeID, row []uint8) {
		for lid := 1; lid < len(row); lid++ {
			if rng.IntN(200) == 0 {
				row[lid] = []uint8{lft.Drop, 1 + uint8(rng.IntN(11)), 12}[rng.IntN(3)]
			}
		}
	}})
	found := [3]bool{}
	for i, c := range [][2]*lft.Tables{{a, b}, {a, noisy}, {noisy, b}, {a, a}} {
		one, err := Check(c[0], c[1])
		must(t, err)
		found[0] = found[0] || one.Loop != nil
		found[1] = found[1] || one.Cycle != nil
		found[2] = found[2] || one.DeadEnds > MaxDead
		if fs := one.Findings(); (len(fs) == 0) != one.Safe() {
			t.Fatalf("case %d: findings %q, safe %v", i, fs, one.Safe())
		}
		for w := 2; w <= 6; w++ {
			r, err := CheckWith(c[0], c[1], Options{Workers: w})
			must(t, err)
			if !reflect.DeepEqual(r, one) {
				t.Fatalf("case %d: %d workers report\n%s\none reports\n%s", i, w, r, one)
			}
		}
	}
	if found != [3]bool{true, true, true} {
		t.Fatalf("the cases found loops, credit loops, more than MaxDead dead ends: %v", found)
	}
}
