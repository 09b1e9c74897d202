// Command plot draws the routing time of every engine against fabric size
// from bench/compare's JSON results, as an SVG with logarithmic axes.
//
//	go run ./bench/plot -o docs/compare-time.svg bench/results/compare.json bench/results/compare-q11.json
//
// Rows without the switches/HCAs columns (older results) are skipped; when
// several files give the same engine and fabric, the last one counts. Slim
// Fly and Clos fabrics (labels starting "clos") get separate lines.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"slimroute/internal/atomicfile"
)

type point struct {
	hcas, ms float64
	clos     bool // a Clos fabric: drawn on the engine's dashed line
}

func main() {
	out := flag.String("o", "compare-time.svg", "SVG file to write")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: plot [-o FILE] compare.json ...")
		os.Exit(2)
	}
	series, err := readSeries(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(1)
	}
	svg := draw(series)
	if err := atomicfile.Write(*out, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, svg); return err }); err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(1)
	}
}

// readSeries reads bench/compare JSON files into points per engine and
// fabric label. Rows without a fabric size or a time are skipped; a later
// file's row replaces an earlier one for the same engine and fabric.
func readSeries(files []string) (map[string]map[string]point, error) {
	series := map[string]map[string]point{} // engine -> fabric label -> point
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var rows []map[string]string
		if err := json.Unmarshal(b, &rows); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		for _, r := range rows {
			h, err1 := strconv.ParseFloat(r["HCAs"], 64)
			ms, err2 := strconv.ParseFloat(r["routing ms"], 64)
			if err1 != nil || err2 != nil || h <= 0 {
				continue
			}
			if series[r["engine"]] == nil {
				series[r["engine"]] = map[string]point{}
			}
			series[r["engine"]][r["q"]] = point{h, math.Max(ms, 1), strings.HasPrefix(r["q"], "clos")}
		}
	}
	if len(series) == 0 {
		return nil, fmt.Errorf("no rows with fabric sizes in %s", strings.Join(files, ", "))
	}
	return series, nil
}

// draw renders the series: x = HCAs, y = routing ms, both logarithmic.
func draw(series map[string]map[string]point) string {
	const W, H, left, right, top, bottom = 720, 440, 70, 170, 30, 50
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	engines := make([]string, 0, len(series))
	for e, pts := range series {
		engines = append(engines, e)
		for _, p := range pts {
			minX, maxX = math.Min(minX, p.hcas), math.Max(maxX, p.hcas)
			minY, maxY = math.Min(minY, p.ms), math.Max(maxY, p.ms)
		}
	}
	sort.Strings(engines)
	// whole decades around the data
	x0, x1 := math.Floor(math.Log10(minX)), math.Ceil(math.Log10(maxX))
	y0, y1 := math.Floor(math.Log10(minY)), math.Ceil(math.Log10(maxY))
	if x1 == x0 {
		x1++
	}
	if y1 == y0 {
		y1++
	}
	px := func(v float64) float64 { return left + (math.Log10(v)-x0)/(x1-x0)*(W-left-right) }
	py := func(v float64) float64 { return H - bottom - (math.Log10(v)-y0)/(y1-y0)*(H-top-bottom) }
	colors := []string{"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">OpenSM routing time against fabric size (LMC 2; ftree LMC 0)</text>`+"\n", left)
	for d := x0; d <= x1; d++ {
		x := px(math.Pow(10, d))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" text-anchor="middle">%.0f</text>`+"\n", x, top, x, H-bottom, x, H-bottom+16, math.Pow(10, d))
	}
	for d := y0; d <= y1; d++ {
		y := py(math.Pow(10, d))
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%.0f</text>`+"\n", left, y, W-right, y, left-6, y+4, math.Pow(10, d))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">HCAs (circles, solid: Slim Fly; squares, dashed: Clos)</text>`+"\n", (left+W-right)/2, H-12)
	fmt.Fprintf(&b, `<text transform="translate(18 %d) rotate(-90)" text-anchor="middle">routing ms</text>`+"\n", (top+H-bottom)/2)
	for i, e := range engines {
		c := colors[i%len(colors)]
		width := ""
		if strings.HasPrefix(e, "slimroute") {
			width = ` stroke-width="2.5"`
		}
		for _, clos := range []bool{false, true} {
			var pts []point
			for _, p := range series[e] {
				if p.clos == clos {
					pts = append(pts, p)
				}
			}
			sort.Slice(pts, func(i, j int) bool { return pts[i].hcas < pts[j].hcas })
			var path []string
			for _, p := range pts {
				path = append(path, fmt.Sprintf("%.1f,%.1f", px(p.hcas), py(p.ms)))
				shape := fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, px(p.hcas), py(p.ms), c)
				if clos {
					shape = fmt.Sprintf(`<rect x="%.1f" y="%.1f" width="6" height="6" fill="%s"/>`, px(p.hcas)-3, py(p.ms)-3, c)
				}
				b.WriteString(shape + "\n")
			}
			dash := ""
			if clos {
				dash = ` stroke-dasharray="5 4"`
			}
			if len(path) > 1 {
				fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s"%s%s/>`+"\n", strings.Join(path, " "), c, width, dash)
			}
		}
		ly := top + 10 + 18*i
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2.5"/><text x="%d" y="%d">%s</text>`+"\n", W-right+12, ly, W-right+32, ly, c, W-right+38, ly+4, e)
	}
	b.WriteString("</svg>\n")
	return b.String()
}
