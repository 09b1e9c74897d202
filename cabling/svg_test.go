package cabling

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// svgShape is the extent of one drawn element in user units.
type svgShape struct {
	what                     string
	left, top, right, bottom float64
}

// svgShapes parses a diagram written by WriteSVG and returns its size
// (which must equal its viewBox) and the extent of every rect, text and
// arc path in it. Text extents use a generous width per character; arcs
// are the upper half-ellipses WriteSVG draws ("M x y A rx ry 0 0 1 x y"),
// widened by half their stroke.
func svgShapes(t *testing.T, svg []byte) (w, h float64, shapes []svgShape) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	var text *strings.Builder // the content of the open text element
	var textAttrs map[string]string
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch e := tok.(type) {
		case xml.StartElement:
			a := xmlAttrs(e)
			switch e.Name.Local {
			case "svg":
				w, h = svgNum(t, a["width"]), svgNum(t, a["height"])
				if vb := fmt.Sprintf("0 0 %g %g", w, h); a["viewBox"] != vb {
					t.Fatalf("viewBox %q, want %q (the size)", a["viewBox"], vb)
				}
			case "rect":
				x, y := svgNum(t, a["x"]), svgNum(t, a["y"])
				shapes = append(shapes, svgShape{"rect", x, y, x + svgNum(t, a["width"]), y + svgNum(t, a["height"])})
			case "path":
				shapes = append(shapes, arcShape(t, a["d"], svgNum(t, a["stroke-width"])))
			case "text":
				text, textAttrs = &strings.Builder{}, a
			}
		case xml.CharData:
			if text != nil {
				text.Write(e)
			}
		case xml.EndElement:
			if e.Name.Local == "text" && text != nil {
				shapes = append(shapes, textShape(t, textAttrs, text.String()))
				text = nil
			}
		}
	}
	if w == 0 || h == 0 {
		t.Fatalf("no size in\n%s", svg)
	}
	return w, h, shapes
}

func xmlAttrs(e xml.StartElement) map[string]string {
	m := map[string]string{}
	for _, a := range e.Attr {
		m[a.Name.Local] = a.Value
	}
	return m
}

func svgNum(t *testing.T, s string) float64 {
	t.Helper()
	if s == "" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("number %q: %v", s, err)
	}
	return v
}

func textShape(t *testing.T, a map[string]string, s string) svgShape {
	size := svgFont
	if a["font-size"] != "" {
		size = svgNum(t, a["font-size"])
	}
	x, y, w := svgNum(t, a["x"]), svgNum(t, a["y"]), textWidth(s, size)
	left := x
	if a["text-anchor"] == "middle" {
		left = x - w/2
	}
	return svgShape{"text " + s, left, y - size, left + w, y + size/4}
}

func arcShape(t *testing.T, d string, stroke float64) svgShape {
	var x1, y1, rx, ry, x2, y2 float64
	var rot, large, sweep int
	if _, err := fmt.Sscanf(d, "M %g %g A %g %g %d %d %d %g %g", &x1, &y1, &rx, &ry, &rot, &large, &sweep, &x2, &y2); err != nil {
		t.Fatalf("path %q: not an arc WriteSVG draws: %v", d, err)
	}
	if y1 != y2 || sweep != 1 || x2 < x1 || rx*2 < x2-x1-0.2 {
		t.Fatalf("path %q is not an upper half-ellipse from left to right", d)
	}
	s := stroke / 2
	return svgShape{"arc " + d, x1 - s, y1 - ry - s, x2 + s, y1 + s}
}

// TestSVGDrawsInsideItsPage: on generated machine rooms (1–40 racks,
// racks per row, pitches, rack heights, racked and unracked nodes), every
// rectangle, label and arc of racks.svg lies inside its viewBox.
func TestSVGDrawsInsideItsPage(t *testing.T) {
	genPlans(t, 2000, func(t *testing.T, c genCase, p *Plan) {
		var b bytes.Buffer
		if err := WriteSVG(&b, p); err != nil {
			t.Fatal(err)
		}
		w, h, shapes := svgShapes(t, b.Bytes())
		for _, s := range shapes {
			if s.left < 0 || s.top < 0 || s.right > w || s.bottom > h {
				t.Errorf("%s spans x %.1f..%.1f, y %.1f..%.1f: outside the %gx%g page", s.what, s.left, s.right, s.top, s.bottom, w, h)
			}
		}
	})
}
