package cabling

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"unicode/utf8"

	"slimroute/fabric"
)

// The rack diagram's measures (px). Every rack is drawn unitPx per rack
// unit tall, with its switches and hosts at their units; inter-rack
// bundles are half-ellipses above the racks, at most maxArc high, so the
// drawing stays one screen tall however far apart two racks stand.
const (
	svgMargin   = 20.0
	rackW       = 80.0
	rackGap     = 30.0
	unitPx      = 5.0
	maxArc      = 220.0
	svgFont     = 13.0
	svgMinWidth = 760.0
	lineH       = 17.0
)

// svgRack is one rack column of the diagram.
type svgRack struct {
	rack, height     int
	switches, hosts  int
	x                float64 // centre
	switchUs, hostUs []int
}

// WriteSVG draws the racks side by side with their switches (dark) and
// hosts (light) at their rack units, each with its switch and host count,
// and the inter-rack bundles as arcs whose width grows with their cable
// count, labelled with it. The picture's size is computed from what it
// holds: nothing is drawn outside it.
func WriteSVG(w io.Writer, p *Plan) error {
	racks, col := svgColumns(p.Fabric)
	bundles, keys := rackBundles(p, col)
	arcTop := 0.0
	for _, k := range keys {
		arcTop = max(arcTop, arcHeight(racks[k[0]].x, racks[k[1]].x))
	}
	tallest := 0
	for _, r := range racks {
		tallest = max(tallest, r.height)
	}
	top := svgMargin + lineH + 8 + arcTop + lineH // title, arcs, their labels
	bottom := top + float64(tallest)*unitPx
	title := fmt.Sprintf("slimroute cabling plan %s: racks and the cables between them", p.ID)
	summary := fmt.Sprintf("%d cables, %d between racks (arcs: cables per rack pair); switches dark, hosts light", len(p.Cables), sumBundles(bundles))
	units := "rack units: " + p.Layout
	width := max(svgMinWidth, 2*svgMargin+float64(len(racks))*(rackW+rackGap)-rackGap)
	for _, line := range []string{title, summary, units} {
		width = max(width, 2*svgMargin+textWidth(line, svgFont+2))
	}
	width, height := math.Ceil(width), math.Ceil(bottom+5*lineH+8+svgMargin)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="%g">`+"\n", width, height, width, height, svgFont)
	fmt.Fprintf(bw, `<rect x="0" y="0" width="%g" height="%g" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(bw, `<text x="%g" y="%g" font-size="15">%s</text>`+"\n", svgMargin, svgMargin+lineH-4, html.EscapeString(title))
	for _, k := range keys {
		a, b, n := racks[k[0]].x, racks[k[1]].x, bundles[k]
		ry := arcHeight(a, b)
		fmt.Fprintf(bw, `<path d="M %.1f %.1f A %.1f %.1f 0 0 1 %.1f %.1f" fill="none" stroke="#4269d0" stroke-opacity="0.55" stroke-width="%.1f"><title>%s – %s: %d cables</title></path>`+"\n",
			a, top, (b-a)/2, ry, b, top, min(1+float64(n)/4, 10), racks[k[0]].name(), racks[k[1]].name(), n)
		fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#333">%d</text>`+"\n", (a+b)/2, top-ry-6, n)
	}
	for _, r := range racks {
		writeSVGRack(bw, r, top, bottom)
	}
	fmt.Fprintf(bw, `<text x="%g" y="%g">%s</text>`+"\n", svgMargin, bottom+4*lineH+8, html.EscapeString(summary))
	fmt.Fprintf(bw, `<text x="%g" y="%g">%s</text>`+"\n", svgMargin, bottom+5*lineH+8, html.EscapeString(units))
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// textWidth bounds the width of a line of sans-serif text: 0.6 em a
// character is more than the average glyph of common sans fonts.
func textWidth(s string, size float64) float64 {
	return 0.6 * size * float64(utf8.RuneCountInString(s))
}

// arcHeight is the height of the arc between two rack centres: taller for
// racks farther apart, up to maxArc.
func arcHeight(a, b float64) float64 { return min(12+0.25*(b-a), maxArc) }

func (r svgRack) name() string {
	if r.rack == 0 {
		return "not racked"
	}
	return fmt.Sprintf("rack %d", r.rack)
}

// svgColumns gives each rack holding nodes a column, in rack order, and
// returns the column index of each rack number.
func svgColumns(f *fabric.Fabric) ([]svgRack, map[int]int) {
	byRack := nodesByRack(f)
	var racks []svgRack
	col := map[int]int{}
	for i, rk := range sortedRacks(byRack) {
		r := svgRack{rack: rk, x: svgMargin + float64(i)*(rackW+rackGap) + rackW/2, height: 1}
		for _, n := range byRack[rk] {
			r.height = max(r.height, n.Place.U)
			if n.Kind == fabric.Switch {
				r.switches++
				r.switchUs = append(r.switchUs, n.Place.U)
			} else {
				r.hosts++
				r.hostUs = append(r.hostUs, n.Place.U)
			}
		}
		col[rk] = i
		racks = append(racks, r)
	}
	return racks, col
}

// rackBundles counts the cables between each pair of rack columns and
// returns the pairs in order.
func rackBundles(p *Plan, col map[int]int) (map[[2]int]int, [][2]int) {
	bundles := map[[2]int]int{}
	for _, c := range p.Cables {
		a, b := col[c.A.Rack], col[c.B.Rack]
		if a != b {
			bundles[[2]int{min(a, b), max(a, b)}]++
		}
	}
	keys := make([][2]int, 0, len(bundles))
	for k := range bundles {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	return bundles, keys
}

// writeSVGRack draws one rack: its frame (height units tall, standing on
// bottom), a bar per switch and host at its unit, and its name and counts
// below it. Nodes without a unit are counted but not drawn.
func writeSVGRack(bw *bufio.Writer, r svgRack, top, bottom float64) {
	left := r.x - rackW/2
	fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%g" height="%g" fill="#f4f4f4" stroke="black"/>`+"\n", left, bottom-float64(r.height)*unitPx, rackW, float64(r.height)*unitPx)
	bar := func(u int, fill string) {
		if u > 0 {
			fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%g" height="%g" fill="%s"/>`+"\n", left+4, bottom-float64(u)*unitPx+0.5, rackW-8, unitPx-1, fill)
		}
	}
	for _, u := range r.hostUs {
		bar(u, "#9fb7d9")
	}
	for _, u := range r.switchUs {
		bar(u, "#333")
	}
	fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" text-anchor="middle" font-weight="bold">%s</text>`+"\n", r.x, bottom+lineH, r.name())
	fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11">%s</text>`+"\n", r.x, bottom+2*lineH, count(r.switches, "switch", "switches"))
	fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11">%s</text>`+"\n", r.x, bottom+3*lineH-4, count(r.hosts, "host", "hosts"))
}

func sumBundles(b map[[2]int]int) int {
	n := 0
	for _, v := range b {
		n += v
	}
	return n
}
