package cabling

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/slimfly"
)

// render runs one writer into a buffer.
func render(t *testing.T, w func(io.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := w(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readSheetCSV parses a written CSV file and checks its header.
func readSheetCSV(t *testing.T, b []byte, header string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != header {
		t.Fatalf("header %v, want %s", rows[:min(len(rows), 1)], header)
	}
	return rows[1:]
}

// portName names one port by node name.
type portName struct {
	node string
	port int
}

// unorderedCable is a cable as an unordered pair of ports.
func unorderedCable(a, b portName) [2]portName {
	if a.node > b.node || (a.node == b.node && a.port > b.port) {
		a, b = b, a
	}
	return [2]portName{a, b}
}

// plannedCables lists every link of f once, by port names.
func plannedCables(f *fabric.Fabric) map[[2]portName]int {
	m := map[[2]portName]int{}
	for _, l := range f.Links() {
		m[unorderedCable(portName{f.Node(l.A.Node).Name, l.A.Port}, portName{f.Node(l.B.Node).Name, l.B.Port})]++
	}
	return m
}

// checkOnceEach checks that got names every link of f exactly once.
func checkOnceEach(t *testing.T, file string, f *fabric.Fabric, got map[[2]portName]int) {
	t.Helper()
	want := plannedCables(f)
	for k, n := range got {
		if n != 1 || want[k] != 1 {
			t.Errorf("%s: cable %v listed %d times, planned %d times", file, k, n, want[k])
		}
	}
	for k := range want {
		if got[k] == 0 {
			t.Errorf("%s: planned cable %v missing", file, k)
		}
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// TestCableListIsThePlan: cables.csv has one row per link of the fabric,
// each end at its node's rack and unit, and a length that is the shortest
// class covering the run, copper exactly up to the copper limit.
func TestCableListIsThePlan(t *testing.T) {
	genPlans(t, 500, func(t *testing.T, c genCase, p *Plan) {
		rows := readSheetCSV(t, render(t, func(w io.Writer) error { return WriteCSV(w, p) }),
			"cable,a_rack,a_u,a_node,a_port,b_rack,b_u,b_node,b_port,scope,kind,length_m")
		got := map[[2]portName]int{}
		ids := map[string]bool{}
		for _, r := range rows {
			if ids[r[0]] {
				t.Errorf("cable ID %s twice", r[0])
			}
			ids[r[0]] = true
			a, b := portName{r[3], mustAtoi(t, r[4])}, portName{r[7], mustAtoi(t, r[8])}
			got[unorderedCable(a, b)]++
			for _, e := range []struct {
				k       portName
				rack, u string
			}{{a, r[1], r[2]}, {b, r[5], r[6]}} {
				id, _ := p.Fabric.NodeByName(e.k.node)
				if pl := p.Fabric.Node(id).Place; strconv.Itoa(pl.Rack) != e.rack || strconv.Itoa(pl.U) != e.u {
					t.Errorf("%s: %s at rack %s U%s, placed at %+v", r[0], e.k.node, e.rack, e.u, pl)
				}
			}
			if (r[9] == "intra-rack") != (r[1] == r[5] && r[1] != "0") {
				t.Errorf("%s: racks %s and %s are %s", r[0], r[1], r[5], r[9])
			}
			checkLength(t, c.g, r)
		}
		checkOnceEach(t, "cables.csv", p.Fabric, got)
	})
}

// checkLength derives a row's run from the geometry and checks its class.
func checkLength(t *testing.T, g Geometry, r []string) {
	t.Helper()
	length, err := strconv.ParseFloat(r[11], 64)
	if err != nil {
		t.Fatal(err)
	}
	a := CableEnd{Rack: mustAtoi(t, r[1]), U: mustAtoi(t, r[2])}
	b := CableEnd{Rack: mustAtoi(t, r[5]), U: mustAtoi(t, r[6])}
	run := distance(g, a, b)
	if run < g.Slack || run > length+1e-9 {
		t.Errorf("%s: %g m cable for a %.2f m run", r[0], length, run)
	}
	for _, l := range lengthClasses {
		if l < length && l >= run-1e-9 {
			t.Errorf("%s: %g m cable where %g m covers the %.2f m run", r[0], length, l, run)
		}
	}
	if (r[10] == "copper") != (length <= g.CopperMax) {
		t.Errorf("%s: %s at %g m, copper up to %g m", r[0], r[10], length, g.CopperMax)
	}
}

// TestDefaultLayoutPlacesEveryRackedNode: every node in a rack has a unit;
// positions the fabric gave are kept; the layout never puts a switch where
// another node is; hosts share a unit only as far as the rack's free units
// force it.
func TestDefaultLayoutPlacesEveryRackedNode(t *testing.T) {
	genPlans(t, 1000, func(t *testing.T, c genCase, p *Plan) {
		type rackUnit struct{ rack, u int }
		at := map[rackUnit][]fabric.Node{}
		given := map[int]map[int]bool{} // rack → units given by the fabric
		for i, n := range p.Fabric.Nodes() {
			in := c.f.Node(fabric.NodeID(i))
			switch {
			case n.Name != in.Name || n.Place.Rack != in.Place.Rack:
				t.Fatalf("node %d is %s in rack %d, was %s in rack %d", i, n.Name, n.Place.Rack, in.Name, in.Place.Rack)
			case in.Place.U > 0 && n.Place.U != in.Place.U:
				t.Errorf("%s: given U%d, moved to U%d", n.Name, in.Place.U, n.Place.U)
			case n.Place.Rack > 0 && n.Place.U < 1:
				t.Errorf("%s in rack %d has no unit", n.Name, n.Place.Rack)
			case n.Place.Rack == 0 && in.Place.U == 0 && n.Place.U != 0:
				t.Errorf("%s is not racked but placed at U%d", n.Name, n.Place.U)
			}
			if in.Place.U > 0 {
				if given[n.Place.Rack] == nil {
					given[n.Place.Rack] = map[int]bool{}
				}
				given[n.Place.Rack][in.Place.U] = true
				continue
			}
			if n.Place.Rack > 0 {
				at[rackUnit{n.Place.Rack, n.Place.U}] = append(at[rackUnit{n.Place.Rack, n.Place.U}], n)
			}
		}
		hosts, hostUnits := map[int]int{}, map[int]int{}
		for ru, ns := range at {
			if given[ru.rack][ru.u] {
				t.Errorf("rack %d U%d: %s placed on a unit the fabric gave another node", ru.rack, ru.u, ns[0].Name)
			}
			if len(ns) > 1 && (ns[0].Kind == fabric.Switch || ns[1].Kind == fabric.Switch) {
				t.Errorf("rack %d U%d holds %s and %s", ru.rack, ru.u, ns[0].Name, ns[1].Name)
			}
			if ns[0].Kind == fabric.HCA {
				hosts[ru.rack] += len(ns)
				hostUnits[ru.rack]++
			}
		}
		for ru, ns := range at {
			if ns[0].Kind != fabric.HCA {
				continue
			}
			free := max(c.g.RackUnits, maxUnit(p.Fabric, ru.rack)) - len(given[ru.rack]) - switchesIn(p.Fabric, c.f, ru.rack)
			if free > 0 && len(ns) > (hosts[ru.rack]+free-1)/free {
				t.Errorf("rack %d U%d holds %d hosts; %d hosts fit %d free units %d to a unit", ru.rack, ru.u, len(ns), hosts[ru.rack], free, (hosts[ru.rack]+free-1)/free)
			}
		}
	})
}

func maxUnit(f *fabric.Fabric, rack int) int {
	u := 0
	for _, n := range f.Nodes() {
		if n.Place.Rack == rack {
			u = max(u, n.Place.U)
		}
	}
	return u
}

// switchesIn counts the switches of a rack the layout placed.
func switchesIn(placed, in *fabric.Fabric, rack int) int {
	k := 0
	for i, n := range placed.Nodes() {
		if n.Place.Rack == rack && n.Kind == fabric.Switch && in.Node(fabric.NodeID(i)).Place.U == 0 {
			k++
		}
	}
	return k
}

// TestLabelsNameBothEnds: labels.csv has one row per cable naming both
// ends by rack, unit, node and port; labels.html prints each cable's label
// twice (one per end), each with both ends.
func TestLabelsNameBothEnds(t *testing.T) {
	genPlans(t, 300, func(t *testing.T, c genCase, p *Plan) {
		byID := map[string]Cable{}
		for _, c := range p.Cables {
			byID[c.ID] = c
		}
		rows := readSheetCSV(t, render(t, func(w io.Writer) error { return WriteLabelsCSV(w, p) }), "cable,a_end,b_end,kind,length_m,plan")
		got := map[[2]portName]int{}
		for _, r := range rows {
			cb, ok := byID[r[0]]
			if !ok {
				t.Fatalf("label %s is no planned cable", r[0])
			}
			got[unorderedCable(portName{cb.A.Node, cb.A.Port}, portName{cb.B.Node, cb.B.Port})]++
			if r[1] != installerName(p.Fabric, cb.A.Node, cb.A.Port) || r[2] != installerName(p.Fabric, cb.B.Node, cb.B.Port) || r[5] != p.ID {
				t.Errorf("label %v, want ends %q and %q, plan %s", r, installerName(p.Fabric, cb.A.Node, cb.A.Port), installerName(p.Fabric, cb.B.Node, cb.B.Port), p.ID)
			}
		}
		checkOnceEach(t, "labels.csv", p.Fabric, got)
		printed := map[string]int{}
		for _, text := range htmlTexts(t, render(t, func(w io.Writer) error { return WriteLabelsHTML(w, p) }), "label") {
			id, _, _ := strings.Cut(text, " ")
			cb := byID[id]
			printed[id]++
			if !strings.Contains(text, "A "+installerName(p.Fabric, cb.A.Node, cb.A.Port)) || !strings.Contains(text, "B "+installerName(p.Fabric, cb.B.Node, cb.B.Port)) {
				t.Errorf("label %q does not name both ends of %s", text, id)
			}
		}
		for _, cb := range p.Cables {
			if printed[cb.ID] != 2 {
				t.Errorf("%s printed %d times, want 2 (one per end)", cb.ID, printed[cb.ID])
			}
		}
	})
}

// installerName is how an installer finds a port, derived from the placed fabric.
func installerName(f *fabric.Fabric, node string, port int) string {
	id, _ := f.NodeByName(node)
	pl := f.Node(id).Place
	rack, u := "R--", "U--"
	if pl.Rack > 0 {
		rack = fmt.Sprintf("R%02d", pl.Rack)
	}
	if pl.U > 0 {
		u = fmt.Sprintf("U%d", pl.U)
	}
	return fmt.Sprintf("%s %s %s P%d", rack, u, node, port)
}

// htmlTexts returns the text of every element of the given class.
func htmlTexts(t *testing.T, page []byte, class string) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	var out []string
	depth := 0 // > 0 inside an element of the class
	var cur strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if depth > 0 {
				depth++
			} else if xmlAttrs(e)["class"] == class {
				depth = 1
				cur.Reset()
			}
			if e.Name.Local == "br" && depth > 0 {
				cur.WriteString("\n")
			}
		case xml.CharData:
			if depth > 0 {
				cur.Write(e)
			}
		case xml.EndElement:
			if depth > 0 {
				if depth--; depth == 0 {
					out = append(out, cur.String())
				}
			}
		}
	}
}

// TestNetBoxImportsAreThePlan: the NetBox cable import has one row per
// planned cable with both ends as device interfaces, the cable ID as label,
// the plan's length in metres and a type matching its kind; every cable
// end is an interface of the interface import, and every node a device of
// the device import, no two in one rack unit.
func TestNetBoxImportsAreThePlan(t *testing.T) {
	genPlans(t, 300, func(t *testing.T, c genCase, p *Plan) {
		byID := map[string]Cable{}
		for _, c := range p.Cables {
			byID[c.ID] = c
		}
		rows := readSheetCSV(t, render(t, func(w io.Writer) error { return WriteNetBoxCables(w, p) }),
			"side_a_device,side_a_type,side_a_name,side_b_device,side_b_type,side_b_name,type,status,label,length,length_unit")
		got := map[[2]portName]int{}
		ends := map[portName]bool{}
		for _, r := range rows {
			a, b := portName{r[0], mustAtoi(t, r[2])}, portName{r[3], mustAtoi(t, r[5])}
			got[unorderedCable(a, b)]++
			ends[a], ends[b] = true, true
			cb := byID[r[8]]
			wantType := map[string]string{"copper": "dac-passive", "optical": "aoc"}[cb.Kind]
			if unorderedCable(a, b) != unorderedCable(portName{cb.A.Node, cb.A.Port}, portName{cb.B.Node, cb.B.Port}) || r[9] != strconv.FormatFloat(cb.Length, 'f', -1, 64) ||
				r[10] != "m" || r[6] != wantType || r[1] != "dcim.interface" || r[4] != "dcim.interface" || r[7] != "planned" {
				t.Errorf("NetBox cable %v, planned %+v", r, cb)
			}
		}
		checkOnceEach(t, "netbox-cables.csv", p.Fabric, got)
		ifs := readSheetCSV(t, render(t, func(w io.Writer) error { return WriteNetBoxInterfaces(w, p) }), "device,name,type")
		for _, r := range ifs {
			k := portName{r[0], mustAtoi(t, r[1])}
			if !ends[k] {
				t.Errorf("interface %v is no cable end (or listed twice)", r)
			}
			delete(ends, k)
		}
		if len(ends) > 0 {
			t.Errorf("%d cable ends have no interface, e.g. %v", len(ends), ends)
		}
		checkNetBoxDevices(t, p, readSheetCSV(t, render(t, func(w io.Writer) error { return WriteNetBoxDevices(w, p, "hall 2") }),
			"name,role,manufacturer,device_type,status,site,rack,position,face"))
	})
}

func checkNetBoxDevices(t *testing.T, p *Plan, rows [][]string) {
	t.Helper()
	if len(rows) != p.Fabric.NumNodes() {
		t.Errorf("%d devices for %d nodes", len(rows), p.Fabric.NumNodes())
	}
	taken := map[[2]string]string{}
	for _, r := range rows {
		id, ok := p.Fabric.NodeByName(r[0])
		if !ok {
			t.Fatalf("device %s is no node", r[0])
		}
		n := p.Fabric.Node(id)
		if r[5] != "hall 2" || (n.Place.Rack > 0) != (r[6] == fmt.Sprintf("R%02d", n.Place.Rack)) || (r[7] != "") != (r[8] == "front") {
			t.Errorf("device %v for %s at %+v", r, n.Name, n.Place)
		}
		if r[7] == "" {
			continue
		}
		if r[7] != strconv.Itoa(n.Place.U) {
			t.Errorf("%s at position %s, planned U%d", n.Name, r[7], n.Place.U)
		}
		if other, dup := taken[[2]string{r[6], r[7]}]; dup {
			t.Errorf("%s and %s both at %s U%s", other, n.Name, r[6], r[7])
		}
		taken[[2]string{r[6], r[7]}] = n.Name
	}
}

// sheetRow is one port row of racks.html, with its table's switch.
type sheetRow struct {
	caption string
	cells   []string
}

// rackSheet parses racks.html into its section texts and port rows.
func rackSheet(t *testing.T, page []byte) (metas, captions []string, rows []sheetRow) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	var cur strings.Builder
	var cells []string
	caption, totals := "", false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			cur.Reset()
			switch a := xmlAttrs(e); e.Name.Local {
			case "table":
				totals = a["class"] == "totals"
			case "tr":
				cells = nil
			}
		case xml.CharData:
			cur.Write(e)
		case xml.EndElement:
			switch e.Name.Local {
			case "p":
				metas = append(metas, cur.String())
			case "th":
				if strings.Contains(cur.String(), " · plan ") {
					caption = cur.String()
					captions = append(captions, caption)
				}
			case "td":
				cells = append(cells, cur.String())
			case "tr":
				if len(cells) > 0 && !totals {
					rows = append(rows, sheetRow{caption, cells})
				}
			}
		}
	}
}

// TestRackSheetListsEverySwitchPort: racks.html has a table per switch,
// headed with its rack, unit and the plan ID, and a row per cabled port
// with the cable, the far end's rack, unit, node and port, kind and length
// and an empty box to tick: every switch end of every cable exactly once.
func TestRackSheetListsEverySwitchPort(t *testing.T) {
	genPlans(t, 300, func(t *testing.T, c genCase, p *Plan) {
		metas, captions, rows := rackSheet(t, render(t, func(w io.Writer) error { return WriteHTML(w, p) }))
		want := map[string]int{}
		for _, cb := range p.Cables {
			for i, e := range [2]CableEnd{cb.A, cb.B} {
				far := [2]CableEnd{cb.B, cb.A}[i]
				if id, _ := p.Fabric.NodeByName(e.Node); p.Fabric.Node(id).Kind == fabric.Switch {
					sw := p.Fabric.Node(id)
					row := fmt.Sprintf("%s · %s · U%d · plan %s|%d|%s|%d|%d|%s|%d|%s|%g m", rackName(sw.Place.Rack), e.Node, sw.Place.U, p.ID,
						e.Port, cb.ID, far.Rack, far.U, far.Node, far.Port, cb.Kind, cb.Length)
					want[row]++
				}
			}
		}
		for _, r := range rows {
			if r.cells[0] != "" {
				t.Errorf("tick box of %v is not empty", r)
			}
			k := r.caption + "|" + strings.Join(r.cells[1:], "|")
			if want[k] == 0 {
				t.Errorf("row %q is not a planned cable end (or listed twice)", k)
			}
			want[k]--
		}
		for k, n := range want {
			if n > 0 {
				t.Errorf("planned cable end %q missing from the sheet", k)
			}
		}
		if len(captions) != len(p.Fabric.IDsOf(fabric.Switch)) {
			t.Errorf("%d switch tables for %d switches", len(captions), len(p.Fabric.IDsOf(fabric.Switch)))
		}
		for _, m := range metas {
			if !strings.Contains(m, "plan "+p.ID) {
				t.Errorf("rack page %q lacks the plan ID", m)
			}
		}
	})
}

// TestRackTotalsCountEachCableOnce: per rack, the totals add up to the
// cables with an end in the rack, split into those within it and those
// leaving it, per kind and length.
func TestRackTotalsCountEachCableOnce(t *testing.T) {
	genPlans(t, 500, func(t *testing.T, c genCase, p *Plan) {
		want := map[string]int{}
		for _, cb := range p.Cables {
			if cb.A.Rack == cb.B.Rack {
				want[fmt.Sprintf("%d %s %g within", cb.A.Rack, cb.Kind, cb.Length)]++
				continue
			}
			for _, r := range []int{cb.A.Rack, cb.B.Rack} {
				want[fmt.Sprintf("%d %s %g leaves", r, cb.Kind, cb.Length)]++
			}
		}
		got := map[string]int{}
		for r, ts := range rackTotals(p) {
			if !sort.SliceIsSorted(ts, func(i, j int) bool {
				return ts[i].kind < ts[j].kind || (ts[i].kind == ts[j].kind && ts[i].length < ts[j].length)
			}) {
				t.Errorf("rack %d totals out of order: %v", r, ts)
			}
			for _, x := range ts {
				if x.within > 0 {
					got[fmt.Sprintf("%d %s %g within", r, x.kind, x.length)] += x.within
				}
				if x.leaves > 0 {
					got[fmt.Sprintf("%d %s %g leaves", r, x.kind, x.length)] += x.leaves
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("rack totals %v, want %v", got, want)
		}
	})
}

// TestPlanIDIsTheContent: the same fabric and geometry give the same ID and
// the same bytes in every file; one cable less gives another ID.
func TestPlanIDIsTheContent(t *testing.T) {
	genPlans(t, 200, func(t *testing.T, c genCase, p *Plan) {
		q, err := MakePlan(c.f, c.g)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []func(io.Writer, *Plan) error{WriteCSV, WriteHTML, WriteSVG, WriteLabelsCSV, WriteLabelsHTML, WriteNetBoxCables, WriteNetBoxInterfaces} {
			if !bytes.Equal(render(t, func(o io.Writer) error { return w(o, p) }), render(t, func(o io.Writer) error { return w(o, q) })) {
				t.Fatalf("two plans of one fabric differ")
			}
		}
		if p.ID != q.ID || len(p.ID) != 12 {
			t.Fatalf("IDs %q and %q", p.ID, q.ID)
		}
		links := c.f.Links()
		if len(links) == 0 {
			return
		}
		fewer, err := fabric.New(c.f.Nodes(), links[1:])
		if err != nil {
			t.Fatal(err)
		}
		r, err := MakePlan(fewer, c.g)
		if err != nil {
			t.Fatal(err)
		}
		if r.ID == p.ID {
			t.Errorf("a cable less, same ID %s", p.ID)
		}
	})
}

// TestGeometryErrorsNameTheField: every out-of-range field of a geometry is
// refused with its name.
func TestGeometryErrorsNameTheField(t *testing.T) {
	f, err := slimfly.Build(slimfly.Params{Q: 5, Radix: 16})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func(*Geometry)
	}{
		{"rack pitch", func(g *Geometry) { g.RackPitch = 0 }},
		{"rack pitch", func(g *Geometry) { g.RackPitch = math.NaN() }},
		{"racks per row", func(g *Geometry) { g.RacksPerRow = -1 }},
		{"row pitch", func(g *Geometry) { g.RowPitch = -2 }},
		{"unit height", func(g *Geometry) { g.UnitHeight = 0 }},
		{"rack units", func(g *Geometry) { g.RackUnits = 0 }},
		{"rack units", func(g *Geometry) { g.RackUnits = 1000 }},
		{"slack", func(g *Geometry) { g.Slack = -1 }},
		{"copper maximum", func(g *Geometry) { g.CopperMax = 0 }},
	} {
		g := DefaultGeometry()
		c.edit(&g)
		if _, err := MakePlan(f, g); err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s out of range: error %v", c.name, err)
		}
	}
}

// TestNaturalOrderIsAStrictOrder: on random names of letters, dashes and
// digits (with leading zeros), naturalLess is irreflexive, asymmetric,
// transitive and total, and numbers compare by value.
func TestNaturalOrderIsAStrictOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	name := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteByte("ab-0123456789"[rng.IntN(13)])
		}
		return b.String()
	}
	for range 20000 {
		a, b, c := name(), name(), name()
		ab, ba := naturalLess(a, b), naturalLess(b, a)
		switch {
		case naturalLess(a, a):
			t.Fatalf("%q < %q", a, a)
		case ab && ba:
			t.Fatalf("%q < %q and %q < %q", a, b, b, a)
		case a != b && !ab && !ba:
			t.Fatalf("%q and %q are not ordered", a, b)
		case ab && naturalLess(b, c) && !naturalLess(a, c):
			t.Fatalf("%q < %q < %q but not %q < %q", a, b, c, a, c)
		}
	}
	for _, p := range [][2]string{{"hca-0-2", "hca-0-10"}, {"leaf-9", "leaf-10"}, {"sw-1-4-2", "sw-1-12-0"}, {"r009", "r10"}} {
		if !naturalLess(p[0], p[1]) || naturalLess(p[1], p[0]) {
			t.Errorf("%s and %s out of order", p[0], p[1])
		}
	}
}

// TestImpossiblePositionsAreRefusedByName: a node at a negative rack or a
// unit outside 1..maxRackUnits (a mistyped fabric.json) is refused with
// its name, before any layout is attempted.
func TestImpossiblePositionsAreRefusedByName(t *testing.T) {
	for _, pl := range []fabric.Placement{{Rack: -1}, {Rack: 1, U: -3}, {Rack: 2, U: maxRackUnits + 1}, {Rack: 2, U: 1 << 30}} {
		nodes := []fabric.Node{
			{Kind: fabric.Switch, Name: "leaf-1", Ports: 4, Place: fabric.Placement{Rack: 1}},
			{Kind: fabric.HCA, Name: "node-7", Ports: 1, Place: pl},
		}
		f, err := fabric.New(nodes, []fabric.Link{{A: fabric.PortRef{Node: 0, Port: 1}, B: fabric.PortRef{Node: 1, Port: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = MakePlan(f, DefaultGeometry())
		if err == nil || !strings.Contains(err.Error(), "node-7") || !strings.Contains(err.Error(), fmt.Sprint(pl.U)) {
			t.Errorf("node-7 at %+v: error %v, want one naming node-7 and unit %d", pl, err, pl.U)
		}
	}
}
