package deadlock_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"slimroute/deadlock"
	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/layers"
	"slimroute/slimfly"
)

// TestSL2VLNamesOnlyTheVLsTheSwitchesHave: over seeded cases — Slim Flies
// q = 3..5, some with failed cables, 1 to 4 layers, each scheme, 1 to 8
// VLs — every SL2VL entry the assignment gives (every switch, cabled in
// port or 0, cabled out port, all 16 SLs) names a VL below the VLs it
// says it uses, and those are at most the VLs allowed: a switch refuses a
// table that names a VL it lacks, whether a route meets the entry or not.
// (The hop-indexed scheme mapped unused entries to VL 2 with 2 VLs.)
func TestSL2VLNamesOnlyTheVLsTheSwitchesHave(t *testing.T) {
	assigners := map[string]func(*layers.Routing, deadlock.Options) (*deadlock.Assignment, error){
		"hops": deadlock.AssignHops, "dfsssp": deadlock.AssignDFSSSP, "auto": deadlock.AssignAuto,
	}
	checked := 0
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 47))
		f, err := slimfly.Build(slimfly.Params{Q: []int{3, 4, 5}[rng.IntN(3)]})
		if err != nil {
			t.Fatal(err)
		}
		if rng.IntN(2) == 0 {
			if f, err = failures.Draw(f, 1+rng.IntN(3), 0, seed); err != nil {
				t.Fatal(err)
			}
		}
		r, err := layers.Compute(f, layers.Options{Layers: []int{1, 2, 4}[rng.IntN(3)], Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range slices.Sorted(maps.Keys(assigners)) { // (in name order: the draws depend on it)
			assign, vls := assigners[name], 1+rng.IntN(8)
			a, err := assign(r, deadlock.Options{VLs: vls})
			if err != nil {
				continue // too few VLs: refused, which other tests cover
			}
			what := fmt.Sprintf("seed %d, %s, %d VLs", seed, name, vls)
			if a.VLs > vls {
				t.Fatalf("%s: uses %d VLs", what, a.VLs)
			}
			for _, sw := range f.IDsOf(fabric.Switch) {
				cabled := func(p int) bool { _, ok := f.Peer(fabric.PortRef{Node: sw, Port: p}); return ok }
				for in := 0; in <= f.Ports(sw); in++ {
					for out := 1; out <= f.Ports(sw) && (in == 0 || cabled(in)); out++ {
						for sl := uint8(0); sl < 16 && out != in && cabled(out); sl++ {
							if v := a.VL(sw, in, out, sl); int(v) >= a.VLs {
								t.Fatalf("%s: %s in %d out %d SL %d → VL %d, but it uses %d VLs", what, f.Name(sw), in, out, sl, v, a.VLs)
							}
						}
					}
				}
			}
			checked++
		}
	}
	if checked < 40 {
		t.Fatalf("only %d assignments to check", checked)
	}
}
