// Package cabling turns a fabric into the sheets installers cable from, and
// checks a discovered fabric against that plan, cable by cable, with
// instructions an installer can follow.
package cabling

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"slimroute/fabric"
)

// Geometry describes the machine room well enough to size cables.
type Geometry struct {
	// RackPitch is the distance between neighbouring racks in a row (m).
	RackPitch float64
	// RacksPerRow is how many racks stand in one row; 0 means one row.
	RacksPerRow int
	// RowPitch is the distance between rows (m).
	RowPitch float64
	// UnitHeight is the height of one rack unit (m).
	UnitHeight float64
	// RackUnits is the rack height in units. Nodes the fabric does not
	// place are laid out in racks of this height (see MakePlan); a node
	// placed higher makes its rack that much taller.
	RackUnits int
	// Slack is added to every cable for routing inside the racks (m).
	Slack float64
	// CopperMax is the longest copper (DAC) cable; longer runs are optical.
	CopperMax float64
}

// DefaultGeometry is a typical machine room: 0.6 m racks of 42 units of
// 44.45 mm, 2.4 m between rows, 1 m of slack, copper up to 3 m (a common
// limit for EDR/HDR DAC cables).
func DefaultGeometry() Geometry {
	return Geometry{RackPitch: 0.6, RowPitch: 2.4, UnitHeight: 0.04445, RackUnits: 42, Slack: 1, CopperMax: 3}
}

// check names the first field of g that no machine room has.
func (g Geometry) check() error {
	for _, x := range []struct {
		name string
		ok   bool
		val  any
	}{
		{"rack pitch (m)", g.RackPitch > 0, g.RackPitch},
		{"racks per row", g.RacksPerRow >= 0, g.RacksPerRow},
		{"row pitch (m)", g.RowPitch >= 0, g.RowPitch},
		{"unit height (m)", g.UnitHeight > 0, g.UnitHeight},
		{"rack units", g.RackUnits > 0 && g.RackUnits <= maxRackUnits, g.RackUnits},
		{"slack (m)", g.Slack >= 0, g.Slack},
		{"copper maximum (m)", g.CopperMax > 0, g.CopperMax},
	} {
		if !x.ok {
			return fmt.Errorf("geometry: %s = %v is out of range; distances must be positive (row pitch, slack: ≥ 0, racks per row: ≥ 0, 0 for one row), rack units in 1..%d", x.name, x.val, maxRackUnits)
		}
	}
	return nil
}

// lengthClasses are the cable lengths sold (m); a run takes the next one up.
var lengthClasses = []float64{0.5, 1, 1.5, 2, 2.5, 3, 5, 7, 10, 15, 20, 30, 50, 100}

// CableEnd is one end of a planned cable: where it plugs in.
type CableEnd struct {
	Rack, U int
	Node    string
	Port    int
}

// Cable is one row of the cable list.
type Cable struct {
	ID        string
	A, B      CableEnd
	IntraRack bool
	Kind      string  // "copper" or "optical"
	Length    float64 // length class, m
}

// Plan is a fabric's cable plan.
type Plan struct {
	// Fabric is the planned fabric with every racked node at a rack unit:
	// the input's positions, and the default layout for the nodes it left
	// at U 0.
	Fabric *fabric.Fabric
	Cables []Cable
	// Layout says how the rack units were chosen, in words, for the sheets.
	Layout string
	// ID identifies the plan by its content (a hash of the cable list), so
	// that a printed sheet can be matched to the files it came from.
	ID string
}

// MakePlan lists every cable of f with its ends' positions, kind and length
// class. Cables are ordered by the rack and name of their A end (the end on
// the lower rack), then port, so each rack's cables come together. Nodes in
// a rack without a rack unit get one from the default layout (see layout).
func MakePlan(f *fabric.Fabric, g Geometry) (*Plan, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	f, how, err := layout(f, g.RackUnits)
	if err != nil {
		return nil, err
	}
	p := &Plan{Fabric: f, Layout: how}
	for _, l := range f.Links() {
		a, b := end(f, l.A), end(f, l.B)
		if endLess(b, a) {
			a, b = b, a
		}
		c := Cable{A: a, B: b, IntraRack: a.Rack == b.Rack && a.Rack > 0}
		c.Length = lengthClass(distance(g, a, b))
		c.Kind = "copper"
		if c.Length > g.CopperMax {
			c.Kind = "optical"
		}
		p.Cables = append(p.Cables, c)
	}
	sort.Slice(p.Cables, func(i, j int) bool { return endLess(p.Cables[i].A, p.Cables[j].A) })
	for i := range p.Cables {
		c := &p.Cables[i]
		c.ID = fmt.Sprintf("R%02d-%04d", c.A.Rack, i+1)
	}
	h := sha256.New()
	if err := WriteCSV(h, p); err != nil {
		return nil, err
	}
	p.ID = hex.EncodeToString(h.Sum(nil))[:12]
	return p, nil
}

// endLess orders cable ends by rack, node name (numbers in names compared
// as numbers, so hca-0-2 comes before hca-0-10), then port.
func endLess(x, y CableEnd) bool {
	if x.Rack != y.Rack {
		return x.Rack < y.Rack
	}
	if x.Node != y.Node {
		return naturalLess(x.Node, y.Node)
	}
	return x.Port < y.Port
}

// naturalLess is fabric.NaturalLess: numbers in names by their value.
func naturalLess(a, b string) bool { return fabric.NaturalLess(a, b) }

func end(f *fabric.Fabric, p fabric.PortRef) CableEnd {
	n := f.Node(p.Node)
	return CableEnd{Rack: n.Place.Rack, U: n.Place.U, Node: n.Name, Port: p.Port}
}

// distance estimates a cable run: along the row, across rows, up to the
// cable tray above the racks and down again (or straight between two units
// of one rack), plus slack.
func distance(g Geometry, a, b CableEnd) float64 {
	row := func(r int) (int, int) {
		if g.RacksPerRow <= 0 || r <= 0 {
			return 0, r
		}
		return (r - 1) / g.RacksPerRow, (r - 1) % g.RacksPerRow
	}
	ra, pa := row(a.Rack)
	rb, pb := row(b.Rack)
	d := math.Abs(float64(pa-pb))*g.RackPitch + math.Abs(float64(ra-rb))*g.RowPitch
	if a.Rack != b.Rack || a.Rack == 0 {
		d += float64(toTray(g, a.U)+toTray(g, b.U)) * g.UnitHeight
	} else {
		d += math.Abs(float64(a.U-b.U)) * g.UnitHeight
	}
	return d + g.Slack
}

// toTray is the number of units from unit u up to the top of its rack;
// half the rack when the position is unknown.
func toTray(g Geometry, u int) int {
	if u <= 0 {
		return g.RackUnits / 2
	}
	return max(g.RackUnits-u, 0)
}

func lengthClass(d float64) float64 {
	for _, l := range lengthClasses {
		if d <= l+1e-9 {
			return l
		}
	}
	return math.Ceil(d)
}

// WriteCSV writes the cable list, one row per cable.
func WriteCSV(w io.Writer, p *Plan) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"cable", "a_rack", "a_u", "a_node", "a_port", "b_rack", "b_u", "b_node", "b_port", "scope", "kind", "length_m"})
	for _, c := range p.Cables {
		scope := "inter-rack"
		if c.IntraRack {
			scope = "intra-rack"
		}
		cw.Write([]string{c.ID, itoa(c.A.Rack), itoa(c.A.U), c.A.Node, itoa(c.A.Port), itoa(c.B.Rack), itoa(c.B.U), c.B.Node, itoa(c.B.Port),
			scope, c.Kind, strconv.FormatFloat(c.Length, 'f', -1, 64)})
	}
	cw.Flush()
	return cw.Error()
}

func itoa(i int) string { return strconv.Itoa(i) }

// BOMLine counts the cables of one kind and length.
type BOMLine struct {
	Kind   string  `json:"kind"`
	Length float64 `json:"length_m"`
	Count  int     `json:"count"`
}

// BillOfMaterials counts the plan's cables per kind and length class.
func (p *Plan) BillOfMaterials() []BOMLine {
	count := map[[2]string]int{}
	for _, c := range p.Cables {
		count[[2]string{c.Kind, strconv.FormatFloat(c.Length, 'f', -1, 64)}]++
	}
	var out []BOMLine
	for k, n := range count {
		l, _ := strconv.ParseFloat(k[1], 64)
		out = append(out, BOMLine{Kind: k[0], Length: l, Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Length < out[j].Length
	})
	return out
}
