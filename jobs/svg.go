package jobs

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strings"

	"slimroute/fabric"
)

// palette colours the jobs in file order (then again, dashed).
var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}

// WriteSVG draws the fabric's switches on a circle, rack by rack, and its
// switch-to-switch cables as chords: a cable only one job uses in its
// colour, a cable several jobs use black and thick (its tooltip names
// them), unused cables faint. A legend gives each job's colour, hosts and
// contention factor.
func WriteSVG(w io.Writer, rep *Report, title string) error {
	f := rep.f
	sws := f.IDsOf(fabric.Switch)
	sort.SliceStable(sws, func(a, b int) bool { return f.Node(sws[a]).Place.Rack < f.Node(sws[b]).Place.Rack })
	const size, legend = 900.0, 260.0
	pos := map[fabric.NodeID][2]float64{}
	for i, s := range sws {
		a := 2 * math.Pi * float64(i) / float64(len(sws))
		pos[s] = [2]float64{size/2 + (size/2-60)*math.Cos(a), size/2 + 30 + (size/2-60)*math.Sin(a)}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n", size+legend, size+40, size+legend, size+40)
	fmt.Fprintf(bw, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"10\" y=\"20\" font-size=\"15\">%s</text>\n", html.EscapeString(title))
	for _, l := range f.Links() {
		if f.Kind(l.A.Node) != fabric.Switch || f.Kind(l.B.Node) != fabric.Switch {
			continue
		}
		users := rep.usersOf(l)
		a, b := pos[l.A.Node], pos[l.B.Node]
		style := `stroke="#ddd" stroke-width="0.6"`
		switch {
		case len(users) == 1:
			style = fmt.Sprintf(`stroke="%s" stroke-width="1.6"%s`, colour(users[0]), dash(users[0]))
		case len(users) > 1:
			style = `stroke="black" stroke-width="3"`
		}
		var names []string
		for _, u := range users {
			names = append(names, rep.Jobs[u].ID)
		}
		fmt.Fprintf(bw, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s><title>%s – %s: %s</title></line>\n", a[0], a[1], b[0], b[1], style,
			html.EscapeString(f.Name(l.A.Node)), html.EscapeString(f.Name(l.B.Node)), html.EscapeString(usersText(names)))
	}
	for _, s := range sws {
		p := pos[s]
		fmt.Fprintf(bw, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#444\"><title>%s (rack %d)</title></circle>\n", p[0], p[1], html.EscapeString(f.Name(s)), f.Node(s).Place.Rack)
	}
	writeLegend(bw, rep, size+10)
	fmt.Fprintln(bw, "</svg>")
	return bw.Flush()
}

// usersOf lists the jobs whose traffic crosses cable l in either
// direction, in file order.
func (rep *Report) usersOf(l fabric.Link) []int {
	var out []int
	for i, ld := range rep.per {
		if ld[l.A] > 0 || ld[l.B] > 0 {
			out = append(out, i)
		}
	}
	return out
}

func usersText(names []string) string {
	if len(names) == 0 {
		return "no job"
	}
	return "jobs " + strings.Join(names, ", ")
}

func colour(i int) string { return palette[i%len(palette)] }

func dash(i int) string {
	if i/len(palette)%2 == 1 {
		return ` stroke-dasharray="6 3"`
	}
	return ""
}

// writeLegend lists the jobs with their colours from x.
func writeLegend(w io.Writer, rep *Report, x float64) {
	y := 50.0
	fmt.Fprintf(w, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">job: hosts, pattern, contention</text>\n", x, y)
	for i, j := range rep.Jobs {
		y += 20
		fmt.Fprintf(w, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"3\"%s/>\n", x, y-4, x+24, y-4, colour(i), dash(i))
		fmt.Fprintf(w, "<text x=\"%.0f\" y=\"%.0f\">%s: %d, %s, ×%.2f</text>\n", x+30, y, html.EscapeString(j.ID), j.Hosts, j.Pattern, j.Factor)
	}
	y += 20
	fmt.Fprintf(w, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\" stroke-width=\"3\"/>\n<text x=\"%.0f\" y=\"%.0f\">shared by several jobs</text>\n", x, y-4, x+24, y-4, x+30, y)
}
