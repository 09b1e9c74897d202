package cabling

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/slimfly"
)

// planned is the q=5 Slim Fly on 16-port switches: ports 12..16 are free.
func planned(t *testing.T) *fabric.Fabric {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: 5, Radix: 16})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// mutate rebuilds f after edit changes its links.
func mutate(t *testing.T, f *fabric.Fabric, edit func(links []fabric.Link, id func(string) fabric.NodeID) []fabric.Link) *fabric.Fabric {
	t.Helper()
	links := append([]fabric.Link(nil), f.Links()...)
	id := func(name string) fabric.NodeID {
		n, ok := f.NodeByName(name)
		if !ok {
			t.Fatalf("no node %s", name)
		}
		return n
	}
	g, err := fabric.New(f.Nodes(), edit(links, id))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func at(links []fabric.Link, n fabric.NodeID, p int) int {
	for i, l := range links {
		if (l.A.Node == n && l.A.Port == p) || (l.B.Node == n && l.B.Port == p) {
			return i
		}
	}
	panic(fmt.Sprintf("no link at %d:%d", n, p))
}

func setEnd(l *fabric.Link, n fabric.NodeID, from, to fabric.PortRef) {
	if l.A == from {
		l.A = to
	} else {
		l.B = to
	}
}

func kinds(r *Report) string {
	var k []string
	for _, f := range r.Findings {
		k = append(k, f.Kind)
	}
	sort.Strings(k)
	return strings.Join(k, ",")
}

func TestCleanFabricHasNoFindings(t *testing.T) {
	f := planned(t)
	r := Verify(f, f)
	if !r.Clean() || r.OK != len(f.Links()) || r.Matched != f.NumNodes() {
		t.Fatalf("%+v", r)
	}
}

func TestEachFindingKind(t *testing.T) {
	f := planned(t)
	sw := "sw-0-2-4"
	cases := []struct {
		name  string
		edit  func(links []fabric.Link, id func(string) fabric.NodeID) []fabric.Link
		kinds string
		says  string
	}{
		{"swap", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			s := id(sw)
			i, j := at(ls, s, 6), at(ls, s, 9)
			setEnd(&ls[i], s, fabric.PortRef{Node: s, Port: 6}, fabric.PortRef{Node: s, Port: 9})
			setEnd(&ls[j], s, fabric.PortRef{Node: s, Port: 9}, fabric.PortRef{Node: s, Port: 6})
			return ls
		}, "swap", "rack 3, sw-0-2-4 port 6 and port 9: the two cables are swapped"},
		{"missing", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			i := at(ls, id(sw), 7)
			return append(ls[:i], ls[i+1:]...)
		}, "missing", "connect a cable to sw-0-2-4 port 7"},
		{"wrong port", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			s := id(sw)
			setEnd(&ls[at(ls, s, 8)], s, fabric.PortRef{Node: s, Port: 8}, fabric.PortRef{Node: s, Port: 12})
			return ls
		}, "wrong-port", "sw-0-2-4 port 12: the cable to"},
		{"wrong switch", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			s, o := id(sw), id("sw-1-3-1")
			setEnd(&ls[at(ls, s, 10)], s, fabric.PortRef{Node: s, Port: 10}, fabric.PortRef{Node: o, Port: 13})
			return ls
		}, "wrong-switch", "sw-1-3-1 port 13: the cable from"},
		{"extra", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			return append(ls, fabric.Link{A: fabric.PortRef{Node: id(sw), Port: 14}, B: fabric.PortRef{Node: id("sw-0-0-0"), Port: 14}})
		}, "extra", "remove the cable to"},
		{"swap next to a missing cable", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			s := id(sw)
			i, j := at(ls, s, 5), at(ls, s, 6)
			setEnd(&ls[i], s, fabric.PortRef{Node: s, Port: 5}, fabric.PortRef{Node: s, Port: 6})
			setEnd(&ls[j], s, fabric.PortRef{Node: s, Port: 6}, fabric.PortRef{Node: s, Port: 5})
			k := at(ls, s, 7)
			return append(ls[:k], ls[k+1:]...)
		}, "missing,swap", "port 5 and port 6"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Verify(f, mutate(t, f, c.edit))
			if got := kinds(r); got != c.kinds {
				t.Fatalf("findings %s, want %s: %+v", got, c.kinds, r.Findings)
			}
			all := ""
			for _, x := range r.Findings {
				all += x.Instruction + "\n"
			}
			if !strings.Contains(all, c.says) {
				t.Errorf("instructions do not say %q:\n%s", c.says, all)
			}
		})
	}
}

func TestMissingSwitchAndRackAreOneFindingEach(t *testing.T) {
	f := planned(t)
	s, _ := f.NodeByName("sw-1-4-3")
	g, _ := f.Without([]fabric.NodeID{s}, nil)
	if r := Verify(f, g); kinds(r) != "missing-switch" {
		t.Fatalf("one switch missing: %s", kinds(r))
	}
	var rack []fabric.NodeID
	for _, id := range f.IDsOf(fabric.Switch) {
		if f.Node(id).Place.Rack == 2 {
			rack = append(rack, id)
		}
	}
	g, _ = f.Without(rack, nil)
	r := Verify(f, g)
	if kinds(r) != "missing-rack" || r.Findings[0].Rack != 2 {
		t.Fatalf("rack 2 missing: %s %+v", kinds(r), r.Findings)
	}
}

func TestSwitchesWithFactoryDescriptionsAreFoundByTheirHosts(t *testing.T) {
	f := planned(t)
	nodes := append([]fabric.Node(nil), f.Nodes()...)
	for i := range nodes {
		if nodes[i].Kind == fabric.Switch {
			nodes[i].Name = fmt.Sprintf("MF0;switch-%d:SB7800/U1", i)
			nodes[i].GUID += 0x77 // not the planned GUIDs either
		}
	}
	g, err := fabric.New(nodes, f.Links())
	if err != nil {
		t.Fatal(err)
	}
	r := Verify(f, g)
	if !r.Clean() || r.MatchedBy["hosts"] != 50 {
		t.Fatalf("%+v", r)
	}
}

func TestPlanSizesCables(t *testing.T) {
	f := planned(t)
	p, err := MakePlan(f, DefaultGeometry())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Cables) != len(f.Links()) {
		t.Fatalf("%d cables for %d links", len(p.Cables), len(f.Links()))
	}
	intra, optical := 0, 0
	for _, c := range p.Cables {
		if c.IntraRack {
			intra++
			if c.Kind != "copper" {
				t.Errorf("%s: intra-rack cable of %v m is %s", c.ID, c.Length, c.Kind)
			}
		}
		if c.Kind == "optical" {
			optical++
		}
	}
	// per switch: 4 hosts, 2 same-subgraph links and 1 to its rack partner stay in the rack
	if intra != 200+(50*2+50)/2 || optical == 0 {
		t.Errorf("%d intra-rack cables, %d optical", intra, optical)
	}
	total := 0
	for _, b := range p.BillOfMaterials() {
		total += b.Count
	}
	if total != len(p.Cables) {
		t.Errorf("bill of materials counts %d cables of %d", total, len(p.Cables))
	}
}

func TestUnknownNodesAndDegradedLinks(t *testing.T) {
	f := planned(t)
	// the plan expects 4x EDR everywhere
	links := append([]fabric.Link(nil), f.Links()...)
	for i := range links {
		links[i].Width, links[i].Speed = fabric.Width4x, fabric.EDR
	}
	plan, err := fabric.New(f.Nodes(), links)
	if err != nil {
		t.Fatal(err)
	}
	// found: one cable trained at 1x, and a stranger on a free port
	nodes := append([]fabric.Node(nil), plan.Nodes()...)
	nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: "laptop", GUID: 0xABC0, Ports: 1})
	found := append([]fabric.Link(nil), plan.Links()...)
	sw, _ := plan.NodeByName("sw-0-2-4")
	i := at(found, sw, 9)
	found[i].Width = fabric.Width1x
	found = append(found, fabric.Link{A: fabric.PortRef{Node: sw, Port: 16}, B: fabric.PortRef{Node: fabric.NodeID(len(nodes) - 1), Port: 1}})
	g, err := fabric.New(nodes, found)
	if err != nil {
		t.Fatal(err)
	}
	r := Verify(plan, g)
	if kinds(r) != "degraded,unknown-node" {
		t.Fatalf("findings %s: %+v", kinds(r), r.Findings)
	}
	for _, x := range r.Findings {
		if x.Kind == Degraded && !strings.Contains(x.Instruction, "runs at 1xEDR, planned 4xEDR") {
			t.Errorf("degraded: %q", x.Instruction)
		}
		if x.Kind == UnknownNode && !strings.Contains(x.Instruction, "sw-0-2-4 port 16: cabled to laptop") {
			t.Errorf("unknown: %q", x.Instruction)
		}
	}
}
