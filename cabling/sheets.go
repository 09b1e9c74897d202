package cabling

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"sort"

	"slimroute/fabric"
)

// WriteHTML writes a printable sheet per rack (one page each): every switch
// of the rack from the top, its ports in order with the cable ID, the far
// end and the cable kind and length.
func WriteHTML(w io.Writer, p *Plan) error {
	bw := bufio.NewWriter(w)
	byNode := map[string][]struct {
		port int
		c    Cable
		far  CableEnd
	}{}
	rackOf := map[string]CableEnd{}
	for _, c := range p.Cables {
		for i, e := range [2]CableEnd{c.A, c.B} {
			far := c.B
			if i == 1 {
				far = c.A
			}
			byNode[e.Node] = append(byNode[e.Node], struct {
				port int
				c    Cable
				far  CableEnd
			}{e.Port, c, far})
			rackOf[e.Node] = e
		}
	}
	racks := map[int][]string{}
	for _, id := range p.Fabric.IDsOf(fabric.Switch) { // switches
		n := p.Fabric.Node(id)
		racks[n.Place.Rack] = append(racks[n.Place.Rack], n.Name)
	}
	var rs []int
	for r := range racks {
		rs = append(rs, r)
	}
	sort.Ints(rs)
	bw.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>slimroute cabling sheets</title><style>
body{font-family:sans-serif;font-size:11pt} section{page-break-after:always} table{border-collapse:collapse;margin-bottom:1em}
td,th{border:1px solid #999;padding:2px 6px;text-align:left} th{background:#eee} h2{margin-bottom:.2em}
</style></head><body>` + "\n")
	for _, r := range rs {
		names := racks[r]
		sort.Slice(names, func(i, j int) bool {
			a, b := rackOf[names[i]], rackOf[names[j]]
			if a.U != b.U {
				return a.U > b.U
			}
			return names[i] < names[j]
		})
		fmt.Fprintf(bw, "<section><h1>Rack %d</h1>\n", r)
		for _, name := range names {
			fmt.Fprintf(bw, "<h2>%s", html.EscapeString(name))
			if u := rackOf[name].U; u > 0 {
				fmt.Fprintf(bw, " (U%d)", u)
			}
			bw.WriteString("</h2><table><tr><th>port</th><th>cable</th><th>to rack</th><th>to node</th><th>to port</th><th>kind</th><th>length</th></tr>\n")
			rows := byNode[name]
			sort.Slice(rows, func(i, j int) bool { return rows[i].port < rows[j].port })
			for _, x := range rows {
				fmt.Fprintf(bw, "<tr><td>%d</td><td>%s</td><td>%d</td><td>%s</td><td>%d</td><td>%s</td><td>%g m</td></tr>\n",
					x.port, x.c.ID, x.far.Rack, html.EscapeString(x.far.Node), x.far.Port, x.c.Kind, x.c.Length)
			}
			bw.WriteString("</table>\n")
		}
		bw.WriteString("</section>\n")
	}
	bw.WriteString("</body></html>\n")
	return bw.Flush()
}

// WriteSVG draws the racks side by side, each with its switch count, and
// the inter-rack bundles as arcs whose width grows with their cable count.
func WriteSVG(w io.Writer, p *Plan) error {
	bw := bufio.NewWriter(w)
	bundles := map[[2]int]int{}
	switches := map[int]int{}
	maxRack := 0
	for _, id := range p.Fabric.IDsOf(fabric.Switch) {
		r := p.Fabric.Node(id).Place.Rack
		switches[r]++
		maxRack = max(maxRack, r)
	}
	for _, c := range p.Cables {
		if c.A.Rack != c.B.Rack {
			bundles[[2]int{c.A.Rack, c.B.Rack}]++
		}
		maxRack = max(maxRack, c.A.Rack, c.B.Rack)
	}
	const rw, rh, gap, top = 90.0, 240.0, 50.0, 260.0
	width := gap + float64(maxRack)*(rw+gap)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="13">`+"\n", width, top+rh+60)
	bw.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	x := func(r int) float64 { return gap + float64(r-1)*(rw+gap) + rw/2 }
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
	for _, k := range keys {
		a, b, n := x(k[0]), x(k[1]), bundles[k]
		h := 40 + 0.9*(b-a)/2
		fmt.Fprintf(bw, `<path d="M %.1f %.1f Q %.1f %.1f %.1f %.1f" fill="none" stroke="#4269d0" stroke-opacity="0.6" stroke-width="%.1f"><title>rack %d – rack %d: %d cables</title></path>`+"\n",
			a, top, (a+b)/2, top-h, b, top, 1+float64(n)/4, k[0], k[1], n)
		fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#333">%d</text>`+"\n", (a+b)/2, top-h/2-4, n)
	}
	for r := 1; r <= maxRack; r++ {
		fmt.Fprintf(bw, `<rect x="%.1f" y="%g" width="%g" height="%g" fill="#f4f4f4" stroke="black"/>`+"\n", x(r)-rw/2, top, rw, rh)
		fmt.Fprintf(bw, `<text x="%.1f" y="%g" text-anchor="middle" font-size="16">rack %d</text>`+"\n", x(r), top+rh/2, r)
		fmt.Fprintf(bw, `<text x="%.1f" y="%g" text-anchor="middle">%d switches</text>`+"\n", x(r), top+rh/2+20, switches[r])
	}
	fmt.Fprintf(bw, `<text x="%g" y="%g">%d cables, %d between racks (arcs: cables per rack pair)</text>`+"\n", gap, top+rh+35, len(p.Cables), sumBundles(bundles))
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

func sumBundles(b map[[2]int]int) int {
	n := 0
	for _, v := range b {
		n += v
	}
	return n
}
