package verify

import (
	"fmt"

	"slimroute/fabric"
	"slimroute/lft"
)

// sourceGroup is a set of HCA ports that Check follows as one: the first
// member stands for all.
type sourceGroup struct {
	entry   fabric.PortRef // the switch port the members' cables end in (of the first member)
	slClass int            // the members' path-SL class
	members []fabric.PortRef
}

// groupSources puts the HCA ports holding LIDs into groups of the same
// path-SL class, the same entry switch and entry ports of the same SL2VL
// class, in order of their first member. It reports HCA ports that hold a
// LID but no cable, and cabled HCA ports that hold no LID.
func groupSources(t *lft.Tables, lay *layout) ([]sourceGroup, []string) {
	f := t.Fabric()
	var groups []sourceGroup
	var problems []string
	problem := func(format string, args ...any) {
		if len(problems) < maxProblems {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	type key struct {
		sl    int
		sw    fabric.NodeID
		class int
	}
	index := map[key]int{}
	for _, pl := range t.LIDs().Ports() {
		if pl.Port.Port == 0 {
			continue // a switch's own LID: a destination only
		}
		at := lay.peerOf(pl.Port)
		if at.Node < 0 {
			problem("%s holds LIDs but is not cabled", f.PortString(pl.Port))
			continue
		}
		k := key{t.SLClass(pl.Port), at.Node, -1 - at.Port}
		if lay.swIndex[at.Node] >= 0 {
			k.class = t.SL2VLClass(at.Node, at.Port)
		}
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, sourceGroup{entry: at, slClass: k.sl})
		}
		groups[g].members = append(groups[g].members, pl.Port)
	}
	for i := range f.NumNodes() {
		id := fabric.NodeID(i)
		for p := 1; f.Kind(id) == fabric.HCA && p <= f.Ports(id); p++ {
			hp := fabric.PortRef{Node: fabric.NodeID(i), Port: p}
			if _, held := t.LIDs().Of(hp); !held && lay.peerOf(hp).Node >= 0 {
				problem("%s is cabled but holds no LID in the tables", f.PortString(hp))
			}
		}
	}
	return groups, problems
}
