package fabric

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// describe renders a fabric as sorted text lines naming nodes by name, so
// two fabrics can be compared regardless of node order.
func describe(f *Fabric) []string { return describeRates(f, true) }

// describeRates is describe, with link rates left out unless rates is set.
func describeRates(f *Fabric, rates bool) []string {
	var out []string
	for i := range f.Nodes() {
		n := f.Node(NodeID(i))
		out = append(out, fmt.Sprintf("node %s %s %s ports=%d", n.Name, n.Kind, n.GUID, n.Ports))
	}
	for _, l := range f.Links() {
		a := fmt.Sprintf("%s[%d]", f.Node(l.A.Node).Name, l.A.Port)
		b := fmt.Sprintf("%s[%d]", f.Node(l.B.Node).Name, l.B.Port)
		if b < a {
			a, b = b, a
		}
		rate := ""
		if rates {
			rate = Rate(l.Width, l.Speed)
		}
		out = append(out, fmt.Sprintf("link %s %s %s", a, b, rate))
	}
	sort.Strings(out)
	return out
}

func mustRead(t *testing.T, path string, read func(r *os.File, name string) (*Fabric, error)) *Fabric {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, err := read(fh, path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return f
}

func readNet(r *os.File, name string) (*Fabric, error)  { return ReadIBSimNet(r, name) }
func readIBND(r *os.File, name string) (*Fabric, error) { return ReadIBNetDiscover(r, name) }

func diff(t *testing.T, what string, want, got []string) {
	t.Helper()
	if strings.Join(want, "\n") == strings.Join(got, "\n") {
		return
	}
	w := map[string]bool{}
	for _, s := range want {
		w[s] = true
	}
	g := map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	for _, s := range want {
		if !g[s] {
			t.Errorf("%s: missing %s", what, s)
		}
	}
	for _, s := range got {
		if !w[s] {
			t.Errorf("%s: unexpected %s", what, s)
		}
	}
}

// The dumps in testdata were produced by ibnetdiscover 44 on ibsim 0.10
// simulating testdata/small.net (two switches with a parallel pair, a 1x
// link, a DDR link and a dual-ported HCA cabled to both switches).
func TestIBNetDiscoverDumpsMatchTheNetFileTheyCameFrom(t *testing.T) {
	// The net file states a rate only where it differs from ibsim's default
	// (4x SDR); ibnetdiscover reports every rate.
	net := mustRead(t, "testdata/small.net", readNet)
	want := describeRates(net, false)
	for _, v := range []string{"plain", "g", "full", "fulllids"} {
		t.Run(v, func(t *testing.T) {
			dump := mustRead(t, "testdata/ibnd-small-"+v+".txt", readIBND)
			diff(t, v, want, describeRates(dump, false))
			for _, l := range net.Links() {
				got := dump.Links()[linkIndex(t, dump, net, l)]
				wantW, wantS := l.Width, l.Speed
				if wantW == 0 {
					wantW = Width4x
				}
				if wantS == 0 {
					wantS = SDR
				}
				if got.Width != wantW || got.Speed != wantS {
					t.Errorf("%s: rate %s, want %s", net.linkString(l), Rate(got.Width, got.Speed), Rate(wantW, wantS))
				}
			}
		})
	}
}

// linkIndex finds in g the link that joins the same named ports as l in f.
func linkIndex(t *testing.T, g, f *Fabric, l Link) int {
	t.Helper()
	id, ok := g.NodeByName(f.Node(l.A.Node).Name)
	if !ok {
		t.Fatalf("node %s missing", f.Node(l.A.Node).Name)
	}
	i, ok := g.LinkAt(PortRef{id, l.A.Port})
	if !ok {
		t.Fatalf("no link at %s", f.PortString(l.A))
	}
	return i
}

func TestNodeNameMapDumpMatchesAfterRenaming(t *testing.T) {
	fh, err := os.Open("testdata/small.node-name-map")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadNodeNameMap(fh, "small.node-name-map")
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	if m.Names[0x5346100000000000] != "leaf-A" || len(m.Names) != 2 {
		t.Fatalf("map = %v", m)
	}
	net, err := mustRead(t, "testdata/small.net", readNet).Renamed(m)
	if err != nil {
		t.Fatal(err)
	}
	dump := mustRead(t, "testdata/ibnd-small-map.txt", readIBND)
	if _, ok := dump.NodeByName("leaf-A"); !ok {
		t.Fatalf("switch description from the name map not read; names: %v", describe(dump))
	}
	dump, err = dump.Renamed(m)
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "map", describeRates(net, false), describeRates(dump, false))
}

func TestIBNetDiscoverReadsLIDsAndPortGUIDs(t *testing.T) {
	f := mustRead(t, "testdata/ibnd-small-fulllids.txt", readIBND)
	sw, _ := f.NodeByName("sw-a")
	if a := f.Node(sw).Attrs[0]; a.LID != 1 || a.LMC != 0 {
		t.Errorf("sw-a port 0 = %+v, want lid 1", a)
	}
	h, _ := f.NodeByName("hca-3")
	n := f.Node(h)
	if n.Attrs[1].LID != 5 || n.Attrs[2].LID != 6 {
		t.Errorf("hca-3 LIDs = %+v, want port1 lid 5, port2 lid 6", n.Attrs)
	}
	if n.PortGUID(2) != 0x5346200000000032 {
		t.Errorf("hca-3 port 2 GUID = %s", n.PortGUID(2))
	}
	if peer, ok := f.Peer(PortRef{h, 2}); !ok || f.Node(peer.Node).Name != "sw-b" || peer.Port != 1 {
		t.Errorf("hca-3[2] peer = %v %v", peer, ok)
	}
}

func TestIBSimNetAssignsGUIDsLikeIBSim(t *testing.T) {
	// Without guid lines ibsim counts switches from 0x200000 by one and HCAs
	// from 0x100000 by ports+1 (the CA dumps in the OpenSM notes show
	// 0x100000, 0x100003 for two-port HCAs).
	in := "Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"h2\"[2]\n\nSwitch 4 \"s2\"\n\nHca 2 \"h1\"\n[1] \"s1\"[1]\n\nHca 2 \"h2\"\n[2] \"s1\"[2]\n"
	f, err := ReadIBSimNet(strings.NewReader(in), "t.net")
	if err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]GUID{"s1": 0x200000, "s2": 0x200001, "h1": 0x100000, "h2": 0x100003} {
		id, _ := f.NodeByName(name)
		if f.Node(id).GUID != g {
			t.Errorf("%s GUID = %s, want %s", name, f.Node(id).GUID, g)
		}
	}
}

func TestWritersRoundTrip(t *testing.T) {
	f := mustRead(t, "testdata/ibnd-small-fulllids.txt", readIBND)
	type rw struct {
		write func(*bytes.Buffer, *Fabric) error
		read  func(*bytes.Buffer, string) (*Fabric, error)
	}
	for name, c := range map[string]rw{
		"ibsim":         {func(b *bytes.Buffer, f *Fabric) error { return WriteIBSimNet(b, f) }, func(b *bytes.Buffer, n string) (*Fabric, error) { return ReadIBSimNet(b, n) }},
		"ibnetdiscover": {func(b *bytes.Buffer, f *Fabric) error { return WriteIBNetDiscover(b, f) }, func(b *bytes.Buffer, n string) (*Fabric, error) { return ReadIBNetDiscover(b, n) }},
		"json":          {func(b *bytes.Buffer, f *Fabric) error { return WriteJSON(b, f) }, func(b *bytes.Buffer, n string) (*Fabric, error) { return ReadJSON(b, n) }},
	} {
		t.Run(name, func(t *testing.T) {
			var b1, b2 bytes.Buffer
			if err := c.write(&b1, f); err != nil {
				t.Fatal(err)
			}
			text := b1.String()
			g, err := c.read(&b1, name)
			if err != nil {
				t.Fatalf("reading back: %v\n%s", err, text)
			}
			diff(t, name, describe(f), describe(g))
			// saved by an editor that starts files with a byte order mark
			bom, err := c.read(bytes.NewBufferString("\ufeff"+text), name)
			if err != nil {
				t.Fatalf("reading back after a byte order mark: %v", err)
			}
			diff(t, name+" with a byte order mark", describe(f), describe(bom))
			if err := c.write(&b2, g); err != nil {
				t.Fatal(err)
			}
			if b2.String() != text {
				t.Errorf("second write differs from the first:\n%s\n---\n%s", text, b2.String())
			}
		})
	}
}

// TestJSONKeepsLIDsAndPlacement round-trips a discovered fabric (LIDs, LMC
// and port GUIDs in Attrs) to which every node gets its own rack position.
func TestJSONKeepsLIDsAndPlacement(t *testing.T) {
	d := mustRead(t, "testdata/ibnd-small-fulllids.txt", readIBND)
	nodes := d.Nodes()
	for i := range nodes {
		nodes[i].Place = Placement{Rack: 1 + i/2, U: 1 + 3*(i%2)}
	}
	f, err := New(nodes, d.Links())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, f); err != nil {
		t.Fatal(err)
	}
	g, err := ReadJSON(&b, "x.json")
	if err != nil {
		t.Fatal(err)
	}
	lids := 0
	for i := range f.NumNodes() {
		a, b := f.Node(NodeID(i)), g.Node(NodeID(i))
		lids += len(a.Attrs)
		if fmt.Sprint(a.Attrs) != fmt.Sprint(b.Attrs) || a.Place != b.Place {
			t.Errorf("node %s: attrs %v at %+v -> %v at %+v", a.Name, a.Attrs, a.Place, b.Attrs, b.Place)
		}
	}
	if lids == 0 {
		t.Fatal("the test fabric has no port attributes to keep")
	}
}

func TestMalformedInputNamesFileAndLine(t *testing.T) {
	cases := []struct {
		name, format, in string
		line             int
		want             string
	}{
		{"one-sided", "net", "Switch 4 \"a\"\n[1] \"b\"[1]\n\nSwitch 4 \"b\"\n", 2, "listed on one side only"},
		{"ends disagree", "net", "Switch 4 \"a\"\n[1] \"b\"[1]\n\nSwitch 4 \"b\"\n[1] \"a\"[2]\n", 2, "must agree"},
		{"port beyond count", "net", "Switch 2 \"a\"\n[3] \"b\"[1]\n", 2, "ports 1..2"},
		{"unknown node", "net", "Switch 4 \"a\"\n[1] \"zz\"[1]\n", 2, "unknown node \"zz\""},
		{"port twice", "net", "Switch 4 \"a\"\n[1] \"b\"[1]\n[1] \"b\"[2]\n\nSwitch 4 \"b\"\n[1] \"a\"[1]\n[2] \"a\"[1]\n", 3, "listed twice"},
		{"duplicate id", "net", "Switch 4 \"a\"\n\nSwitch 4 \"a\"\n", 3, "defined twice"},
		{"bad header", "net", "Switch x \"a\"\n", 1, "bad node header"},
		{"garbage", "net", "Swtch 4 \"a\"\n", 1, "unrecognised line"},
		{"bad option", "net", "Switch 4 \"a\"\n[1] \"b\"[1] q=9\n", 2, "bad port option"},
		{"empty", "net", "\n# nothing\n", 0, "no Switch or Hca records"},
		{"ibnd missing remote port", "ibnd", "Switch\t4 \"S-01\"\t\t# \"a\"\n[1]\t\"S-02\"\n", 2, "remote port"},
		{"ibnd bad guid", "ibnd", "switchguid=0xZZ\nSwitch\t4 \"S-01\"\n", 1, "invalid GUID"},
		{"ibnd record twice", "ibnd", "Switch\t4 \"S-01\"\t\t# \"a\"\n\nSwitch\t4 \"S-01\"\t\t# \"a\"\n[1]\t\"S-02\"[1]\t\t# \"b\" lid 0 4xSDR\n[2]\t\"S-02\"[2]\t\t# \"b\" lid 0 4xSDR\n", 3, "appears twice; is this two dumps concatenated?"},
		{"ibnd one-sided", "ibnd", "Switch\t4 \"S-01\"\t\t# \"a\"\n[1]\t\"S-02\"[1]\t\t# \"b\" lid 0 4xSDR\n\nSwitch\t4 \"S-02\"\t\t# \"b\"\n", 2, "one side only"},
		{"map no name", "map", "0x1 \"a\"\n0x2 b\n", 2, "missing name"},
		{"map dup", "map", "0x1 \"a\"\n0x1 \"b\"\n", 2, "mapped twice"},
		{"map bad guid", "map", "guid \"a\"\n", 1, "invalid GUID"},
		{"json syntax", "json", "{\n\"format\": \"slimroute-fabric/1\",\n\"nodes\": [,]\n}", 3, "JSON syntax"},
		{"json unknown field", "json", "{\"format\": \"slimroute-fabric/1\",\n \"nodez\": []}", 2, "unknown field \"nodez\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			r := strings.NewReader(c.in)
			switch c.format {
			case "net":
				_, err = ReadIBSimNet(r, "in.txt")
			case "ibnd":
				_, err = ReadIBNetDiscover(r, "in.txt")
			case "map":
				_, err = ReadNodeNameMap(r, "in.txt")
			case "json":
				_, err = ReadJSON(r, "in.txt")
			}
			if err == nil {
				t.Fatal("no error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %q is not a *ParseError", err)
			}
			if pe.File != "in.txt" || pe.Line != c.line {
				t.Errorf("position %s:%d, want in.txt:%d (%v)", pe.File, pe.Line, c.line, err)
			}
			if c.name == "ibnd record twice" && strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: the record's port lines are errors too", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
}

func TestNewRejectsInvalidFabrics(t *testing.T) {
	sw := func(name string, g GUID) Node { return Node{Kind: Switch, Name: name, GUID: g, Ports: 4} }
	hca := func(name string, g GUID) Node { return Node{Kind: HCA, Name: name, GUID: g, Ports: 2} }
	cases := []struct {
		name  string
		nodes []Node
		links []Link
		want  string
	}{
		{"port used twice", []Node{sw("a", 1), sw("b", 2), sw("c", 3)}, []Link{{A: PortRef{0, 1}, B: PortRef{1, 1}}, {A: PortRef{0, 1}, B: PortRef{2, 1}}}, "used by two links"},
		{"port beyond count", []Node{sw("a", 1), sw("b", 2)}, []Link{{A: PortRef{0, 5}, B: PortRef{1, 1}}}, "beyond its port count"},
		{"duplicate GUID", []Node{sw("a", 1), sw("b", 1)}, nil, "GUID 0x0000000000000001 already used"},
		{"duplicate name", []Node{sw("a", 1), sw("a", 2)}, nil, "duplicate name"},
		{"port GUID clash", []Node{hca("h", 0x10), sw("s", 0x11)}, nil, "is the node GUID of"},
		{"self cable", []Node{sw("a", 1)}, []Link{{A: PortRef{0, 1}, B: PortRef{0, 1}}}, "cabled to itself"},
		{"no ports", []Node{{Kind: Switch, Name: "a", Ports: 0}}, nil, "1 to 254"},
		{"hca to hca", []Node{hca("h1", 0x10), hca("h2", 0x20)}, []Link{{A: PortRef{0, 1}, B: PortRef{1, 1}}}, "HCA cabled to HCA"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(c.nodes, c.links)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

func TestLinkOrderDoesNotChangeOutput(t *testing.T) {
	f := mustRead(t, "testdata/small.net", readNet)
	links := append([]Link(nil), f.Links()...)
	for i, j := 0, len(links)-1; i < j; i, j = i+1, j-1 {
		links[i], links[j] = links[j], links[i]
	}
	for i := range links {
		links[i].A, links[i].B = links[i].B, links[i].A
	}
	g, err := New(f.Nodes(), links)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := WriteIBSimNet(&a, f); err != nil {
		t.Fatal(err)
	}
	if err := WriteIBSimNet(&b, g); err != nil {
		t.Fatal(err)
	}
	// a net file lists each cable at both of its ends
	if n := strings.Count(a.String(), "\n["); n != 2*len(links) || len(links) == 0 {
		t.Fatalf("the first write lists %d cable ends, want 2 per cable (%d cables)", n, len(links))
	}
	if a.String() != b.String() {
		t.Error("same cabling listed in another order wrote different bytes")
	}
}

// New's error list is part of its output: the same bad input must give the
// same messages in the same order every time (a map walk would shuffle them).
func TestNewReportsProblemsInTheSameOrderEveryTime(t *testing.T) {
	attrs := map[int]PortAttr{}
	for p := 5; p < 5+maxErrors/2; p++ {
		attrs[p] = PortAttr{LID: uint16(p)}
	}
	nodes := []Node{
		{Kind: Switch, Name: "a", GUID: 1, Ports: 4, Attrs: attrs},
		{Kind: Switch, Name: "b", GUID: 2, Ports: 4},
		{Kind: Switch, Name: "c", GUID: 3, Ports: 4},
	}
	links := []Link{
		{A: PortRef{0, 1}, B: PortRef{1, 1}},
		{A: PortRef{0, 1}, B: PortRef{2, 1}},
		{A: PortRef{1, 9}, B: PortRef{2, 2}},
	}
	var first string
	for run := 0; run < 50; run++ {
		_, err := New(nodes, links)
		if err == nil {
			t.Fatal("no error")
		}
		if run == 0 {
			first = err.Error()
			var ports []int
			for _, line := range strings.Split(first, "\n") {
				var p int
				if _, e := fmt.Sscanf(line, "node \"a\": attributes for port %d", &p); e == nil {
					ports = append(ports, p)
				}
			}
			if len(ports) != len(attrs) || !sort.IntsAreSorted(ports) {
				t.Fatalf("want one message per bad port, by port number; got ports %v in\n%s", ports, first)
			}
			continue
		}
		if err.Error() != first {
			t.Fatalf("run %d gave other messages:\n%s\nfirst run:\n%s", run, err, first)
		}
	}
}

// A Fabric is immutable: changing the slices given to New, or anything an
// accessor returned, leaves the fabric as it was.
func TestFabricIsNotChangedThroughInputsOrResults(t *testing.T) {
	f := mustRead(t, "testdata/ibnd-small-fulllids.txt", readIBND)
	var want bytes.Buffer
	if err := WriteJSON(&want, f); err != nil {
		t.Fatal(err)
	}
	nodes, links := f.Nodes(), f.Links()
	g, err := New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	scribble := func(nodes []Node, links []Link) {
		for i := range nodes {
			nodes[i].Name += "-changed"
			nodes[i].Place.Rack++
			for p := range nodes[i].Attrs {
				nodes[i].Attrs[p] = PortAttr{LID: 0xbeef}
			}
		}
		for i := range links {
			links[i].Width = 0
		}
	}
	scribble(nodes, links)
	scribble(g.Nodes(), g.Links())
	for i := range g.NumNodes() {
		n := g.Node(NodeID(i))
		scribble([]Node{n}, nil)
	}
	for _, h := range []*Fabric{f, g} {
		var got bytes.Buffer
		if err := WriteJSON(&got, h); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("fabric changed through a slice or map it handed out or was given:\n%s\nwant\n%s", got.String(), want.String())
		}
	}
}
