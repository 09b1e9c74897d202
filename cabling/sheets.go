package cabling

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"sort"
	"strconv"

	"slimroute/fabric"
)

// portRow is one line of a switch's table on the rack sheet: a port and
// the cable plugged into it, seen from that port.
type portRow struct {
	port int
	c    Cable
	far  CableEnd
}

// rackTotal counts a rack's cables of one kind and length class: those with
// both ends in the rack, and those leaving it.
type rackTotal struct {
	kind           string
	length         float64
	within, leaves int
}

// sheetCSS lays a rack out per printed A4 page. Each switch table repeats
// its header row (rack, switch, U, plan ID) on every page it spans, so the
// plan's identity is on every page; long names wrap rather than run off it.
const sheetCSS = `@page{size:A4;margin:12mm}
body{font-family:sans-serif;font-size:10pt;margin:0 auto;max-width:186mm}
section{break-after:page} h1{font-size:15pt;margin:0 0 .2em}
p.meta{margin:0 0 .6em;color:#333}
table{border-collapse:collapse;margin-bottom:.8em;width:100%;table-layout:auto}
td,th{border:1px solid #999;padding:1px 5px;text-align:left;overflow-wrap:anywhere}
th{background:#eee} th.sw{background:#dde4f0;font-size:11pt}
td.n{text-align:right} td.check{width:2em;height:1.1em}
table.totals{width:auto}
`

// WriteHTML writes a printable sheet per rack (a page each): the plan's ID
// and layout, the rack's cable totals by kind and length class, then every
// switch of the rack from the top, its ports in order with the cable ID,
// the far end (rack, U, node, port), the cable kind and length, and an
// empty box for the installer to tick.
func WriteHTML(w io.Writer, p *Plan) error {
	bw := bufio.NewWriter(w)
	byNode := map[string][]portRow{}
	for _, c := range p.Cables {
		byNode[c.A.Node] = append(byNode[c.A.Node], portRow{c.A.Port, c, c.B})
		byNode[c.B.Node] = append(byNode[c.B.Node], portRow{c.B.Port, c, c.A})
	}
	racks := nodesByRack(p.Fabric)
	totals := rackTotals(p)
	fmt.Fprintf(bw, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>slimroute cabling sheets, plan %s</title><style>\n%s</style></head><body>\n", p.ID, sheetCSS)
	for _, r := range sortedRacks(racks) {
		nodes := racks[r]
		sw := switchesFromTop(nodes)
		fmt.Fprintf(bw, "<section><h1>%s</h1>\n<p class=\"meta\">plan %s · %s, %s · rack units of the whole plan: %s</p>\n",
			rackName(r), p.ID, count(len(sw), "switch", "switches"), count(len(nodes)-len(sw), "host", "hosts"), html.EscapeString(p.Layout))
		writeTotals(bw, totals[r])
		for _, n := range sw {
			writePortTable(bw, p.ID, r, n, byNode[n.Name])
		}
		bw.WriteString("</section>\n")
	}
	bw.WriteString("</body></html>\n")
	return bw.Flush()
}

func writeTotals(bw *bufio.Writer, ts []rackTotal) {
	bw.WriteString("<table class=\"totals\"><tr><th>kind</th><th>length</th><th>within the rack</th><th>to other racks</th></tr>\n")
	for _, t := range ts {
		fmt.Fprintf(bw, "<tr><td>%s</td><td class=\"n\">%g m</td><td class=\"n\">%d</td><td class=\"n\">%d</td></tr>\n", t.kind, t.length, t.within, t.leaves)
	}
	bw.WriteString("</table>\n")
}

func writePortTable(bw *bufio.Writer, id string, rack int, n fabric.Node, rows []portRow) {
	fmt.Fprintf(bw, "<table><thead><tr><th class=\"sw\" colspan=\"9\">%s · %s · U%d · plan %s</th></tr>\n", rackName(rack), html.EscapeString(n.Name), n.Place.U, id)
	bw.WriteString("<tr><th>✓</th><th>port</th><th>cable</th><th>to rack</th><th>to U</th><th>to node</th><th>to port</th><th>kind</th><th>length</th></tr></thead>\n")
	sort.Slice(rows, func(i, j int) bool { return rows[i].port < rows[j].port })
	for _, x := range rows {
		fmt.Fprintf(bw, "<tr><td class=\"check\"></td><td class=\"n\">%d</td><td>%s</td><td class=\"n\">%d</td><td class=\"n\">%d</td><td>%s</td><td class=\"n\">%d</td><td>%s</td><td class=\"n\">%g m</td></tr>\n",
			x.port, x.c.ID, x.far.Rack, x.far.U, html.EscapeString(x.far.Node), x.far.Port, x.c.Kind, x.c.Length)
	}
	bw.WriteString("</table>\n")
}

// nodesByRack lists each rack's nodes, rack 0 holding those not racked.
func nodesByRack(f *fabric.Fabric) map[int][]fabric.Node {
	racks := map[int][]fabric.Node{}
	for _, n := range f.Nodes() {
		racks[n.Place.Rack] = append(racks[n.Place.Rack], n)
	}
	return racks
}

func sortedRacks[V any](m map[int]V) []int {
	rs := make([]int, 0, len(m))
	for r := range m {
		rs = append(rs, r)
	}
	sort.Ints(rs)
	return rs
}

// switchesFromTop returns the switches among nodes, the highest unit first
// (the order an installer works down a rack), then by name.
func switchesFromTop(nodes []fabric.Node) []fabric.Node {
	var sw []fabric.Node
	for _, n := range nodes {
		if n.Kind == fabric.Switch {
			sw = append(sw, n)
		}
	}
	sort.Slice(sw, func(i, j int) bool {
		if sw[i].Place.U != sw[j].Place.U {
			return sw[i].Place.U > sw[j].Place.U
		}
		return sw[i].Name < sw[j].Name
	})
	return sw
}

func rackName(r int) string {
	if r == 0 {
		return "not racked"
	}
	return "Rack " + strconv.Itoa(r)
}

// count says "1 switch", "2 switches".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// rackTotals counts, per rack, the cables with an end in it by kind and
// length class, ordered as the bill of materials.
func rackTotals(p *Plan) map[int][]rackTotal {
	type key struct {
		rack   int
		kind   string
		length float64
	}
	within, leaves := map[key]int{}, map[key]int{}
	for _, c := range p.Cables {
		if c.A.Rack == c.B.Rack {
			within[key{c.A.Rack, c.Kind, c.Length}]++
			continue
		}
		leaves[key{c.A.Rack, c.Kind, c.Length}]++
		leaves[key{c.B.Rack, c.Kind, c.Length}]++
	}
	out := map[int][]rackTotal{}
	seen := map[key]bool{}
	for _, m := range []map[key]int{within, leaves} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out[k.rack] = append(out[k.rack], rackTotal{kind: k.kind, length: k.length, within: within[k], leaves: leaves[k]})
			}
		}
	}
	for _, ts := range out {
		sort.Slice(ts, func(i, j int) bool {
			if ts[i].kind != ts[j].kind {
				return ts[i].kind < ts[j].kind
			}
			return ts[i].length < ts[j].length
		})
	}
	return out
}
