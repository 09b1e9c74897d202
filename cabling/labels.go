package cabling

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"html"
	"io"
	"strconv"
)

// Cable labels follow the TIA-606 habit: one identifier per cable, and a
// label at each end that names both ends, so that whoever holds either end
// knows where the other one goes.

// EndLabel names one end of a cable as the installer finds it: rack, rack
// unit, node and port, e.g. "R01 U42 sw-0-0-0 P7". Unknown positions read
// "R--" and "U--".
func EndLabel(e CableEnd) string {
	rack, u := "R--", "U--"
	if e.Rack > 0 {
		rack = fmt.Sprintf("R%02d", e.Rack)
	}
	if e.U > 0 {
		u = "U" + strconv.Itoa(e.U)
	}
	return fmt.Sprintf("%s %s %s P%d", rack, u, e.Node, e.Port)
}

// WriteLabelsCSV writes one row per cable for a label printer: the cable
// ID, both ends (EndLabel), kind and length. Print each row twice, one
// label for each end.
func WriteLabelsCSV(w io.Writer, p *Plan) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"cable", "a_end", "b_end", "kind", "length_m", "plan"})
	for _, c := range p.Cables {
		cw.Write([]string{c.ID, EndLabel(c.A), EndLabel(c.B), c.Kind, strconv.FormatFloat(c.Length, 'f', -1, 64), p.ID})
	}
	cw.Flush()
	return cw.Error()
}

// labelCSS: labels 62 mm wide (a common label-printer tape), three to a row
// on A4; a label never breaks across pages.
const labelCSS = `@page{size:A4;margin:10mm}
body{font-family:sans-serif;font-size:9pt;margin:0 auto;max-width:190mm}
h1{font-size:12pt;margin:0 0 .4em}
.sheet{display:flex;flex-wrap:wrap;gap:1.5mm}
.label{box-sizing:border-box;width:62mm;border:1px dashed #888;padding:1mm 2mm;break-inside:avoid;font-family:monospace;font-size:8pt;line-height:1.3;overflow-wrap:anywhere}
.label b{font-size:10pt}
`

// WriteLabelsHTML writes a printable sheet of cable labels: every cable's
// label twice, side by side (one for each end), each naming the cable and
// both of its ends.
func WriteLabelsHTML(w io.Writer, p *Plan) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>slimroute cable labels, plan %s</title><style>\n%s</style></head><body>\n", p.ID, labelCSS)
	fmt.Fprintf(bw, "<h1>Cable labels · plan %s · %d cables, two labels each: one on each end</h1>\n<div class=\"sheet\">\n", p.ID, len(p.Cables))
	for _, c := range p.Cables {
		text := fmt.Sprintf("<div class=\"label\"><b>%s</b> %s %g m<br>A %s<br>B %s</div>\n",
			c.ID, c.Kind, c.Length, html.EscapeString(EndLabel(c.A)), html.EscapeString(EndLabel(c.B)))
		bw.WriteString(text)
		bw.WriteString(text)
	}
	bw.WriteString("</div></body></html>\n")
	return bw.Flush()
}
