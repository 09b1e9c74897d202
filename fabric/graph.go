package fabric

import (
	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/multi"
	"gonum.org/v1/gonum/graph/simple"
)

// SwitchLine is a gonum graph.Line standing for one inter-switch cable; its
// ID is the cable's index in Fabric.Links. Node IDs are NodeIDs.
type SwitchLine struct {
	F, T graph.Node
	Link int64
}

// From returns the line's first end.
func (l SwitchLine) From() graph.Node { return l.F }

// To returns the line's second end.
func (l SwitchLine) To() graph.Node { return l.T }

// ReversedLine returns the line with its ends swapped.
func (l SwitchLine) ReversedLine() graph.Line { return SwitchLine{F: l.T, T: l.F, Link: l.Link} }

// ID returns the cable's index in Fabric.Links.
func (l SwitchLine) ID() int64 { return l.Link }

// SwitchMultigraph returns the switches and inter-switch cables of f as a
// gonum undirected multigraph: one line per cable, so parallel cables stay
// distinct. Node IDs are NodeIDs.
func (f *Fabric) SwitchMultigraph() *multi.UndirectedGraph {
	g := multi.NewUndirectedGraph()
	for _, id := range f.IDsOf(Switch) {
		g.AddNode(multi.Node(id))
	}
	for i, l := range f.links {
		if f.nodes[l.A.Node].Kind == Switch && f.nodes[l.B.Node].Kind == Switch {
			g.SetLine(SwitchLine{F: multi.Node(l.A.Node), T: multi.Node(l.B.Node), Link: int64(i)})
		}
	}
	return g
}

// SwitchGraph returns the switches of f as a simple gonum undirected graph,
// with an edge between two switches joined by at least one cable. Node IDs
// are NodeIDs.
func (f *Fabric) SwitchGraph() *simple.UndirectedGraph {
	g := simple.NewUndirectedGraph()
	for _, id := range f.IDsOf(Switch) {
		g.AddNode(simple.Node(id))
	}
	for _, l := range f.links {
		if f.nodes[l.A.Node].Kind == Switch && f.nodes[l.B.Node].Kind == Switch && !g.HasEdgeBetween(int64(l.A.Node), int64(l.B.Node)) {
			g.SetEdge(simple.Edge{F: simple.Node(l.A.Node), T: simple.Node(l.B.Node)})
		}
	}
	return g
}
