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
// wiringfaults) and holds each report to the contract's invariant with the
// judge: replaying the actions on the true cabling gives the plan, no
// action touches a port that was as planned, the counts and Clean() agree
// with the truth, every touched node is named. It also requires that the
// checked repair (actions.go) never had to fall back to the plain one.
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
				c, err := wiringfaults.Generate(plan, seed, wiringfaults.Options{Naming: naming, Faults: n})
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

// FuzzVerifyGeneratedFaults is the property of
// TestVerifyRepairsGeneratedFaults over any seed, plan, naming and fault
// count: go test ./cabling -fuzz FuzzVerifyGeneratedFaults.
func FuzzVerifyGeneratedFaults(f *testing.F) {
	f.Add(uint64(1), uint8(0), uint8(0), uint8(3))
	f.Add(uint64(7), uint8(3), uint8(1), uint8(10))
	plans := map[string]*fabric.Fabric{}
	f.Fuzz(func(t *testing.T, seed uint64, which, naming, faults uint8) {
		name := wiringfaults.Plans[int(which)%len(wiringfaults.Plans)]
		plan, ok := plans[name]
		if !ok {
			var err error
			if plan, err = wiringfaults.Plan(name); err != nil {
				t.Fatal(err)
			}
			plans[name] = plan
		}
		o := wiringfaults.Options{Naming: wiringfaults.Namings[int(naming)%len(wiringfaults.Namings)], Faults: int(faults) % (wiringfaults.MaxFaults + 1)}
		c, err := wiringfaults.Generate(plan, seed, o)
		if err != nil {
			t.Skip(err) // no room for these faults: not a verify matter
		}
		rep, g := verify(plan, c.Found)
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := wiringfaults.Judge(plan, c, b); err != nil || g.plainRepairs > 0 {
			t.Fatalf("%s %s seed %d: %v (%d plain repairs)\n%s", name, o.Naming, seed, err, g.plainRepairs, describeReport(rep))
		}
	})
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
