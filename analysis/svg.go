package analysis

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
)

// Series is one named row of bar heights.
type Series struct {
	Name   string
	Values []float64
}

var palette = []string{"#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5"}

// BarChart writes a grouped bar chart as a standalone SVG: one group per
// label, one bar per series, with axes, ticks and a legend.
func BarChart(w io.Writer, title, xTitle, yTitle string, labels []string, series []Series) error {
	const W, H, left, right, top, bottom = 760.0, 420.0, 70.0, 20.0, 50.0, 60.0
	bw := bufio.NewWriter(w)
	ymax := 0.0
	for _, s := range series {
		for _, v := range s.Values {
			ymax = math.Max(ymax, v)
		}
	}
	step := niceStep(ymax / 5)
	if ymax == 0 {
		ymax, step = 1, 0.2
	}
	ytop := math.Ceil(ymax/step) * step
	pw, ph := W-left-right, H-top-bottom
	y := func(v float64) float64 { return top + ph - v/ytop*ph }
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(bw, `<text x="%g" y="24" font-size="16" text-anchor="middle">%s</text>`+"\n", W/2, html.EscapeString(title))
	for v := 0.0; v <= ytop+step/2; v += step {
		fmt.Fprintf(bw, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%g" y="%.1f" text-anchor="end">%s</text>`+"\n",
			left, W-right, y(v), y(v), left-6, y(v)+4, tick(v))
	}
	n := max(len(labels), 1)
	group := pw / float64(n)
	bar := group * 0.8 / float64(max(len(series), 1))
	for i, l := range labels {
		x0 := left + float64(i)*group + group*0.1
		for j, s := range series {
			if i >= len(s.Values) {
				continue
			}
			v := s.Values[i]
			fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
				x0+float64(j)*bar, y(v), math.Max(bar-1, 0.5), top+ph-y(v), palette[j%len(palette)], html.EscapeString(s.Name), html.EscapeString(l), tick(v))
		}
		if n <= 12 || i%((n+9)/10) == 0 {
			fmt.Fprintf(bw, `<text x="%.1f" y="%g" text-anchor="middle">%s</text>`+"\n", left+float64(i)*group+group/2, top+ph+16, html.EscapeString(l))
		}
	}
	fmt.Fprintf(bw, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="black"/><line x1="%g" x2="%g" y1="%g" y2="%g" stroke="black"/>`+"\n", left, W-right, top+ph, top+ph, left, left, top, top+ph)
	fmt.Fprintf(bw, `<text x="%g" y="%g" text-anchor="middle">%s</text>`+"\n", left+pw/2, H-16, html.EscapeString(xTitle))
	fmt.Fprintf(bw, `<text transform="translate(18 %g) rotate(-90)" text-anchor="middle">%s</text>`+"\n", top+ph/2, html.EscapeString(yTitle))
	for j, s := range series {
		fmt.Fprintf(bw, `<rect x="%g" y="%g" width="12" height="12" fill="%s"/><text x="%g" y="%g">%s</text>`+"\n",
			W-right-150, top+float64(j)*18, palette[j%len(palette)], W-right-132, top+float64(j)*18+11, html.EscapeString(s.Name))
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

func tick(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// PathLengthChart plots the path-length histogram of every layer.
func PathLengthChart(w io.Writer, rep *Report, title string) error {
	maxLen := 0
	for _, h := range rep.PathLengths {
		maxLen = max(maxLen, len(h))
	}
	labels := make([]string, maxLen)
	for i := range labels {
		labels[i] = fmt.Sprint(i)
	}
	var series []Series
	for k, h := range rep.PathLengths {
		v := make([]float64, maxLen)
		for i, n := range h {
			v[i] = float64(n)
		}
		series = append(series, Series{Name: fmt.Sprintf("layer %d", k), Values: v})
	}
	return BarChart(w, title, "switch-to-switch hops", "pairs", labels, series)
}

// LoadChart plots the distribution of channel loads under all-to-all
// traffic in 20 bins between the least and the most loaded channel.
func LoadChart(w io.Writer, rep *Report, title string) error {
	const bins = 20
	lo, hi := math.Inf(1), 0.0
	for _, v := range rep.AllToAllLoads {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if len(rep.AllToAllLoads) == 0 {
		lo, hi = 0, 1
	}
	width := (hi - lo) / bins
	if width == 0 {
		width = math.Max(hi, 1) / bins
	}
	counts := make([]float64, bins)
	labels := make([]string, bins)
	for i := range labels {
		labels[i] = fmt.Sprintf("%.3g", lo+width*float64(i))
	}
	for _, v := range rep.AllToAllLoads {
		b := min(int((v-lo)/width), bins-1)
		counts[b]++
	}
	return BarChart(w, title, "channel load under all-to-all traffic (bin start; 1 = link bandwidth)", "channels", labels, []Series{{Name: "channels", Values: counts}})
}

// CeilingChart plots, for n = 1..L, the pairs with at least n disjoint
// paths against the pairs whose ceiling allows n.
func CeilingChart(w io.Writer, rep *Report, title string) error {
	ce := rep.Ceiling
	if ce == nil {
		ce = &CeilingReport{}
	}
	var labels []string
	var possible, inBounds, all []float64
	for n := 1; n < len(rep.Disjoint); n++ {
		labels = append(labels, fmt.Sprintf("≥ %d", n))
		all = append(all, float64(rep.Disjoint[n]))
		if n < len(ce.Possible) {
			possible = append(possible, float64(ce.Possible[n]))
			inBounds = append(inBounds, float64(ce.Achieved[n]))
		}
	}
	return BarChart(w, title, "link-disjoint paths over the layers", "pairs (source switch, destination endpoint)", labels,
		[]Series{{Name: "ceiling allows", Values: possible}, {Name: "achieved in bounds", Values: inBounds}, {Name: "achieved", Values: all}})
}

// ShiftChart plots the highest link load of the shift permutations per
// layer and over all layers: the worst shift and the mean over shifts.
func ShiftChart(w io.Writer, rep *Report, title string) error {
	sh := rep.Shifts
	if sh == nil {
		sh = &ShiftReport{All: ShiftLoad{Layer: -1}}
	}
	var labels []string
	var worst, mean []float64
	for _, l := range append(sh.Layers, sh.All) {
		name := fmt.Sprintf("layer %d", l.Layer)
		if l.Layer < 0 {
			name = "all layers"
		}
		labels = append(labels, name)
		worst, mean = append(worst, l.MaxLoad), append(mean, l.MeanMaxLoad)
	}
	return BarChart(w, title, "flows on one layer, or split over all", "highest link load (1 = link bandwidth)", labels,
		[]Series{{Name: "worst shift", Values: worst}, {Name: "mean over shifts", Values: mean}})
}
