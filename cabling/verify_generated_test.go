package cabling

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/wiringfaults"
)

// TestVerifyRepairsGeneratedFaults runs Verify on seeded random fault sets
// (1 to 10 faults of every kind, every naming mode, every planned fabric of
// wiringfaults) and requires that every port that is not as planned is on
// exactly one difference (so in exactly one finding); that the planned
// repair of every difference passed its own check (actions.go), so that the
// plain repair never had to stand in for it — the judge alone would not see
// that, the plain repair being right too; that the report never takes more
// actions than undoing the faults one by one; and that the judge accepts
// the report. (The property
// test of the contract, over 10,000 cases, is TestVerifyNeverMisreports-
// WiringFaults; the fuzz target over the seed is FuzzVerifyWiring.)
func TestVerifyRepairsGeneratedFaults(t *testing.T) {
	seeds := 120
	if testing.Short() {
		seeds = 20
	}
	failures, cases, ambiguous := 0, 0, 0
	for _, name := range wiringfaults.Plans {
		plan, err := wiringfaults.Plan(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, naming := range wiringfaults.Namings {
			for seed := uint64(1); seed <= uint64(seeds); seed++ {
				n := 1 + rand.New(rand.NewPCG(seed, 3)).IntN(wiringfaults.MaxFaults)
				// every other case compound: faults may take plugs earlier ones displaced
				c, err := wiringfaults.Generate(plan, seed, wiringfaults.Options{Naming: naming, Faults: n, Compound: seed%2 == 0})
				if err != nil {
					t.Fatal(err)
				}
				cases++
				rep, g := verify(plan, c.Found)
				if g.plainRepairs > 0 {
					failures++
					t.Errorf("%s %s seed %d: %d differences needed the plain repair:\n%s", name, naming, seed, g.plainRepairs, describeReport(rep))
				}
				b, err := json.Marshal(rep)
				if err != nil {
					t.Fatal(err)
				}
				if err := g.everyPortOnce(); err != nil {
					failures++
					t.Errorf("%s %s seed %d: %v", name, naming, seed, err)
				}
				undo, steps := 0, 0
				for _, f := range c.Faults {
					undo += len(f.Undo)
				}
				for _, f := range rep.Findings {
					steps += len(f.Actions)
				}
				if steps > undo {
					failures++
					t.Errorf("%s %s seed %d: %d actions, but undoing the faults one by one takes %d:\n%s", name, naming, seed, steps, undo, describeReport(rep))
				}
				v, err := wiringfaults.Judge(plan, c, b)
				if err != nil {
					failures++
					if failures <= 5 {
						t.Errorf("%s %s seed %d (%d faults): %v\nreport:\n%s", name, naming, seed, n, err, describeReport(rep))
					}
					continue
				}
				if len(v.Candidates) > 0 {
					ambiguous++
				}
			}
		}
	}
	t.Logf("%d cases, %d failed, %d with an ambiguous finding", cases, failures, ambiguous)
	if failures > 0 {
		t.Errorf("%d of %d cases failed", failures, cases)
	}
}

// everyPortOnce checks the classification's promise: every port that is not
// as planned is on exactly one difference, and no other port is.
func (g *portGraph) everyPortOnce() error {
	on := make([]int, len(g.planned))
	for _, d := range g.differences() {
		for _, p := range d.ports {
			on[p]++
		}
	}
	for p := range on {
		want := 0
		if g.differs(int32(p)) {
			want = 1
		}
		if on[p] != want {
			k, port := g.node(int32(p))
			return fmt.Errorf("%s port %d is on %d differences, want %d", g.name(k), port, on[p], want)
		}
	}
	return nil
}

func describeReport(r *Report) string {
	s := r.Summary()
	for _, f := range r.Findings {
		s += fmt.Sprintf("  [%s] %s\n", f.Kind, f.Instruction)
		for _, a := range f.Actions {
			s += fmt.Sprintf("      %s %s[%d] %s[%d]\n", a.Op, a.A.Node, a.A.Port, a.B.Node, a.B.Port)
		}
	}
	return s
}

// TestVerifyDoesNotDependOnDiscoveryOrder: the same discovery with its
// nodes listed in another order gives the same report, byte for byte.
func TestVerifyDoesNotDependOnDiscoveryOrder(t *testing.T) {
	for _, name := range wiringfaults.Plans {
		plan, err := wiringfaults.Plan(name)
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= 30; seed++ {
			naming := wiringfaults.Namings[seed%uint64(len(wiringfaults.Namings))]
			c, err := wiringfaults.Generate(plan, seed, wiringfaults.Options{Naming: naming, Faults: 1 + int(seed%10)})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(Verify(plan, c.Found))
			got, _ := json.Marshal(Verify(plan, permuted(t, c.Found, rand.New(rand.NewPCG(seed, 9)))))
			if string(got) != string(want) {
				t.Fatalf("%s %s seed %d: the report changes with the order of the discovered nodes:\n%s\n%s", name, naming, seed, want, got)
			}
		}
	}
	// the twins: an ambiguous finding lists the discovered switches in GUID order
	p, err := wiringfaults.TwinPlan()
	if err != nil {
		t.Fatal(err)
	}
	twins, _, err := wiringfaults.TwinCases(p, wiringfaults.FactoryNewGUIDs)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(Verify(p, twins.Found))
	for seed := uint64(1); seed <= 10; seed++ {
		if got, _ := json.Marshal(Verify(p, permuted(t, twins.Found, rand.New(rand.NewPCG(seed, 9))))); string(got) != string(want) {
			t.Fatalf("twins: the report changes with the order of the discovered nodes:\n%s\n%s", want, got)
		}
	}
}

// permuted returns f with its nodes in a random order.
func permuted(t *testing.T, f *fabric.Fabric, rng *rand.Rand) *fabric.Fabric {
	t.Helper()
	order := rng.Perm(f.NumNodes()) // new position of node i
	nodes := make([]fabric.Node, f.NumNodes())
	for i, n := range f.Nodes() {
		nodes[order[i]] = n
	}
	links := append([]fabric.Link(nil), f.Links()...)
	for i := range links {
		links[i].A.Node, links[i].B.Node = fabric.NodeID(order[links[i].A.Node]), fabric.NodeID(order[links[i].B.Node])
	}
	g, err := fabric.New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
