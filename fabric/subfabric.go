package fabric

import "fmt"

// Without returns a copy of f with the given nodes and links removed, as
// after a switch or cable failure. Links of removed nodes go too; nodes
// keep their names, GUIDs and port numbers but get new NodeIDs.
func (f *Fabric) Without(nodes []NodeID, links []int) (*Fabric, error) {
	dropNode := make([]bool, len(f.nodes))
	for _, id := range nodes {
		if id < 0 || int(id) >= len(f.nodes) {
			return nil, fmt.Errorf("node %d does not exist", id)
		}
		dropNode[id] = true
	}
	dropLink := make([]bool, len(f.links))
	for _, i := range links {
		if i < 0 || i >= len(f.links) {
			return nil, fmt.Errorf("link %d does not exist", i)
		}
		dropLink[i] = true
	}
	newID := make([]NodeID, len(f.nodes))
	var keep []Node
	for i := range f.nodes {
		newID[i] = -1
		if !dropNode[i] {
			newID[i] = NodeID(len(keep))
			keep = append(keep, f.nodes[i])
		}
	}
	var kept []Link
	for i, l := range f.links {
		if dropLink[i] || dropNode[l.A.Node] || dropNode[l.B.Node] {
			continue
		}
		l.A.Node, l.B.Node = newID[l.A.Node], newID[l.B.Node]
		kept = append(kept, l)
	}
	return New(keep, kept)
}
