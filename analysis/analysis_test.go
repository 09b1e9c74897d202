package analysis

import (
	"os"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/slimfly"
)

func readNet(t *testing.T, path string) *fabric.Fabric {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, err := fabric.ReadIBSimNet(fh, path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The dump was written by OpenSM 3.3.23 (minhop, LMC 2) on ibsim running
// testdata/small.net: two switches joined by two cables, a dual-ported HCA.
func TestReadsOpenSMDumpOfDualPortedHCA(t *testing.T) {
	f := readNet(t, "testdata/small.net")
	fh, _ := os.Open("testdata/small-minhop-lmc2.lfts")
	defer fh.Close()
	tab, err := lft.ReadOpenSMLFTs(fh, "small-minhop-lmc2.lfts", f)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(tab, Options{Permutations: 10})
	if err != nil {
		t.Fatal(err)
	}
	// minhop spreads the LIDs of hca-3 port 2 (on sw-b) over both parallel
	// cables from sw-a (dump: ports 3, 4, 3, 4), so that pair has 2
	// disjoint paths; sw-a's other destinations are local to it.
	if rep.Layers != 4 || rep.Endpoints != 4 || rep.Switches != 2 || rep.Channels != 4 {
		t.Fatalf("layers %d endpoints %d switches %d channels %d", rep.Layers, rep.Endpoints, rep.Switches, rep.Channels)
	}
	if rep.Pairs != 4 { // sw-a -> hca-3[2]; sw-b -> hca-1, hca-2, hca-3[1]
		t.Fatalf("pairs %d", rep.Pairs)
	}
	if rep.Disjoint[2] == 0 {
		t.Errorf("no pair with 2 disjoint paths: %v", rep.Disjoint)
	}
	for k := 0; k < 4; k++ {
		if rep.PathLengths[k][1] != 4 {
			t.Errorf("layer %d lengths %v: every pair is one hop apart", k, rep.PathLengths[k])
		}
	}
}

func TestDumpErrorsNameTheProblem(t *testing.T) {
	f := readNet(t, "testdata/small.net")
	for _, c := range []struct{ in, want string }{
		{"Unicast lids [0-1] of switch Lid 1 guid 0x0000000000000009 ('x'):\n", "not in the fabric"},
		{"0x0001 001 # Switch portguid 0x5346100000000000: 'sw-a'\n", "before any"},
		{"Unicast lids [0-1] of switch Lid 1 guid 0x5346100000000000 ('sw-a'):\n0x0004 001 # Channel Adapter portguid 0x5346200000000011: 'hca-1'\n", "no table for switch sw-b"},
		{"Unicast lids [0-1] of switch Lid 1 guid 0x5346100000000000 ('sw-a'):\nbogus\n", ":2: unrecognised line"},
	} {
		_, err := lft.ReadOpenSMLFTs(strings.NewReader(c.in), "d.lfts", f)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

func TestLayeredSlimFlyQuality(t *testing.T) {
	f, _ := slimfly.Build(slimfly.Params{Q: 7})
	r, err := layers.Compute(f, layers.Options{Layers: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(program(t, r), Options{Permutations: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	one, _ := layers.Compute(f, layers.Options{Layers: 1})
	rep1, err := Analyze(program(t, one), Options{Permutations: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// layer 0 is minimal: lengths 1 and 2 only, in the SF proportions
	if len(rep.PathLengths[0]) != 3 {
		t.Errorf("layer 0 lengths %v", rep.PathLengths[0])
	}
	// four layers give most pairs 3 disjoint paths; a single layer gives 1
	share3 := float64(rep.Disjoint[3]) / float64(rep.Pairs)
	if share3 < 0.5 || len(rep1.Disjoint) != 2 || rep1.Disjoint[1] != rep1.Pairs {
		t.Errorf("≥3 disjoint paths for %.2f of pairs (want > 0.5); single layer: %v", share3, rep1.Disjoint)
	}
	// spreading over layers lowers the permutation max load
	p4, p1 := rep.Patterns[3], rep1.Patterns[3]
	if p4.Name != "random permutations" || p4.MeanMaxLoad >= p1.MeanMaxLoad {
		t.Errorf("permutation max load: 4 layers %.2f, 1 layer %.2f", p4.MeanMaxLoad, p1.MeanMaxLoad)
	}
	for _, e := range rep.EFI {
		if e.Max < e.LowerBound || e.LowerBound <= 0 {
			t.Errorf("EFI %+v: max below the lower bound", e)
		}
	}
	t.Logf("≥1 %d ≥2 %d ≥3 %d of %d; switch pairs ≥3 %d/%d; perm mean max %.3f (1 layer %.3f) eff %.3f; EFI0 %+v",
		rep.Disjoint[1], rep.Disjoint[2], rep.Disjoint[3], rep.Pairs, rep.SwitchPairDisjoint[3], rep.SwitchPairs, p4.MeanMaxLoad, p1.MeanMaxLoad, p4.EffectiveBandwidth, rep.EFI[0])
}

// program builds the forwarding tables of a routing (no VLs).
func program(t *testing.T, r *layers.Routing) *lft.Tables {
	t.Helper()
	lids, err := lft.AssignLIDs(r.Fabric, lft.LIDOptions{LMC: layers.LMC(r.NumLayers())})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := lft.Build(r.Fabric, lids, r, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestMaxDisjoint(t *testing.T) {
	for _, c := range []struct {
		paths [][]int
		want  int
	}{
		{[][]int{{1, 2}, {3, 4}, {5}, {1}}, 3},
		{[][]int{{1, 2}, {1, 2}, {1, 2}, {1, 2}}, 1},
		{[][]int{{1}, {2}, {3}, {4}}, 4},
		{[][]int{{1, 2}, {2, 3}, {3, 4}, {4, 1}}, 2},
	} {
		if got := maxDisjoint(c.paths); got != c.want {
			t.Errorf("%v: %d, want %d", c.paths, got, c.want)
		}
	}
}
