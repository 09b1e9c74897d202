package wiringfaults

import (
	"fmt"

	"slimroute/clos"
	"slimroute/dragonflyplus"
	"slimroute/fabric"
	"slimroute/hyperx"
	"slimroute/polarfly"
	"slimroute/slimfly"
)

// PlannedRate is the rate every cable of the Plans is planned to train at.
// ibsim simulates speeds up to QDR only, so a plan that the end-to-end
// tests can simulate must not ask for more.
var PlannedRate = struct {
	Width fabric.Width
	Speed fabric.Speed
}{fabric.Width4x, fabric.QDR}

// Plans lists the fabrics Plan builds, in a fixed order.
var Plans = []string{"sf5", "sf7", "clos2", "clos3", "pf5", "hx4x4", "dfp"}

// Plan builds one of the planned fabrics the property tests break: the Slim
// Fly of q=5 and q=7 (named as `slimroute cabling plan --slimfly Q` names
// them), a two-level and a three-level Clos, a PolarFly of q=5, a 4×4
// HyperX and a Dragonfly+ of 9 groups (the builder's balanced groups: a
// leaf has as many hosts as spines). Every switch keeps spare ports,
// as real 36- or 40-port switches do, so that plugs can land on free ports,
// and every cable is planned at PlannedRate so that a degraded one shows.
func Plan(name string) (*fabric.Fabric, error) {
	var (
		f   *fabric.Fabric
		err error
	)
	switch name {
	case "sf5":
		f, err = slimfly.Build(slimfly.Params{Q: 5, Radix: 16}) // 11 ports used
	case "sf7":
		f, err = slimfly.Build(slimfly.Params{Q: 7, Radix: 20}) // 17 ports used
	case "clos2":
		// 12 leaves × 6 hosts, 6 spines; leaves use 12 of 16 ports, spines 12
		f, err = clos.Build(clos.Params{Levels: 2, Radix: 16, HostsPerLeaf: 6, LeafUplinks: 6, Leaves: 12})
	case "clos3":
		// 4 pods of 4 leaves × 4 hosts and 4 spines, 8 cores
		f, err = clos.Build(clos.Params{Levels: 3, Radix: 12, HostsPerLeaf: 4, LeafUplinks: 4, Leaves: 4, SpineUplinks: 4, Cores: 8, Pods: 4})
	case "pf5":
		f, err = polarfly.Build(polarfly.Params{Q: 5, Radix: 12}) // 9 ports used
	case "hx4x4":
		f, err = hyperx.Build(hyperx.Params{Dims: []int{4, 4}, Radix: 12}) // 8 ports used
	case "dfp":
		// 9 groups of 4 leaves × 4 hosts and 4 spines with 2 global cables
		// each; leaves use 8 of 12 ports, spines 6
		f, err = dragonflyplus.Build(dragonflyplus.Params{Radix: 12, Groups: 9, Leaves: 4, Spines: 4, Global: 2, Endpoints: 4})
	default:
		return nil, fmt.Errorf("unknown plan %q: want one of %v", name, Plans)
	}
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", name, err)
	}
	return WithRate(f, PlannedRate.Width, PlannedRate.Speed)
}

// WithRate returns f with every link planned at width w and speed s.
func WithRate(f *fabric.Fabric, w fabric.Width, s fabric.Speed) (*fabric.Fabric, error) {
	links := append([]fabric.Link(nil), f.Links()...)
	for i := range links {
		links[i].Width, links[i].Speed = w, s
	}
	return fabric.New(f.Nodes(), links)
}

// TwinPlan is a leaf with two hosts and two HCA-less switches, twin-a and
// twin-b, each cabled to the leaf (ports 3 and 4) and to each other: the
// twins stand in mirror positions, told apart only by the leaf port they
// hang on.
func TwinPlan() (*fabric.Fabric, error) {
	nodes := []fabric.Node{
		{Kind: fabric.Switch, Name: "leaf", GUID: 0x10, Ports: 8},
		{Kind: fabric.Switch, Name: "twin-a", GUID: 0x20, Ports: 4},
		{Kind: fabric.Switch, Name: "twin-b", GUID: 0x30, Ports: 4},
		{Kind: fabric.HCA, Name: "host-1", GUID: 0x100, Ports: 1},
		{Kind: fabric.HCA, Name: "host-2", GUID: 0x200, Ports: 1},
	}
	ref := func(n, p int) fabric.PortRef { return fabric.PortRef{Node: fabric.NodeID(n), Port: p} }
	rate := func(a, b fabric.PortRef) fabric.Link {
		return fabric.Link{A: a, B: b, Width: PlannedRate.Width, Speed: PlannedRate.Speed}
	}
	return fabric.New(nodes, []fabric.Link{
		rate(ref(0, 1), ref(3, 1)), rate(ref(0, 2), ref(4, 1)),
		rate(ref(0, 3), ref(1, 2)), rate(ref(0, 4), ref(2, 2)),
		rate(ref(1, 1), ref(2, 1)),
	})
}

// TwinCases breaks TwinPlan so that nothing tells the twins apart: their
// leaf cables are moved to the leaf's free ports 5 and 6, and the
// discovery, with the given naming, shows two switches on ports 5 and 6
// cabled to each other. Two truths give that same discovery: twin-a on
// port 5 (straight) or on port 6 (crossed). Any confident instruction for
// the twins is wrong in one of them.
func TwinCases(plan *fabric.Fabric, naming Naming) (straight, crossed *Case, err error) {
	port := func(name string, n int) fabric.PortRef {
		id, _ := plan.NodeByName(name)
		return fabric.PortRef{Node: id, Port: n}
	}
	moveTo := func(a, b int) []Step {
		return []Step{{Move, port("leaf", 3), port("leaf", a)}, {Move, port("leaf", 4), port("leaf", b)}}
	}
	if straight, err = Break(plan, 1, naming, moveTo(5, 6)); err != nil {
		return nil, nil, err
	}
	if crossed, err = Break(plan, 1, naming, moveTo(6, 5)); err != nil {
		return nil, nil, err
	}
	// the same discovery, but the discovered twin on port 5 is twin-b
	crossed.Found = straight.Found
	crossed.PlanOf = append([]fabric.NodeID(nil), straight.PlanOf...)
	a, b := port("twin-a", 1).Node, port("twin-b", 1).Node
	for i, n := range crossed.PlanOf {
		switch n {
		case a:
			crossed.PlanOf[i] = b
		case b:
			crossed.PlanOf[i] = a
		}
	}
	return straight, crossed, nil
}
