package cabling

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"

	"slimroute/fabric"
)

// The task sheet's rack drawing (px): every unit taskUnit tall.
const (
	taskUnit   = 9.0
	taskRackW  = 120.0
	taskLabelW = 300.0
	taskPad    = 14.0
)

// taskCSS lays out one printed A4 page per rack: the drawing beside the
// task list.
const taskCSS = `@page{size:A4;margin:12mm}
body{font-family:sans-serif;font-size:10pt;margin:0 auto;max-width:186mm}
section{break-after:page} h1{font-size:15pt;margin:0 0 .2em}
p.meta{margin:0 0 .6em;color:#333}
table{border-collapse:collapse;margin:.6em 0;width:100%}
td,th{border:1px solid #999;padding:2px 5px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#eee} td.check{width:2em} td.n{text-align:right;width:2em}
td.kind,td.cables{white-space:nowrap;overflow-wrap:normal}
svg{display:block;max-width:100%;height:auto}
`

// WriteTasksHTML writes the findings of r against plan fabric plan as a
// printable task list: a page per rack a finding touches (any end of its
// steps, or its own node), each with the rack drawn to its units — the
// nodes to work on marked red and labelled with their task numbers — and
// the rack's tasks in order, each with a box to tick, its kind, the
// instruction and its planned cables. Tasks are numbered once for the
// whole report, so a task that spans two racks has the same number on
// both pages. A finding that touches no planned rack (a discovery nothing
// anchors, a node the plan lacks) is listed on a page of its own.
func WriteTasksHTML(w io.Writer, plan *fabric.Fabric, r *Report) error {
	racks := map[int][]int{} // rack → the findings touching it
	for i, f := range r.Findings {
		for _, rk := range findingRacks(plan, f) {
			racks[rk] = append(racks[rk], i)
		}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>slimroute cabling tasks</title><style>\n%s</style></head><body>\n", taskCSS)
	summary := html.EscapeString(strings.TrimSpace(r.Summary()))
	if len(r.Findings) == 0 {
		fmt.Fprintf(bw, "<section><h1>No tasks</h1>\n<p class=\"meta\">%s</p></section>\n", summary)
	}
	byRack := nodesByRack(plan)
	for _, rk := range sortedRacks(racks) {
		title := rackName(rk)
		if rk == 0 {
			title = "Not in a planned rack"
		}
		fmt.Fprintf(bw, "<section><h1>%s: %s</h1>\n<p class=\"meta\">%s</p>\n", title, count(len(racks[rk]), "task", "tasks"), summary)
		if rk > 0 {
			writeTaskRack(bw, rk, byRack[rk], r.Findings, racks[rk])
		}
		bw.WriteString("<table><tr><th>✓</th><th>#</th><th>kind</th><th>what to do</th><th>planned cables</th></tr>\n")
		for _, i := range racks[rk] {
			f := r.Findings[i]
			var ids []string
			for _, c := range f.Cables {
				ids = append(ids, html.EscapeString(c.ID))
			}
			fmt.Fprintf(bw, "<tr><td class=\"check\"></td><td class=\"n\">%d</td><td class=\"kind\">%s</td><td>%s</td><td class=\"cables\">%s</td></tr>\n",
				i+1, html.EscapeString(f.Kind), html.EscapeString(f.Instruction), strings.Join(ids, "<br>"))
		}
		bw.WriteString("</table></section>\n")
	}
	bw.WriteString("</body></html>\n")
	return bw.Flush()
}

// findingRacks lists the planned racks f touches, ascending: the racks of
// its own node and of the planned nodes its steps act on; 0 alone when it
// touches none.
func findingRacks(plan *fabric.Fabric, f Finding) []int {
	var out []int
	for _, name := range findingNodes(f) {
		if id, ok := plan.NodeByName(name); ok {
			if rk := plan.Node(id).Place.Rack; rk > 0 && !slices.Contains(out, rk) {
				out = append(out, rk)
			}
		}
	}
	if len(out) == 0 {
		return []int{0}
	}
	slices.Sort(out)
	return out
}

// findingNodes lists the nodes a finding acts on: its own, then its
// steps' ends.
func findingNodes(f Finding) []string {
	names := []string{f.Node}
	for _, a := range f.Actions {
		names = append(names, a.A.Node, a.B.Node)
	}
	return names
}

// writeTaskRack draws rack rk (nodes, its planned nodes) as an SVG: each
// node a box at its unit, switches dark and hosts light, the nodes of the
// tasks in the rack outlined red and labelled with their name and task
// numbers.
func writeTaskRack(bw *bufio.Writer, rk int, nodes []fabric.Node, findings []Finding, tasks []int) {
	marks := map[string][]int{} // node → its task numbers
	for _, i := range tasks {
		for _, name := range findingNodes(findings[i]) {
			if !slices.Contains(marks[name], i+1) {
				marks[name] = append(marks[name], i+1)
			}
		}
	}
	height := 1
	for _, n := range nodes {
		height = max(height, n.Place.U)
	}
	// nodes sharing a unit share its width
	perU := map[int][]fabric.Node{}
	for _, n := range nodes {
		perU[n.Place.U] = append(perU[n.Place.U], n)
	}
	type row struct {
		y     float64
		boxes []string
		label string
	}
	var rows []row
	labelW := 0.0
	for _, u := range sortedRacks(perU) {
		at := perU[u]
		r := row{y: taskPad + float64(height-u)*taskUnit} // unit 1 at the bottom
		width := taskRackW / float64(len(at))
		var labels []string
		for k, n := range at {
			fill, stroke, sw := "#d8e2f0", "#8899aa", "0.5"
			if n.Kind == fabric.Switch {
				fill = "#34495e"
			}
			if len(marks[n.Name]) > 0 {
				stroke, sw = "#d62728", "2"
				labels = append(labels, fmt.Sprintf("%s: task %s", n.Name, joinInts(marks[n.Name])))
			}
			r.boxes = append(r.boxes, fmt.Sprintf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%g" fill="%s" stroke="%s" stroke-width="%s"><title>U%d %s</title></rect>`,
				taskPad+float64(k)*width, r.y, width, taskUnit, fill, stroke, sw, u, html.EscapeString(n.Name)))
		}
		if len(labels) > 0 {
			r.label = fmt.Sprintf("U%d %s", u, strings.Join(labels, "; "))
			labelW = max(labelW, textWidth(r.label, 9))
		}
		rows = append(rows, r)
	}
	w, h := 2*taskPad+taskRackW+6+max(labelW, taskLabelW), 2*taskPad+float64(height)*taskUnit
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="9">`+"\n", w, h, w, h)
	fmt.Fprintf(bw, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#555"/>`+"\n", taskPad, taskPad, taskRackW, float64(height)*taskUnit)
	for _, r := range rows {
		for _, b := range r.boxes {
			bw.WriteString(b + "\n")
		}
		if r.label != "" {
			fmt.Fprintf(bw, `<text x="%g" y="%.1f" fill="#d62728">%s</text>`+"\n", taskPad+taskRackW+6, r.y+taskUnit-1.5, html.EscapeString(r.label))
		}
	}
	bw.WriteString("</svg>\n")
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
