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
