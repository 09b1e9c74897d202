package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"slimroute/analysis"
	"slimroute/internal/ibsimtest"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

// TestLayersBeatDFSSSPOnDisjointPathsAndPermutationLoad routes the q=5 and
// q=7 Slim Flies with OpenSM's dfsssp at LMC 2 on ibsim and with our four
// layers, measures both with the same analyzer, and requires ours to be at
// least as good on link-disjoint paths and on the permutation max load.
func TestLayersBeatDFSSSPOnDisjointPathsAndPermutationLoad(t *testing.T) {
	ibsimtest.Require(t, "opensm")
	for _, q := range []int{5, 7} {
		t.Run(fmt.Sprintf("q=%d", q), func(t *testing.T) {
			f, err := slimfly.Build(slimfly.Params{Q: q})
			if err != nil {
				t.Fatal(err)
			}
			sim := ibsimtest.StartFabric(t, f)
			dir := sim.OpenSM(t, 5*time.Minute, "-l", "2", "-R", "dfsssp")
			fh, err := os.Open(filepath.Join(dir, "opensm-lfts.dump"))
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			theirs, err := lft.ReadOpenSMLFTs(fh, "opensm-lfts.dump", f)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := pipeline.Run(f, pipeline.Config{Layers: 4, Seed: 1, LMC: -1})
			if err != nil {
				t.Fatal(err)
			}
			opts := analysis.Options{Permutations: 50, Seed: 3, Layers: 4}
			a, err := analysis.Analyze(theirs, opts)
			if err != nil {
				t.Fatalf("dfsssp tables: %v", err)
			}
			b, err := analysis.Analyze(ours.Tables, opts)
			if err != nil {
				t.Fatal(err)
			}
			for n := 2; n <= 3; n++ {
				if b.Disjoint[n] < a.Disjoint[n] {
					t.Errorf("pairs with ≥%d disjoint paths: ours %d, dfsssp %d", n, b.Disjoint[n], a.Disjoint[n])
				}
			}
			// one fabric, one ceiling, whoever routed it; neither exceeds it
			if a.Ceiling == nil || b.Ceiling == nil || fmt.Sprint(a.Ceiling.Possible) != fmt.Sprint(b.Ceiling.Possible) {
				t.Fatalf("ceilings: dfsssp %+v (%s), ours %+v", a.Ceiling, a.CeilingError, b.Ceiling)
			}
			for n := range a.Ceiling.Possible {
				if a.Ceiling.Achieved[n] > a.Ceiling.Possible[n] || b.Ceiling.Achieved[n] > b.Ceiling.Possible[n] {
					t.Errorf("≥%d disjoint: dfsssp %d, ours %d, ceiling %d", n, a.Ceiling.Achieved[n], b.Ceiling.Achieved[n], a.Ceiling.Possible[n])
				}
			}
			if a.Shifts == nil || a.Shifts.Shifts != a.Endpoints-1 || len(a.Shifts.Layers) != 4 {
				t.Errorf("dfsssp shift permutations: %+v", a.Shifts)
			}
			pa, pb := a.Patterns[3], b.Patterns[3]
			if pb.MeanMaxLoad > pa.MeanMaxLoad {
				t.Errorf("permutation mean max load: ours %.3f, dfsssp %.3f", pb.MeanMaxLoad, pa.MeanMaxLoad)
			}
			t.Logf("q=%d pairs %d: ≥2 disjoint ours %d dfsssp %d; ≥3 ours %d dfsssp %d; perm mean max load ours %.3f dfsssp %.3f",
				q, a.Pairs, b.Disjoint[2], a.Disjoint[2], b.Disjoint[3], a.Disjoint[3], pb.MeanMaxLoad, pa.MeanMaxLoad)
			// the analyzer sees what OpenSM programmed: every LID of every
			// endpoint routed, layer 0 minimal like dfsssp's
			if a.Pairs != b.Pairs || len(a.PathLengths[0]) != 3 {
				t.Errorf("dfsssp tables: %d pairs (ours %d), lengths %v", a.Pairs, b.Pairs, a.PathLengths[0])
			}
		})
	}
}
