package fabric

import (
	"testing"

	"gonum.org/v1/gonum/graph/topo"
)

func TestGonumViewsKeepParallelCablesApart(t *testing.T) {
	f := mustRead(t, "testdata/small.net", readNet)
	a, _ := f.NodeByName("sw-a")
	b, _ := f.NodeByName("sw-b")
	mg := f.SwitchMultigraph()
	lines := mg.Lines(int64(a), int64(b))
	n := 0
	for lines.Next() {
		if _, ok := lines.Line().(SwitchLine); !ok {
			t.Fatalf("line %T is not a SwitchLine", lines.Line())
		}
		n++
	}
	if n != 2 {
		t.Errorf("multigraph has %d lines between sw-a and sw-b, want the 2 parallel cables", n)
	}
	g := f.SwitchGraph()
	if g.Nodes().Len() != 2 || g.Edges().Len() != 1 {
		t.Errorf("simple graph: %d nodes, %d edges; want 2 and 1", g.Nodes().Len(), g.Edges().Len())
	}
	if cc := topo.ConnectedComponents(g); len(cc) != len(f.SwitchView().Components()) {
		t.Errorf("gonum finds %d components, SwitchView %d", len(cc), len(f.SwitchView().Components()))
	}
}

func TestCanonicalOrderIgnoresInputOrder(t *testing.T) {
	f := mustRead(t, "testdata/small.net", readNet)
	nodes := append([]Node(nil), f.Nodes()...)
	for i, j := 0, len(nodes)-1; i < j; i, j = i+1, j-1 {
		nodes[i], nodes[j] = nodes[j], nodes[i]
	}
	n := len(nodes)
	var links []Link
	for _, l := range f.Links() {
		l.A.Node, l.B.Node = NodeID(n-1)-l.A.Node, NodeID(n-1)-l.B.Node
		links = append(links, l)
	}
	g, err := New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := f.Canonical()
	b, _ := g.Canonical()
	for i := range a.Nodes() {
		if a.Node(NodeID(i)).Name != b.Node(NodeID(i)).Name {
			t.Fatalf("node %d: %s vs %s", i, a.Node(NodeID(i)).Name, b.Node(NodeID(i)).Name)
		}
	}
	if a.Node(0).Kind != Switch || a.Node(0).GUID > a.Node(1).GUID {
		t.Fatal("switches by GUID first")
	}
	for i := range a.Links() {
		if a.Links()[i] != b.Links()[i] {
			t.Fatal("links differ")
		}
	}
}
