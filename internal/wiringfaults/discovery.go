package wiringfaults

import (
	"fmt"
	"math/rand/v2"

	"slimroute/fabric"
)

// Vendor prefixes of the GUIDs a discovery with new GUIDs reports: the
// plan's builders use other prefixes, so no new GUID equals a planned one.
const (
	newSwitchGUIDs fabric.GUID = 0xb8599f0000000000
	newHCAGUIDs    fabric.GUID = 0x0c42a10000000000
)

// FactoryDescription is the node description a switch of the model the
// fabric uses carries out of the box; only the switch-xxxxxx part differs.
// It comes from the GUID through a mixing function (SplitMix64's), so that
// the plans' structured GUIDs, which share their low bits, still give
// distinct descriptions, as real switches' GUIDs do.
func FactoryDescription(g fabric.GUID) string {
	z := uint64(g) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return fmt.Sprintf("MF0;switch-%06x:MQM8700/U1", (z^z>>31)&0xffffff)
}

// buildFound sets c.Found and c.PlanOf: the nodes discovery sees, in an
// order that has nothing to do with the plan except that the root comes
// first, named per c.Naming, cabled as the physical cabling is.
func (c *Case) buildFound(plan *fabric.Fabric, seen []bool, rng *rand.Rand) error {
	var ids []fabric.NodeID
	for n, ok := range seen {
		if ok && fabric.NodeID(n) != c.Root {
			ids = append(ids, fabric.NodeID(n))
		}
	}
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	c.PlanOf = append([]fabric.NodeID{c.Root}, ids...)
	found := make([]fabric.NodeID, plan.NumNodes())
	nodes := make([]fabric.Node, len(c.PlanOf))
	taken := map[fabric.GUID]bool{}
	descTaken := map[string]bool{}
	for i, pn := range c.PlanOf {
		found[pn] = fabric.NodeID(i)
		n := plan.Node(pn)
		n.Place = fabric.Placement{} // discovery knows no racks
		if c.Naming.NewGUIDs() {
			n.GUID, n.Attrs = newGUID(rng, n.Kind, taken, descTaken), nil
		}
		if n.Kind == fabric.Switch && c.Naming != PlanDescriptions {
			n.Name = FactoryDescription(n.GUID)
		}
		if n.Kind == fabric.HCA && c.Naming == HostDescriptions {
			n.Name += " " + HostDevice
		}
		nodes[i] = n
	}
	nominal := nominalRate(plan)
	var links []fabric.Link
	c.Physical.eachPort(func(p fabric.PortRef) {
		x, ok := c.Physical.Peer(p)
		if !ok || !portLess(p, x) {
			return
		}
		r := c.Physical.ports[p.Node][p.Port].rate
		if !r.degraded() {
			r = nominal
		}
		links = append(links, fabric.Link{
			A:     fabric.PortRef{Node: found[p.Node], Port: p.Port},
			B:     fabric.PortRef{Node: found[x.Node], Port: x.Port},
			Width: r.Width, Speed: r.Speed,
		})
	})
	f, err := fabric.New(nodes, links)
	if err != nil {
		return fmt.Errorf("building the discovered fabric: %w", err)
	}
	c.Found = f
	return nil
}

// newGUID draws a node GUID under the kind's vendor prefix that no other
// node has, nor (for a switch) the factory description it implies; an
// HCA's low byte stays zero for its port GUIDs.
func newGUID(rng *rand.Rand, k fabric.Kind, taken map[fabric.GUID]bool, descs map[string]bool) fabric.GUID {
	for {
		g := newSwitchGUIDs | fabric.GUID(rng.Uint64()&0xffffffffff)
		if k == fabric.HCA {
			g = newHCAGUIDs | fabric.GUID(rng.Uint64()&0xffffffff)<<8
		} else if descs[FactoryDescription(g)] {
			continue
		}
		if !taken[g] {
			taken[g] = true
			descs[FactoryDescription(g)] = true
			return g
		}
	}
}

func portLess(a, b fabric.PortRef) bool {
	if a.Node != b.Node {
		return a.Node < b.Node
	}
	return a.Port < b.Port
}
