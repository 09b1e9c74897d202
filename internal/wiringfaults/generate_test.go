package wiringfaults

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"slimroute/fabric"
)

// describe renders everything a case says, for comparing two cases.
func describe(t *testing.T, c *Case) string {
	var b bytes.Buffer
	if err := fabric.WriteJSON(&b, c.Found); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "%v %v %v %v %v", c.Faults, c.PlanOf, c.Root, c.Unseen, c.Touched)
	return b.String()
}

func TestGenerateIsDeterministic(t *testing.T) {
	plan := testPlan(t, "sf5")
	for _, naming := range Namings {
		for seed := uint64(1); seed <= 20; seed++ {
			o := Options{Naming: naming, Faults: 1 + int(seed)%MaxFaults}
			a, err1 := Generate(plan, seed, o)
			b, err2 := Generate(plan, seed, o)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if describe(t, a) != describe(t, b) {
				t.Fatalf("seed %d %s: two runs differ", seed, naming)
			}
		}
	}
}

// TestEveryKindOnEveryPlan: each kind alone, on each plan, in each naming,
// is injected as asked and leaves the fabric miswired.
func TestEveryKindOnEveryPlan(t *testing.T) {
	for _, name := range Plans {
		plan := testPlan(t, name)
		for _, k := range Kinds {
			for _, naming := range Namings {
				c, err := Generate(plan, 11, Options{Naming: naming, Faults: 1, Kinds: []Kind{k}})
				if err != nil {
					t.Fatalf("%s %s: %v", name, k, err)
				}
				if len(c.Faults) != 1 || c.Faults[0].Kind != k || c.Clean() {
					t.Errorf("%s %s %s: faults %v, touched %v", name, k, naming, c.Faults, c.Touched)
				}
			}
		}
	}
}

// TestDiscoveryIsWhatIBNetDiscoverWouldSee checks the discovered fabric of
// many cases against the physical truth: it holds exactly the nodes of the
// root's component, each cable once with its rate, the names and GUIDs of
// the naming mode; an HCA whose cable is missing and a missing switch are
// not in it.
func TestDiscoveryIsWhatIBNetDiscoverWouldSee(t *testing.T) {
	for _, name := range Plans {
		plan := testPlan(t, name)
		for _, naming := range Namings {
			for seed := uint64(1); seed <= 40; seed++ {
				c, err := Generate(plan, seed, Options{Naming: naming, Faults: 1 + int(seed)%MaxFaults})
				if err != nil {
					t.Fatal(err)
				}
				if err := checkDiscovery(plan, c); err != nil {
					t.Fatalf("%s %s seed %d: %v", name, naming, seed, err)
				}
			}
		}
	}
}

func checkDiscovery(plan *fabric.Fabric, c *Case) error {
	f := c.Found
	if f.NumNodes()+len(c.Unseen) != plan.NumNodes() || c.PlanOf[0] != c.Root || f.IDsOf(fabric.Switch)[0] != 0 {
		return fmt.Errorf("%d found + %d unseen nodes, plan has %d; root first: %v", f.NumNodes(), len(c.Unseen), plan.NumNodes(), c.PlanOf[0] == c.Root)
	}
	cables := 0
	c.Physical.eachPort(func(p fabric.PortRef) {
		if _, ok := c.Physical.Peer(p); ok {
			cables++
		}
	})
	if 2*len(f.Links()) != cables {
		return fmt.Errorf("%d links found, %d cables plugged", len(f.Links()), cables/2)
	}
	for _, l := range f.Links() {
		a := fabric.PortRef{Node: c.PlanOf[l.A.Node], Port: l.A.Port}
		b := fabric.PortRef{Node: c.PlanOf[l.B.Node], Port: l.B.Port}
		if x, ok := c.Physical.Peer(a); !ok || x != b {
			return fmt.Errorf("found link %v is not a physical cable", l)
		}
		if slow := l.Width < PlannedRate.Width || l.Speed < PlannedRate.Speed; slow != c.Physical.Degraded(a) {
			return fmt.Errorf("found link %v at %s, degraded %v", l, fabric.Rate(l.Width, l.Speed), c.Physical.Degraded(a))
		}
	}
	for _, u := range c.Unseen {
		for p := 1; p <= plan.Node(u).Ports; p++ {
			if _, ok := c.Physical.Peer(fabric.PortRef{Node: u, Port: p}); ok {
				return fmt.Errorf("unseen %s holds a cable in port %d", plan.Node(u).Name, p)
			}
		}
	}
	for _, fault := range c.Faults {
		var gone fabric.NodeID = -1
		switch fault.Kind {
		case MissingSwitch:
			gone = fault.Undo[0].A.Node
		case MissingHCACable:
			gone = fault.Undo[0].B.Node
		}
		if gone >= 0 && !slices.Contains(c.Unseen, gone) {
			return fmt.Errorf("%s: %s was discovered", fault.Kind, plan.Node(gone).Name)
		}
	}
	for d, pn := range c.PlanOf {
		got, want := f.Node(fabric.NodeID(d)), plan.Node(pn)
		sameGUID := got.GUID == want.GUID
		named := got.Name == want.Name
		if want.Kind == fabric.HCA && c.Naming == HostDescriptions {
			named = got.Name == want.Name+" "+HostDevice
		}
		switch {
		case c.Naming.NewGUIDs() && sameGUID,
			!c.Naming.NewGUIDs() && !sameGUID,
			want.Kind == fabric.HCA && !named,
			want.Kind == fabric.Switch && named == (c.Naming != PlanDescriptions):
			return fmt.Errorf("%s discovered as %q %s in mode %s", want.Name, got.Name, got.GUID, c.Naming)
		}
	}
	return nil
}

// TestUndoInReverseRestoresThePlan: in compound mode faults pile up on the
// same plugs; undoing them in reverse order still restores the plan, and
// the mode really makes faults share ports.
func TestUndoInReverseRestoresThePlan(t *testing.T) {
	overlapping := 0
	for _, name := range Plans {
		plan := testPlan(t, name)
		for seed := uint64(1); seed <= 100; seed++ {
			c, err := Generate(plan, seed, Options{Naming: PlanDescriptions, Faults: MaxFaults, Compound: true})
			if err != nil {
				t.Fatal(err)
			}
			cab := c.Physical.Clone()
			seen, shared := map[fabric.PortRef]int{}, false
			for i := len(c.Faults) - 1; i >= 0; i-- {
				for _, s := range c.Faults[i].Undo {
					if err := cab.Apply(s); err != nil {
						t.Fatalf("%s seed %d: undo of fault %d (%s): %v", name, seed, i+1, c.Faults[i].Kind, err)
					}
					for _, p := range [2]fabric.PortRef{s.A, s.B} {
						if f, ok := seen[p]; ok && f != i {
							shared = true
						}
						seen[p] = i
					}
				}
			}
			if d := cab.Diff(); len(d) > 0 {
				t.Fatalf("%s seed %d: %d ports still wrong after undoing every fault", name, seed, len(d))
			}
			if shared {
				overlapping++
			}
		}
	}
	t.Logf("%d of %d compound cases have faults sharing ports", overlapping, 4*100)
	if overlapping < 300 {
		t.Errorf("only %d of 400 compound cases have overlapping faults", overlapping)
	}
}
