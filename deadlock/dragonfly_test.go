package deadlock_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"slimroute/deadlock"
	"slimroute/dragonflyplus"
	"slimroute/layers"
)

// TestDragonflyPlusSchemeVerified routes drawn Dragonfly+ shapes (1 to 4
// leaves, spines, global cables per spine and HCAs per leaf; 4 layers)
// and has the verifier, which knows nothing of the scheme, judge the
// tables built with AssignDragonfly: no credit loop, on at most the 3 VLs
// the argument gives, at most 16 SLs; and the VLs a switch programs are
// those the assignment says. The radix-8 and radix-12 Dragonfly+ of
// issue 29 too. A None assignment of the same routings has cycles (the
// verifier must see them).
func TestDragonflyPlusSchemeVerified(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 9))
	cyclic := 0
	for i := 0; i < 42; i++ {
		var p dragonflyplus.Params
		switch i {
		case 40:
			p = dragonflyplus.Params{Radix: 8}
		case 41:
			p = dragonflyplus.Params{Radix: 12}
			if testing.Short() {
				continue
			}
		default:
			p = dragonflyplus.Params{Leaves: 1 + rng.IntN(4), Spines: 1 + rng.IntN(4), Global: 1 + rng.IntN(4), Endpoints: 1 + rng.IntN(3)}
			gs := dragonflyplus.GroupCounts(p.Spines * p.Global)
			p.Groups = gs[rng.IntN(len(gs))]
		}
		f, err := dragonflyplus.Build(p)
		if err != nil {
			continue // a draw that does not fit (the builder says why)
		}
		t.Run(fmt.Sprintf("case=%d/%+v", i, p), func(t *testing.T) {
			r, err := layers.Compute(f, layers.Options{Layers: 4, Seed: uint64(i)})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, ok := r.DragonflyPlus(); !ok {
				t.Skip("not routed group by group (parallel cables)")
			}
			a, err := deadlock.AssignDragonfly(r, deadlock.Options{VLs: 4})
			if err != nil {
				t.Fatal(err)
			}
			rep := check(t, r, a)
			if !rep.Acyclic() {
				t.Fatalf("cycle %s", rep.CycleString())
			}
			if rep.VLs > a.VLs || a.VLs > 3 || a.SLs > 16 {
				t.Fatalf("%d VLs in use, the assignment %d VLs and %d SLs", rep.VLs, a.VLs, a.SLs)
			}
			if none := check(t, r, deadlock.None(r)); !none.Acyclic() {
				cyclic++
			}
		})
	}
	if cyclic == 0 {
		t.Fatal("no drawn routing has a credit loop on one VL: the cases do not test the scheme")
	}
}
