package repair_test

import (
	"math/rand/v2"
	"slimroute/repair"
	"testing"

	"slimroute/internal/failures"
	"slimroute/lft"
	"slimroute/pipeline"
)

// TestTheSparePairIsProgrammedAhead: on Slim Fly q = 5 and 7 and the
// chain fabrics' Clos, routed on 4 and 8 VLs, drawn single cables fail;
// wherever the repair opens a spare (SL, VL) pair, the full computation
// had programmed it already (pipeline's withSpare), so the repair changes
// no SL2VL table of a switch or an HCA (lft.Sent), and the intact tables
// still pass the verifier.
func TestTheSparePairIsProgrammedAhead(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	opened := 0
	for _, cf := range chainFabrics {
		f, err := cf.build()
		if err != nil {
			t.Fatal(err)
		}
		for _, vls := range []int{4, 8} {
			base, err := pipeline.Run(f, pipeline.Config{Layers: 4, VLs: vls, Seed: 1, LMC: -1, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			inter := failures.InterSwitch(f)
			for i := 0; i < 4; i++ {
				g, err := f.Without(nil, []int{inter[rng.IntN(len(inter))]})
				if err != nil {
					t.Fatal(err)
				}
				if len(g.SwitchView().Components()) != 1 {
					continue
				}
				tab, st, err := repair.Repair(base.Tables, g, repair.Options{Workers: 2, VLs: vls, Base: base.Tables})
				if err != nil {
					t.Fatalf("%s, %d VLs: %v", cf.name, vls, err)
				}
				if len(st.Spares) == 0 {
					continue
				}
				opened++
				if _, sl2vl := lft.Sent(base.Tables, tab); sl2vl != 0 {
					t.Errorf("%s, %d VLs: the repair opened %v and changed %d SL2VL tables (%s SLs %d, VLs %d)", cf.name, vls, st.Spares, sl2vl, base.Assignment.Scheme, base.Assignment.SLs, base.Assignment.VLs)
				}
			}
		}
	}
	if opened == 0 {
		t.Fatal("no repair opened a spare pair: the test judged nothing")
	}
	t.Logf("%d repairs opened a spare pair", opened)
}
