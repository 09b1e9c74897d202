package fabric

import "sort"

// Canonical returns f with its nodes reordered — switches first, then
// HCAs, each by node GUID (then name) — so that a fabric discovered in any
// order gets the NodeIDs, and so the routing, of one built in GUID order.
func (f *Fabric) Canonical() (*Fabric, error) {
	order := make([]NodeID, len(f.nodes))
	for i := range order {
		order[i] = NodeID(i)
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := &f.nodes[order[i]], &f.nodes[order[j]]
		if a.Kind != b.Kind {
			return a.Kind == Switch
		}
		if a.GUID != b.GUID {
			return a.GUID < b.GUID
		}
		return a.Name < b.Name
	})
	newID := make([]NodeID, len(f.nodes))
	nodes := make([]Node, len(f.nodes))
	for i, old := range order {
		newID[old] = NodeID(i)
		nodes[i] = f.nodes[old]
	}
	links := make([]Link, len(f.links))
	for i, l := range f.links {
		l.A.Node, l.B.Node = newID[l.A.Node], newID[l.B.Node]
		links[i] = l
	}
	return New(nodes, links)
}
