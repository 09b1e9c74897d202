// Package disguise makes a fabric look discovered, for tests: the same
// cabling with its nodes in another order, other GUIDs, factory-style
// names and every switch's ports permuted.
package disguise

import (
	"fmt"
	"math/rand/v2"

	"slimroute/fabric"
)

// Fabric returns f with its nodes in a random order, new GUIDs, names as
// clusters have them ("MF0;switch-N:MQM8700/U1", "nodeNNN mlx5_0"), no
// attributes or placements, every switch's ports permuted and the cables
// in a random order.
func Fabric(f *fabric.Fabric, rng *rand.Rand) (*fabric.Fabric, error) {
	nodes := f.Nodes()
	order := rng.Perm(len(nodes))
	newID := make([]fabric.NodeID, len(nodes))
	out := make([]fabric.Node, len(nodes))
	ports := make([][]int, len(nodes)) // [old node][old port]: new port
	for i, old := range order {
		newID[old] = fabric.NodeID(i)
		n := nodes[old]
		n.GUID = fabric.GUID(rng.Uint64()>>8<<8 | 0x100)
		n.Attrs = nil
		n.Place = fabric.Placement{}
		if n.Kind == fabric.Switch {
			n.Name = fmt.Sprintf("MF0;switch-%d:MQM8700/U1", i)
		} else {
			n.Name = fmt.Sprintf("node%03d mlx5_0", i)
		}
		out[i] = n
		ports[old] = make([]int, n.Ports+1)
		for p := range ports[old] {
			ports[old][p] = p
		}
		if n.Kind == fabric.Switch {
			perm := rng.Perm(n.Ports)
			for p := 1; p <= n.Ports; p++ {
				ports[old][p] = perm[p-1] + 1
			}
		}
	}
	var links []fabric.Link
	for _, i := range rng.Perm(f.NumLinks()) {
		l := f.Link(i)
		l.A = fabric.PortRef{Node: newID[l.A.Node], Port: ports[l.A.Node][l.A.Port]}
		l.B = fabric.PortRef{Node: newID[l.B.Node], Port: ports[l.B.Node][l.B.Port]}
		links = append(links, l)
	}
	return fabric.New(out, links)
}

// Shuffled returns f listed otherwise: its nodes and cables in random
// orders and each cable's two ends swapped at random — the same fabric,
// names, GUIDs and ports.
func Shuffled(f *fabric.Fabric, rng *rand.Rand) (*fabric.Fabric, error) {
	nodes := f.Nodes()
	order := rng.Perm(len(nodes))
	newID := make([]fabric.NodeID, len(nodes))
	out := make([]fabric.Node, len(nodes))
	for i, old := range order {
		newID[old] = fabric.NodeID(i)
		out[i] = nodes[old]
	}
	var links []fabric.Link
	for _, i := range rng.Perm(f.NumLinks()) {
		l := f.Link(i)
		l.A.Node, l.B.Node = newID[l.A.Node], newID[l.B.Node]
		if rng.IntN(2) == 0 {
			l.A, l.B = l.B, l.A
		}
		links = append(links, l)
	}
	return fabric.New(out, links)
}
