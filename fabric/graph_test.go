package fabric

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/multi"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

func TestGonumViewsKeepParallelCablesApart(t *testing.T) {
	f := mustRead(t, "testdata/small.net", readNet)
	a, _ := f.NodeByName("sw-a")
	b, _ := f.NodeByName("sw-b")
	mg := switchMultigraph(f)
	lines := mg.Lines(int64(a), int64(b))
	n := 0
	for lines.Next() {
		if _, ok := lines.Line().(switchLine); !ok {
			t.Fatalf("line %T is not a switchLine", lines.Line())
		}
		n++
	}
	if n != 2 {
		t.Errorf("multigraph has %d lines between sw-a and sw-b, want the 2 parallel cables", n)
	}
	g := switchGraph(f)
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

// The gonum views below let the tests cross-check our graph code against
// gonum's algorithms.

// switchLine is a gonum graph.Line standing for one inter-switch cable; its
// ID is the cable's index in Fabric.Links. Node IDs are NodeIDs.
type switchLine struct {
	F, T graph.Node
	Link int64
}

// From returns the line's first end.
func (l switchLine) From() graph.Node { return l.F }

// To returns the line's second end.
func (l switchLine) To() graph.Node { return l.T }

// ReversedLine returns the line with its ends swapped.
func (l switchLine) ReversedLine() graph.Line { return switchLine{F: l.T, T: l.F, Link: l.Link} }

// ID returns the cable's index in Fabric.Links.
func (l switchLine) ID() int64 { return l.Link }

// switchMultigraph returns the switches and inter-switch cables of f as a
// gonum undirected multigraph: one line per cable, so parallel cables stay
// distinct. Node IDs are NodeIDs.
func switchMultigraph(f *Fabric) *multi.UndirectedGraph {
	g := multi.NewUndirectedGraph()
	for _, id := range f.IDsOf(Switch) {
		g.AddNode(multi.Node(id))
	}
	for i, l := range f.links {
		if f.nodes[l.A.Node].Kind == Switch && f.nodes[l.B.Node].Kind == Switch {
			g.SetLine(switchLine{F: multi.Node(l.A.Node), T: multi.Node(l.B.Node), Link: int64(i)})
		}
	}
	return g
}

// switchGraph returns the switches of f as a simple gonum undirected graph,
// with an edge between two switches joined by at least one cable. Node IDs
// are NodeIDs.
func switchGraph(f *Fabric) *simple.UndirectedGraph {
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

// TestComponentsAgreeWithGonum checks Components on random switch graphs
// (parallel cables, isolated switches, several components) against gonum's
// connected components: the same groups, each sorted, ordered by smallest
// member.
func TestComponentsAgreeWithGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	for c := 0; c < 2000; c++ {
		n := 1 + rng.IntN(12)
		nodes := make([]Node, n)
		next := make([]int, n) // next free port per switch
		for i := range nodes {
			nodes[i] = Node{Kind: Switch, Name: fmt.Sprintf("s%d", i), GUID: GUID(i + 1), Ports: 16}
			next[i] = 1
		}
		var links []Link
		for k := rng.IntN(2 * n); k > 0; k-- {
			a, b := rng.IntN(n), rng.IntN(n)
			if a == b || next[a] > 16 || next[b] > 16 {
				continue
			}
			links = append(links, Link{A: PortRef{NodeID(a), next[a]}, B: PortRef{NodeID(b), next[b]}})
			next[a]++
			next[b]++
		}
		f, err := New(nodes, links)
		if err != nil {
			t.Fatal(err)
		}
		v := f.SwitchView()
		var want []string
		for _, cc := range topo.ConnectedComponents(switchGraph(f)) {
			ids := make([]int, len(cc))
			for i, nd := range cc {
				ids[i] = v.Index[nd.ID()]
			}
			sort.Ints(ids)
			want = append(want, fmt.Sprint(ids))
		}
		sort.Strings(want)
		got := v.Components()
		var gotS []string
		for i, cc := range got {
			if !sort.IntsAreSorted(cc) || i > 0 && got[i-1][0] >= cc[0] {
				t.Fatalf("case %d: components %v are not sorted lists ordered by smallest member", c, got)
			}
			gotS = append(gotS, fmt.Sprint(cc))
		}
		sort.Strings(gotS)
		if fmt.Sprint(gotS) != fmt.Sprint(want) {
			t.Fatalf("case %d (%d switches, links %v): components %v, gonum %v", c, n, links, gotS, want)
		}
	}
}
