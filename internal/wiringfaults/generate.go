package wiringfaults

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"slimroute/fabric"
)

// Naming is how a discovery names the nodes it finds.
type Naming int

// The naming modes of the contract. No node-name-map exists in any.
const (
	// PlanDescriptions: every node description is its plan name, every GUID
	// as planned.
	PlanDescriptions Naming = iota
	// FactoryNewGUIDs: switches carry the vendor's default description
	// (MF0;switch-xxxxxx:MQM8700/U1, xxxxxx from the GUID) and GUIDs the plan
	// does not know; HCAs keep their host names (the OS sets them) but get
	// new GUIDs too.
	FactoryNewGUIDs
	// FactoryPlannedGUIDs: as FactoryNewGUIDs, but every GUID as planned.
	FactoryPlannedGUIDs
	// HostDescriptions: as FactoryNewGUIDs, but each HCA describes itself
	// as an operating system does, by host name and device ("node017
	// mlx5_0"), the host name being its plan name (a plan made with the
	// cluster's host names).
	HostDescriptions
)

// Namings lists the naming modes in a fixed order.
var Namings = []Naming{PlanDescriptions, FactoryNewGUIDs, FactoryPlannedGUIDs, HostDescriptions}

// HostDevice is the device part of an HCA's description under
// HostDescriptions.
const HostDevice = "mlx5_0"

// NewGUIDs reports whether discovery shows GUIDs the plan does not know.
func (n Naming) NewGUIDs() bool { return n == FactoryNewGUIDs || n == HostDescriptions }

func (n Naming) String() string {
	switch n {
	case PlanDescriptions:
		return "plan-descriptions"
	case FactoryNewGUIDs:
		return "factory-new-guids"
	case FactoryPlannedGUIDs:
		return "factory-planned-guids"
	case HostDescriptions:
		return "host-descriptions"
	}
	return fmt.Sprintf("naming(%d)", int(n))
}

// MaxFaults is the most faults Generate injects at once.
const MaxFaults = 10

// Options says what case to generate.
type Options struct {
	Naming Naming
	Faults int    // 0 (a clean case) to MaxFaults
	Kinds  []Kind // the kinds to draw from; nil means all Kinds
	// Compound lets a fault take plugs earlier faults displaced, so faults
	// pile up on the same cables (see Kinds). Faults that cancel out
	// entirely are drawn again; the truth is always the final cabling.
	Compound bool
}

// Case is a broken fabric and the truth about it.
//
// Discovery rule: ibnetdiscover runs from the first switch of the plan (in
// plan node order) that holds a cable, and sees exactly the
// connected component of the physical cabling that contains it. Generate
// never produces a cabled island that discovery cannot reach (it draws the
// faults again instead): no checker can know of cables it cannot see. Nodes
// outside the component carry no cable at all; they are in Unseen.
type Case struct {
	Seed   uint64
	Naming Naming
	Faults []Fault
	// Physical is the true cabling after the faults, on plan ports.
	Physical *Cabling
	// Found is what ibnetdiscover reports, named per Naming. Its first
	// switch is Root, so an ibsim net file written from it (switches first)
	// attaches the discovery to the same node.
	Found *fabric.Fabric
	// PlanOf maps each Found node to the plan node it physically is.
	PlanOf []fabric.NodeID
	Root   fabric.NodeID   // plan node discovery runs from
	Unseen []fabric.NodeID // plan nodes discovery does not see, in plan order
	// Touched lists the plan nodes with a port that is not as planned, in
	// plan order; empty exactly when the faults left the fabric as planned.
	Touched []fabric.NodeID
}

// Clean reports whether the case has no effective fault.
func (c *Case) Clean() bool { return len(c.Touched) == 0 }

// Generate breaks plan with o.Faults faults drawn by a generator seeded
// with seed, and returns the case. The same plan, seed and options give the
// same case.
func Generate(plan *fabric.Fabric, seed uint64, o Options) (*Case, error) {
	if o.Faults < 0 || o.Faults > MaxFaults {
		return nil, fmt.Errorf("faults=%d: want 0 to %d", o.Faults, MaxFaults)
	}
	if !slices.Contains(Namings, o.Naming) {
		return nil, fmt.Errorf("naming %d: want one of %v", int(o.Naming), Namings)
	}
	kinds := o.Kinds
	if kinds == nil {
		kinds = Kinds
	}
	rng := rand.New(rand.NewPCG(seed, 0x12))
	for range 32 {
		in := newInjector(plan, rng)
		in.compound = o.Compound
		faults, err := in.injectN(o.Faults, kinds)
		if err != nil {
			return nil, err
		}
		c, ok, err := in.finish(seed, o.Naming, faults)
		if err != nil {
			return nil, err
		}
		if ok && (c.Clean() == (o.Faults == 0)) {
			return c, nil
		}
		// a cabled island, or compound faults that cancelled: draw again
	}
	return nil, fmt.Errorf("seed %d: every draw of %d faults left part of the fabric cut off from discovery or cancelled out; use fewer faults or a larger fabric", seed, o.Faults)
}

// Break returns the case of plan broken by the given physical steps instead
// of by drawn faults (Faults is then empty); seed only draws the discovery's
// node order and new GUIDs. Tests use it for hand-made cases.
func Break(plan *fabric.Fabric, seed uint64, naming Naming, steps []Step) (*Case, error) {
	in := newInjector(plan, rand.New(rand.NewPCG(seed, 0x12)))
	for i, s := range steps {
		if err := in.cab.Apply(s); err != nil {
			return nil, fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	c, ok, err := in.finish(seed, naming, nil)
	if err == nil && !ok {
		err = errors.New("the steps leave cables that discovery from the first cabled switch cannot reach")
	}
	return c, err
}

// bare reports whether no port of sw holds a cable.
func (in *injector) bare(sw fabric.NodeID) bool {
	for p := 1; p <= in.plan.Node(sw).Ports; p++ {
		if _, ok := in.cab.Peer(fabric.PortRef{Node: sw, Port: p}); ok {
			return false
		}
	}
	return true
}

// finish applies the discovery rule and builds the case; false means a
// cabled island that discovery cannot reach.
func (in *injector) finish(seed uint64, naming Naming, faults []Fault) (*Case, bool, error) {
	root, seen, ok := discover(in)
	if !ok {
		return nil, false, nil
	}
	c := &Case{Seed: seed, Naming: naming, Faults: faults, Physical: in.cab, Root: root}
	for n := range in.plan.NumNodes() {
		if !seen[n] {
			c.Unseen = append(c.Unseen, fabric.NodeID(n))
		}
	}
	c.Touched = touched(in.cab)
	if err := c.buildFound(in.plan, seen, in.rng); err != nil {
		return nil, false, fmt.Errorf("seed %d: %w", seed, err)
	}
	return c, true, nil
}

// injectN injects n faults, each of a kind drawn from kinds; a kind that
// finds no room gives way to another.
func (in *injector) injectN(n int, kinds []Kind) ([]Fault, error) {
	var faults []Fault
	for len(faults) < n {
		order := in.rng.Perm(len(kinds))
		ok := false
		for _, i := range order {
			var f Fault
			if f, ok = in.inject(kinds[i]); ok {
				faults = append(faults, f)
				break
			}
		}
		if !ok {
			return nil, fmt.Errorf("no room for fault %d of %d (kinds %v) in this fabric: it needs spare ports and untouched cables", len(faults)+1, n, kinds)
		}
	}
	return faults, nil
}

// discover applies the discovery rule. It returns the root, the plan nodes
// seen, and false when a node outside the root's component holds a cable.
func discover(in *injector) (fabric.NodeID, []bool, bool) {
	root := in.root()
	seen := make([]bool, in.plan.NumNodes())
	if root < 0 {
		return root, seen, false
	}
	seen[root] = true
	queue := []fabric.NodeID{root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for p := 1; p <= in.plan.Node(n).Ports; p++ {
			if x, ok := in.cab.Peer(fabric.PortRef{Node: n, Port: p}); ok && !seen[x.Node] {
				seen[x.Node] = true
				queue = append(queue, x.Node)
			}
		}
	}
	island := false
	in.cab.eachPort(func(p fabric.PortRef) {
		_, plugged := in.cab.Peer(p)
		island = island || (plugged && !seen[p.Node])
	})
	return root, seen, !island
}

// root is the node discovery runs from: the first switch of the plan that
// holds a cable, or -1.
func (in *injector) root() fabric.NodeID {
	for _, sw := range in.switches {
		if !in.bare(sw) {
			return sw
		}
	}
	return -1
}

// touched returns the plan nodes with a port not as planned, in plan order.
func touched(cab *Cabling) []fabric.NodeID {
	var out []fabric.NodeID
	for _, p := range cab.Diff() {
		if len(out) == 0 || out[len(out)-1] != p.Node {
			out = append(out, p.Node)
		}
	}
	return out
}
