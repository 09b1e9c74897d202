package analysis_test

import (
	"math/rand/v2"
	"testing"

	"slimroute/analysis"
	"slimroute/hyperx"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

// TestDimensionShiftsOfMinimalRoutingLoadTheDirectCable: on drawn HyperX
// shapes (one to three dimensions, 2 to 6 switches each, 1 to 4 endpoints
// per switch) routed in one layer, minimal, every dimension shift sends a
// switch's T endpoints to a switch of its own line — one hop, over the
// cable between the two, which no other switch's flow uses in that
// shift — so each shift's busiest link carries exactly T, whatever
// numbering the grid is read in. With 4 layers the pattern is there too
// and no worse than that; a Slim Fly has none.
func TestDimensionShiftsOfMinimalRoutingLoadTheDirectCable(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 3))
	cases := 12
	if testing.Short() {
		cases = 4
	}
	for range cases {
		dims := make([]int, 1+rng.IntN(3))
		for i := range dims {
			dims[i] = 2 + rng.IntN(5)
		}
		if len(dims) == 1 && dims[0] < 3 {
			dims[0] = 3 // a HyperX of one dimension is a complete graph of 3 or more
		}
		T := 1 + rng.IntN(4)
		f, err := hyperx.Build(hyperx.Params{Dims: dims, Endpoints: T})
		if err != nil {
			t.Fatal(err)
		}
		for _, L := range []int{1, 4} {
			res, err := pipeline.Run(f, pipeline.Config{Layers: L, Deadlock: "auto", VLs: 8, Seed: 1, LMC: -1, Workers: 1})
			if err != nil {
				t.Fatalf("%v, %d per switch, %d layers: %v", dims, T, L, err)
			}
			rep, err := analysis.Analyze(res.Tables, analysis.Options{Permutations: 1, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			p, ok := pattern(rep, analysis.DimensionShifts)
			wantSamples := 0
			for _, n := range dims {
				wantSamples += n - 1
			}
			switch {
			case !ok:
				t.Fatalf("%v: no %s pattern", dims, analysis.DimensionShifts)
			case p.Samples != wantSamples:
				t.Errorf("%v: %d shifts measured, want %d", dims, p.Samples, wantSamples)
			case L == 1 && (p.MaxLoad != float64(T) || p.MeanMaxLoad != float64(T)):
				t.Errorf("%v, %d per switch, minimal: max %.3f mean %.3f, want %d both", dims, T, p.MaxLoad, p.MeanMaxLoad, T)
			case p.MaxLoad > float64(T):
				t.Errorf("%v, %d per switch, 4 layers: max %.3f above the minimal routing's %d", dims, T, p.MaxLoad, T)
			}
		}
	}
	f, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(f, pipeline.Config{Layers: 1, Deadlock: "auto", VLs: 8, Seed: 1, LMC: -1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.Analyze(res.Tables, analysis.Options{Permutations: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := pattern(rep, analysis.DimensionShifts); ok {
		t.Errorf("a Slim Fly has a %s pattern", analysis.DimensionShifts)
	}
}

func pattern(rep *analysis.Report, name string) (analysis.PatternLoad, bool) {
	for _, p := range rep.Patterns {
		if p.Name == name {
			return p, true
		}
	}
	return analysis.PatternLoad{}, false
}
