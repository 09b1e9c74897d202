package analysis

import (
	"fmt"
	"os"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/slimfly"
)

// shiftReference measures the shift permutations the plain way: walk
// every flow's path with the walker and add it up.
func shiftReference(t *testing.T, tab *lft.Tables) *ShiftReport {
	t.Helper()
	v, err := newView(tab, 0)
	if err != nil {
		t.Fatal(err)
	}
	L, N, C := v.NumLayers(), v.NumEndpoints(), v.NumChannels()
	w := walker{t: v, S: v.NumSwitches()}
	rank := rankOrder(v)
	rep := &ShiftReport{Shifts: N - 1, All: ShiftLoad{Layer: -1}}
	for k := 0; k < L; k++ {
		rep.Layers = append(rep.Layers, ShiftLoad{Layer: k})
	}
	for s := 1; s < N; s++ {
		all := make([]float64, C)
		for k := 0; k < L; k++ {
			load := make([]float64, C)
			for i := 0; i < N; i++ {
				_, sw := v.Endpoint(rank[i])
				p, err := w.walk(k, sw, rank[(i+s)%N], nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, ch := range p {
					load[ch]++
					all[ch] += 1 / float64(L)
				}
			}
			rep.Layers[k].note(s, maxOf(load))
		}
		rep.All.note(s, maxOf(all))
	}
	for k := range rep.Layers {
		rep.Layers[k].MeanMaxLoad /= float64(N - 1)
	}
	rep.All.MeanMaxLoad /= float64(N - 1)
	return rep
}

// The shift loads Analyze reports, on 1 to 3 workers, are those of walking
// every flow, for slimroute's routings (Slim Fly, Clos, several seeds) and
// OpenSM's dump;
// splitting flows over the layers never loads a link more than the worst
// layer does.
func TestShiftLoadsMatchWalkingEveryFlow(t *testing.T) {
	type tc struct {
		name string
		tab  *lft.Tables
	}
	var cases []tc
	sf, _ := slimfly.Build(slimfly.Params{Q: 5})
	fat, err := clos.Build(clos.Params{Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*fabric.Fabric{sf, fat} {
		for seed := uint64(1); seed <= 3; seed++ {
			r, err := layers.Compute(f, layers.Options{Layers: 1 << seed, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, tc{fmt.Sprintf("%d switches, %d layers, seed %d", f.SwitchView().NumSwitches(), 1<<seed, seed), program(t, r)})
		}
	}
	small := readNet(t, "testdata/small.net")
	fh, _ := os.Open("testdata/small-minhop-lmc2.lfts")
	defer fh.Close()
	dump, err := lft.ReadOpenSMLFTs(fh, "small-minhop-lmc2.lfts", small)
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, tc{"OpenSM minhop dump", dump})
	for i, c := range cases {
		workers := 1 + i%3 // the report is the same on any number
		rep, err := Analyze(c.tab, Options{Permutations: 1, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		want := shiftReference(t, c.tab)
		if fmt.Sprint(*rep.Shifts) != fmt.Sprint(*want) {
			t.Errorf("%s, %d workers:\n got %+v\nwant %+v", c.name, workers, *rep.Shifts, *want)
		}
		if rep.Shifts.Shifts == 0 || rep.Shifts.Shifts != rep.Endpoints-1 {
			t.Errorf("%s: %d shifts over %d endpoints", c.name, rep.Shifts.Shifts, rep.Endpoints)
		}
		worst := 0.0
		for _, l := range rep.Shifts.Layers {
			worst = max(worst, l.MaxLoad)
		}
		if rep.Shifts.All.MaxLoad > worst {
			t.Errorf("%s: split over layers %.3f, worst layer %.3f", c.name, rep.Shifts.All.MaxLoad, worst)
		}
	}
}
