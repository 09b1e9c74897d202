package layers

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"slimroute/dragonflyplus"
	"slimroute/fabric"
)

// drawDragonflyPlus draws a Dragonfly+ shape: 1 to 4 leaves, spines,
// global cables per spine and HCAs per leaf, and a group count that joins
// every two groups alike.
func drawDragonflyPlus(t *testing.T, rng *rand.Rand) (*fabric.Fabric, dragonflyplus.Params) {
	t.Helper()
	for {
		p := dragonflyplus.Params{Leaves: 1 + rng.IntN(4), Spines: 1 + rng.IntN(4), Global: 1 + rng.IntN(4), Endpoints: 1 + rng.IntN(3)}
		gs := dragonflyplus.GroupCounts(p.Spines * p.Global)
		p.Groups = gs[rng.IntN(len(gs))]
		f, err := dragonflyplus.Build(p)
		if err == nil {
			return f, p
		}
	}
}

// TestDragonflyPlusLayers routes drawn Dragonfly+ shapes and judges the
// tables by walking them: recognised and routed group pair by group pair
// (unless it has parallel cables: two spines joined twice), every route
// reaching its destination over cabled ports, layer 0 minimal, layers ≥ 1
// within 2 to 6 hops; the same tables on one and on two workers; and the
// routes of layers ≥ 1 only of the shapes the VL scheme is argued for:
// minimal, through a spine Z cabled to both groups, or through a leaf of
// a third group (at most two global cables, at most one turn down into a
// leaf and up again, the turn between the two global cables). A fabric
// with a global cable missing is not recognised (the general search).
func TestDragonflyPlusLayers(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 8))
	routed := 0
	for i := 0; i < 60; i++ {
		f, p := drawDragonflyPlus(t, rng)
		t.Run(fmt.Sprintf("case=%d/%+v", i, p), func(t *testing.T) {
			o := Options{Layers: []int{2, 4, 4, 8}[i%4], Seed: uint64(i), Workers: 1}
			r, err := Compute(f, o)
			if err != nil {
				t.Fatal(err)
			}
			group, leaf, ok := r.DragonflyPlus()
			if !ok {
				if r.g.parallelFree() && p.Groups > 1 {
					t.Fatalf("not routed as a Dragonfly+")
				}
				return
			}
			routed++
			checkRouting(t, f, r)
			if r.Bounds != DragonflyPlusBounds {
				t.Fatalf("bounds %v", r.Bounds)
			}
			o.Workers = 2
			r2, err := Compute(f, o)
			if err != nil {
				t.Fatal(err)
			}
			for k := range r.next {
				if !slices.Equal(r.next[k], r2.next[k]) {
					t.Fatalf("layer %d differs between 1 and 2 workers", k)
				}
			}
			for k := 1; k < r.NumLayers(); k++ {
				for d := 0; d < r.NumEndpoints(); d++ {
					for s := 0; s < r.NumSwitches(); s++ {
						path, _ := r.Path(k, s, d)
						globals, turns, turnAt := 0, 0, -1
						for j := 0; j+1 < len(path); j++ {
							if j > 0 && leaf[path[j]] && !leaf[path[j-1]] && !leaf[path[j+1]] {
								turns, turnAt = turns+1, globals
							}
							if !leaf[path[j]] && !leaf[path[j+1]] && group[path[j]] != group[path[j+1]] {
								globals++
							}
						}
						if leaf[s] && (globals > 2 || turns > 1 || turns == 1 && (globals != 2 || turnAt != 1)) {
							t.Fatalf("layer %d: route %v from %d to %s: %d global cables, %d turns", k, path, s, r.DestName(d), globals, turns)
						}
					}
				}
			}
		})
	}
	if routed < 30 {
		t.Fatalf("%d of 60 drawn shapes routed as Dragonfly+: the generator misses the pass", routed)
	}
	f, err := dragonflyplus.Build(dragonflyplus.Params{Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range f.Links() {
		if strings.HasPrefix(f.Name(l.A.Node), "dfp-spine") && strings.HasPrefix(f.Name(l.B.Node), "dfp-spine") { // a global cable
			r, err := Compute(f, Options{Layers: 4, AvoidLinks: []int{i}})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, ok := r.DragonflyPlus(); ok {
				t.Fatal("routed as a Dragonfly+ without one of its global cables")
			}
			break
		}
	}
}
