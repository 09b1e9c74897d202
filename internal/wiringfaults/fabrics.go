package wiringfaults

import (
	"fmt"

	"slimroute/clos"
	"slimroute/fabric"
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
var Plans = []string{"sf5", "sf7", "clos2", "clos3"}

// Plan builds one of the planned fabrics the property tests break: the Slim
// Fly of q=5 and q=7 (named as `slimroute cabling plan --slimfly Q` names
// them), a two-level and a three-level Clos. Every switch keeps spare ports,
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
