package cabling

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/wiringfaults"
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

func identified(r *Report, how string) int {
	for _, m := range r.Identified {
		if m.Method == how {
			return m.Count
		}
	}
	return -1
}

func TestCleanFabricHasNoFindings(t *testing.T) {
	f := planned(t)
	r := Verify(f, f)
	if !r.Clean() || r.AsPlanned != len(f.Links()) || identified(r, ByDescription) != f.NumNodes() {
		t.Fatalf("%+v", r)
	}
}

// actions lists a report's actions as "op node[port] node[port]", in
// order; the ends of symmetric ops (all but move) in name order.
func actions(r *Report) string {
	var out []string
	for _, f := range r.Findings {
		for _, a := range f.Actions {
			x, y := fmt.Sprintf("%s[%d]", a.A.Node, a.A.Port), fmt.Sprintf("%s[%d]", a.B.Node, a.B.Port)
			if a.Op != OpMove && y < x {
				x, y = y, x
			}
			out = append(out, a.Op+" "+x+" "+y)
		}
	}
	return strings.Join(out, "; ")
}

// replayed applies r's actions to the cabling of found (which has the
// plan's nodes) with the contract's semantics (wiringfaults.Cabling) and
// returns the first illegal action or port that then differs from plan.
func replayed(plan, found *fabric.Fabric, r *Report) error {
	cab := wiringfaults.NewCabling(found)
	for _, f := range r.Findings {
		for _, a := range f.Actions {
			na, okA := plan.NodeByName(a.A.Node)
			nb, okB := plan.NodeByName(a.B.Node)
			if !okA || !okB {
				return fmt.Errorf("%+v: not plan nodes", a)
			}
			s := wiringfaults.Step{Op: wiringfaults.Op(a.Op), A: fabric.PortRef{Node: na, Port: a.A.Port}, B: fabric.PortRef{Node: nb, Port: a.B.Port}}
			if err := cab.Apply(s); err != nil {
				return err
			}
		}
	}
	for n := range plan.NumNodes() {
		for p := 1; p <= plan.Node(fabric.NodeID(n)).Ports; p++ {
			at := fabric.PortRef{Node: fabric.NodeID(n), Port: p}
			want, planned := plan.Peer(at)
			got, plugged := cab.Peer(at)
			if planned != plugged || want != got {
				return fmt.Errorf("after the actions, %s holds %v, planned %v", plan.PortString(at), got, want)
			}
		}
	}
	return nil
}

// TestEachFindingKind injects one fault (or two) into the q=5 plan and
// wants the finding kind, its instruction, and the actions that undo the
// fault — derived from the edit: the ports the edit changed, put back.
func TestEachFindingKind(t *testing.T) {
	f := planned(t)
	sw := "sw-0-2-4"
	s, _ := f.NodeByName(sw)
	farEnd := func(port int) (string, int) { // the planned far end of sw's port
		p, _ := f.Peer(fabric.PortRef{Node: s, Port: port})
		return f.Node(p.Node).Name, p.Port
	}
	far := func(port int) string { n, p := farEnd(port); return fmt.Sprintf("%s[%d]", n, p) }
	farText := func(port int) string { n, p := farEnd(port); return fmt.Sprintf("%s port %d", n, p) }
	cases := []struct {
		name    string
		edit    func(links []fabric.Link, id func(string) fabric.NodeID) []fabric.Link
		kinds   string
		says    string
		actions string
	}{
		{"exchange on one switch", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			s := id(sw)
			i, j := at(ls, s, 6), at(ls, s, 9)
			setEnd(&ls[i], s, fabric.PortRef{Node: s, Port: 6}, fabric.PortRef{Node: s, Port: 9})
			setEnd(&ls[j], s, fabric.PortRef{Node: s, Port: 9}, fabric.PortRef{Node: s, Port: 6})
			return ls
		}, "exchange", "rack 3, sw-0-2-4 port 6 and port 9: exchange the two plugs (port 6 then goes to " + farText(6),
			"exchange sw-0-2-4[6] sw-0-2-4[9]"},
		{"rotation of three plugs", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			s := id(sw) // the plug of port 5 goes to 6, 6 to 7, 7 to 5
			i, j, k := at(ls, s, 5), at(ls, s, 6), at(ls, s, 7)
			setEnd(&ls[i], s, fabric.PortRef{Node: s, Port: 5}, fabric.PortRef{Node: s, Port: 6})
			setEnd(&ls[j], s, fabric.PortRef{Node: s, Port: 6}, fabric.PortRef{Node: s, Port: 7})
			setEnd(&ls[k], s, fabric.PortRef{Node: s, Port: 7}, fabric.PortRef{Node: s, Port: 5})
			return ls
		}, "exchange", "rack 3, sw-0-2-4: 3 plugs are rotated, each in the port of the next; 2 steps, in this order: 1) rack 3, sw-0-2-4 port 5 and port 6: exchange the two plugs (port 5 then goes to " + farText(5) + ", port 6 to " + farText(7) + "); 2) rack 3, sw-0-2-4 port 6 and port 7: exchange",
			"exchange sw-0-2-4[5] sw-0-2-4[6]; exchange sw-0-2-4[6] sw-0-2-4[7]"},
		{"exchange across racks", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			s, o := id(sw), id("sw-1-3-1")
			i, j := at(ls, s, 7), at(ls, o, 7)
			setEnd(&ls[i], s, fabric.PortRef{Node: s, Port: 7}, fabric.PortRef{Node: o, Port: 7})
			setEnd(&ls[j], o, fabric.PortRef{Node: o, Port: 7}, fabric.PortRef{Node: s, Port: 7})
			return ls
		}, "exchange", "rack 3, " + farText(7) + " and sw-0-2-2 port 10: exchange the two plugs (" + farText(7) + " then goes to sw-0-2-4 port 7, sw-0-2-2 port 10 to sw-1-3-1 port 7)",
			"exchange " + far(7) + " sw-0-2-2[10]"}, // the far ends of both cables share rack 3: exchanging there is the short walk
		{"missing", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			i := at(ls, id(sw), 7)
			return append(ls[:i], ls[i+1:]...)
		}, "missing", "sw-0-2-4 port 7: connect a cable to " + farText(7),
			"connect " + far(7) + " sw-0-2-4[7]"},
		{"moved to a free port", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			s := id(sw)
			setEnd(&ls[at(ls, s, 8)], s, fabric.PortRef{Node: s, Port: 8}, fabric.PortRef{Node: s, Port: 12})
			return ls
		}, "move", "rack 3, sw-0-2-4 port 12: the cable to " + farText(8) + " belongs in port 8; move this plug there",
			"move sw-0-2-4[12] sw-0-2-4[8]"},
		{"moved to another switch", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			s, o := id(sw), id("sw-1-3-1")
			setEnd(&ls[at(ls, s, 10)], s, fabric.PortRef{Node: s, Port: 10}, fabric.PortRef{Node: o, Port: 13})
			return ls
		}, "move", "rack 4, sw-1-3-1 port 13: the cable to " + farText(10) + " belongs in rack 3, sw-0-2-4 port 10",
			"move sw-1-3-1[13] sw-0-2-4[10]"},
		{"extra", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			return append(ls, fabric.Link{A: fabric.PortRef{Node: id(sw), Port: 14}, B: fabric.PortRef{Node: id("sw-0-0-0"), Port: 14}})
		}, "extra", "rack 3, sw-0-2-4 port 14: remove the cable to rack 1, sw-0-0-0 port 14",
			"remove sw-0-0-0[14] sw-0-2-4[14]"},
		{"exchange next to a missing cable", func(ls []fabric.Link, id func(string) fabric.NodeID) []fabric.Link {
			s := id(sw)
			i, j := at(ls, s, 5), at(ls, s, 6)
			setEnd(&ls[i], s, fabric.PortRef{Node: s, Port: 5}, fabric.PortRef{Node: s, Port: 6})
			setEnd(&ls[j], s, fabric.PortRef{Node: s, Port: 6}, fabric.PortRef{Node: s, Port: 5})
			k := at(ls, s, 7)
			return append(ls[:k], ls[k+1:]...)
		}, "exchange,missing", "port 5 and port 6",
			"exchange sw-0-2-4[5] sw-0-2-4[6]; connect " + far(7) + " sw-0-2-4[7]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			found := mutate(t, f, c.edit)
			r := Verify(f, found)
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
			if got := actions(r); got != c.actions {
				t.Errorf("actions\n %s\nwant\n %s", got, c.actions)
			}
			if err := replayed(f, found, r); err != nil {
				t.Errorf("replaying the actions: %v", err)
			}
			kept := 0 // planned cables still in place
			for _, l := range f.Links() {
				if p, ok := found.Peer(l.A); ok && p == l.B {
					kept++
				}
			}
			if r.Clean() || r.AsPlanned != kept || r.Planned != len(f.Links()) {
				t.Errorf("%d of %d as planned with %d findings; %d planned cables are in place", r.AsPlanned, r.Planned, len(r.Findings), kept)
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
	if !r.Clean() || identified(r, ByHosts) != 50 {
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

// twoSpines is a plan of two leaves with one host each and two spines, and
// a discovery of it with factory switch descriptions and new GUIDs in which
// only one spine answers, cabled to leaf-0 port 2 (planned to spine-0 port
// 1) on its port 1 and to leaf port (planned to spine-? port 2) on its
// port 2.
func twoSpines(t *testing.T, leaf1Port int) (plan, found *fabric.Fabric) {
	t.Helper()
	sw := func(name string, rack int) fabric.Node {
		return fabric.Node{Kind: fabric.Switch, Name: name, GUID: fabric.GUID(0x100 + len(name) + rack), Ports: 4, Place: fabric.Placement{Rack: rack}}
	}
	nodes := []fabric.Node{sw("leaf-0", 1), sw("leaf-1", 2), sw("spine-0", 3), sw("spine-1", 3),
		{Kind: fabric.HCA, Name: "hca-0", GUID: 0x1000, Ports: 1, Place: fabric.Placement{Rack: 1}},
		{Kind: fabric.HCA, Name: "hca-1", GUID: 0x2000, Ports: 1, Place: fabric.Placement{Rack: 2}}}
	nodes[3].GUID++ // spine-0 and spine-1 would share one
	link := func(a, pa, b, pb int) fabric.Link {
		return fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(a), Port: pa}, B: fabric.PortRef{Node: fabric.NodeID(b), Port: pb}}
	}
	plan, err := fabric.New(nodes, []fabric.Link{link(0, 1, 4, 1), link(1, 1, 5, 1),
		link(0, 2, 2, 1), link(0, 3, 3, 1), link(1, 2, 2, 2), link(1, 3, 3, 2)})
	if err != nil {
		t.Fatal(err)
	}
	fn := []fabric.Node{
		{Kind: fabric.Switch, Name: "MF0;switch-00aaaa:MQM8700/U1", GUID: 0xb8599f000000aaaa, Ports: 4},
		{Kind: fabric.Switch, Name: "MF0;switch-00bbbb:MQM8700/U1", GUID: 0xb8599f000000bbbb, Ports: 4},
		{Kind: fabric.Switch, Name: "MF0;switch-00cccc:MQM8700/U1", GUID: 0xb8599f000000cccc, Ports: 4},
		{Kind: fabric.HCA, Name: "hca-0", GUID: 0x0c42a10000001100, Ports: 1},
		{Kind: fabric.HCA, Name: "hca-1", GUID: 0x0c42a10000002200, Ports: 1}}
	found, err = fabric.New(fn, []fabric.Link{link(0, 1, 3, 1), link(1, 1, 4, 1), link(0, 2, 2, 1), link(1, leaf1Port, 2, 2)})
	if err != nil {
		t.Fatal(err)
	}
	return plan, found
}

// TestIndistinguishableSwitchesAreAmbiguousNotGuessed: the one spine that
// answers holds one cable planned to spine-0 and one planned to spine-1,
// each in the port the plan gives it: it could be either, with the other
// cable misplaced. The report says so and gives no step on either spine;
// it names both leaves too, each holding an empty port planned to one of
// the two spines.
func TestIndistinguishableSwitchesAreAmbiguousNotGuessed(t *testing.T) {
	plan, found := twoSpines(t, 3)
	r := Verify(plan, found)
	if kinds(r) != "ambiguous" || r.Clean() {
		t.Fatalf("findings %s:\n%s", kinds(r), r.Summary())
	}
	f := r.Findings[0]
	if got := strings.Join(f.Nodes, ","); got != "spine-0,spine-1,MF0;switch-00cccc:MQM8700/U1,leaf-1,leaf-0" || len(f.Actions) != 0 {
		t.Errorf("nodes %s, actions %v", got, f.Actions)
	}
	for _, w := range []string{"spine-0, spine-1", `"MF0;switch-00cccc:MQM8700/U1" (GUID 0xb8599f000000cccc)`, "--node-name-map"} {
		if !strings.Contains(f.Instruction, w) {
			t.Errorf("instruction does not say %q: %s", w, f.Instruction)
		}
	}
	if r.AsPlanned != 2 || strings.Join(r.Unidentified, ",") != "spine-0,spine-1" {
		t.Errorf("%d as planned, unidentified %v", r.AsPlanned, r.Unidentified)
	}
	// with leaf-1's cable in the port planned to spine-0, the spine is
	// spine-0 beyond doubt, and spine-1 is missing
	plan, found = twoSpines(t, 2)
	r = Verify(plan, found)
	if kinds(r) != "missing-switch" || identified(r, ByNeighbours) != 1 || actions(r) != "connect leaf-0[3] spine-1[1]; connect leaf-1[3] spine-1[2]" {
		t.Errorf("findings %s, actions %s:\n%s", kinds(r), actions(r), r.Summary())
	}
}

// TestUnpluggedHCAIsMissing: an HCA whose only cable is out is not
// discovered at all; the finding names it and its switch and connects it.
func TestUnpluggedHCAIsMissing(t *testing.T) {
	f := planned(t)
	h, _ := f.NodeByName("hca-0-2-4-3")
	sw, _ := f.Peer(fabric.PortRef{Node: h, Port: 1})
	g, err := f.Without([]fabric.NodeID{h}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := Verify(f, g)
	want := fmt.Sprintf("connect hca-0-2-4-3[1] %s[%d]", f.Node(sw.Node).Name, sw.Port)
	if kinds(r) != "missing-hca" || actions(r) != want || r.AsPlanned != r.Planned-1 {
		t.Fatalf("findings %s, actions %s, %d of %d", kinds(r), actions(r), r.AsPlanned, r.Planned)
	}
	if got := strings.Join(r.Findings[0].Nodes, ","); got != "hca-0-2-4-3,"+f.Node(sw.Node).Name {
		t.Errorf("nodes %s", got)
	}
}

// TestLastSwitchLeftIsIdentifiedByElimination: spine-0 answers where
// planned; the other discovered switch has its only cable in a port the
// plan leaves free, so nothing votes for it — but spine-1 is the one planned
// switch left, so it is spine-1 with its cable in the wrong leaf port.
func TestLastSwitchLeftIsIdentifiedByElimination(t *testing.T) {
	plan, found := twoSpines(t, 2) // the cccc switch is spine-0, cabled as planned
	nodes := append(found.Nodes(), fabric.Node{Kind: fabric.Switch, Name: "MF0;switch-00dddd:MQM8700/U1", GUID: 0xb8599f000000dddd, Ports: 4})
	links := append(found.Links(), fabric.Link{A: fabric.PortRef{Node: 0, Port: 4}, B: fabric.PortRef{Node: fabric.NodeID(len(nodes) - 1), Port: 1}})
	found, err := fabric.New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	r := Verify(plan, found)
	if identified(r, ByElimination) != 1 || len(r.Unidentified) != 0 {
		t.Fatalf("%s", r.Summary())
	}
	// spine-1 is planned on leaf-0 port 3 and leaf-1 port 3
	if got := actions(r); got != "move leaf-0[4] leaf-0[3]; connect leaf-1[3] spine-1[2]" {
		t.Errorf("actions %s", got)
	}
}

// TestVerifyOfAnotherFabricIsAFullReport: a discovery of a different fabric
// (or of nothing) is no crash and no ambiguity but a report that is not
// clean; when it shares no node name or GUID with the plan (Slim Fly
// against Clos), one unanchored finding names what to provide; a
// discovery of nothing has every planned cable to connect.
func TestVerifyOfAnotherFabricIsAFullReport(t *testing.T) {
	var fabrics []*fabric.Fabric
	for _, name := range wiringfaults.Plans {
		f, err := wiringfaults.Plan(name)
		if err != nil {
			t.Fatal(err)
		}
		fabrics = append(fabrics, f)
	}
	empty, _ := fabric.New(nil, nil)
	for i, plan := range fabrics {
		for j, found := range append(fabrics, empty, nil) {
			r := Verify(plan, found)
			if i == j {
				if !r.Clean() {
					t.Errorf("%s against itself: %s", wiringfaults.Plans[i], r.Summary())
				}
				continue
			}
			connects := 0
			for _, f := range r.Findings {
				if f.Kind == Ambiguous {
					t.Errorf("%s against fabric %d: %s", wiringfaults.Plans[i], j, f.Instruction)
				}
				for _, a := range f.Actions {
					if a.Op == OpConnect {
						connects++
					}
				}
			}
			nothing := j >= len(fabrics)
			unrelated := !nothing && (i < 2) != (j < 2) // sf5, sf7 | clos2, clos3
			if r.Clean() || (nothing && (r.AsPlanned != 0 || connects != r.Planned)) {
				t.Errorf("%s against fabric %d: %d connects; %s", wiringfaults.Plans[i], j, connects, r.Summary())
			}
			// nothing anchors a fabric that shares no name or GUID with the
			// plan: one finding says what to provide, not one per cable
			if unrelated && (r.AsPlanned != 0 || len(r.Findings) != 1 || r.Findings[0].Kind != Unanchored || !strings.Contains(r.Findings[0].Instruction, "--node-name-map")) {
				t.Errorf("%s against fabric %d: %s", wiringfaults.Plans[i], j, r.Summary())
			}
		}
	}
}

// TestUnanchoredAdviceWorks: a cabled-as-planned Slim Fly whose switches
// carry factory descriptions, hosts their host names and every node an
// unplanned GUID is one unanchored finding; with the advice followed — a
// node-name-map naming each discovered GUID with its planned name — every
// node is identified and the report is clean.
func TestUnanchoredAdviceWorks(t *testing.T) {
	plan, err := slimfly.Build(slimfly.Params{Q: 3})
	if err != nil {
		t.Fatal(err)
	}
	nodes := plan.Nodes()
	var nnm strings.Builder
	for i := range nodes {
		g := fabric.GUID(0x0002c90300000000 | uint64(i)<<8)
		fmt.Fprintf(&nnm, "%s %q\n", g, nodes[i].Name)
		nodes[i].GUID, nodes[i].Attrs = g, nil
		if nodes[i].Kind == fabric.Switch {
			nodes[i].Name = fmt.Sprintf("MF0;switch-%d:MQM8700/U1", i)
		} else {
			nodes[i].Name = fmt.Sprintf("node%03d mlx5_0", i)
		}
	}
	found, err := fabric.New(nodes, plan.Links())
	if err != nil {
		t.Fatal(err)
	}
	r := Verify(plan, found)
	if len(r.Findings) != 1 || r.Findings[0].Kind != Unanchored {
		t.Fatalf("nothing anchors the discovery, yet: %s", r.Summary())
	}
	m, err := fabric.ReadNodeNameMap(strings.NewReader(nnm.String()), "node-name-map")
	if err != nil {
		t.Fatal(err)
	}
	named, err := found.Renamed(m)
	if err != nil {
		t.Fatal(err)
	}
	if r := Verify(plan, named); !r.Clean() {
		t.Errorf("with the node-name-map: %s", r.Summary())
	}
	// the other advice: the HCAs describe themselves by host name, so a
	// plan made with the host names identifies them, and through them
	// the switches
	if !strings.Contains(r.Findings[0].Instruction, "cabling plan --hosts") {
		t.Fatalf("the advice names no plan with host names: %s", r.Findings[0].Instruction)
	}
	placed, err := MakePlan(plan, DefaultGeometry())
	if err != nil {
		t.Fatal(err)
	}
	pattern, err := HostPattern("node%03d")
	if err != nil {
		t.Fatal(err)
	}
	hosted, err := NameHosts(placed.Fabric, pattern)
	if err != nil {
		t.Fatal(err)
	}
	nodes = hosted.Nodes()
	for i := range nodes {
		nodes[i].GUID, nodes[i].Attrs, nodes[i].Place = fabric.GUID(0x0002c90300000000|uint64(i)<<8), nil, fabric.Placement{}
		if nodes[i].Kind == fabric.Switch {
			nodes[i].Name = fmt.Sprintf("MF0;switch-%d:MQM8700/U1", i)
		} else {
			nodes[i].Name += " mlx5_0"
		}
	}
	byHosts, err := fabric.New(nodes, hosted.Links())
	if err != nil {
		t.Fatal(err)
	}
	if r := Verify(placed.Fabric, byHosts); len(r.Findings) != 1 || r.Findings[0].Kind != Unanchored {
		t.Fatalf("a plan without host names, hosts described by name: %s", r.Summary())
	}
	if r := Verify(hosted, byHosts); !r.Clean() || len(r.Unidentified) > 0 {
		t.Errorf("with the plan made with --hosts node%%03d: %s", r.Summary())
	}
}
