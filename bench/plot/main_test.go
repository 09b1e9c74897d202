package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func writeJSON(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadSeriesSkipsRowsWithoutSizeAndLastFileWins(t *testing.T) {
	a := writeJSON(t, "a.json", `[
 {"q":"5","HCAs":"200","engine":"ours","routing ms":"30"},
 {"q":"7","engine":"ours","routing ms":"90"},
 {"q":"11","HCAs":"1452","engine":"ours","routing ms":"n/a"},
 {"q":"clos-2","HCAs":"648","engine":"ours","routing ms":"0.2"}]`)
	b := writeJSON(t, "b.json", `[{"q":"5","HCAs":"200","engine":"ours","routing ms":"25"}]`)
	s, err := readSeries([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]point{
		"5":      {200, 25, false}, // b.json's row replaces a.json's
		"clos-2": {648, 1, true},   // times under 1 ms are drawn at 1 ms: the axis is logarithmic
	}
	if len(s) != 1 || fmt.Sprint(s["ours"]) != fmt.Sprint(want) {
		t.Errorf("series %v, want ours: %v", s, want)
	}
}

func TestReadSeriesErrorsNameTheFile(t *testing.T) {
	bad := writeJSON(t, "bad.json", `{"not": "a list"}`)
	empty := writeJSON(t, "empty.json", `[{"q":"5","engine":"ours"}]`)
	for _, files := range [][]string{{bad}, {empty}, {filepath.Join(t.TempDir(), "missing.json")}} {
		if _, err := readSeries(files); err == nil || !strings.Contains(err.Error(), filepath.Base(files[0])) {
			t.Errorf("%v: error %v, want one naming the file", files, err)
		}
	}
}

// TestDrawPlacesPointsOnLogAxes parses the SVG and checks what the plot
// promises: one circle per Slim Fly point and one square per Clos point, a
// line per engine and fabric kind with two or more points, x growing with
// HCAs and y falling as time grows, and decade ticks around the data.
func TestDrawPlacesPointsOnLogAxes(t *testing.T) {
	series := map[string]map[string]point{
		"slimroute": {"5": {200, 30, false}, "7": {686, 170, false}, "11": {2662, 1400, false}, "clos-a": {648, 2, true}},
		"dfsssp":    {"5": {200, 160, false}, "7": {686, 900, false}},
	}
	svg := draw(series)
	dec := xml.NewDecoder(strings.NewReader(svg))
	var circles, squares [][2]float64
	var lines int
	var ticks []string
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("SVG is not well-formed XML: %v", err)
			}
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := map[string]string{}
		for _, a := range se.Attr {
			attr[a.Name.Local] = a.Value
		}
		num := func(k string) float64 {
			v, err := strconv.ParseFloat(attr[k], 64)
			if err != nil {
				t.Fatalf("<%s %s=%q>: %v", se.Name.Local, k, attr[k], err)
			}
			return v
		}
		switch se.Name.Local {
		case "circle":
			circles = append(circles, [2]float64{num("cx"), num("cy")})
		case "rect":
			if attr["width"] == "6" {
				squares = append(squares, [2]float64{num("x") + 3, num("y") + 3})
			}
		case "polyline":
			lines++
		case "text":
			if s, err := dec.Token(); err == nil {
				if cd, ok := s.(xml.CharData); ok {
					ticks = append(ticks, string(cd))
				}
			}
		}
	}
	slim, clos := 0, 0
	for _, pts := range series {
		for _, p := range pts {
			if p.clos {
				clos++
			} else {
				slim++
			}
		}
	}
	if len(circles) != slim || len(squares) != clos {
		t.Fatalf("%d circles and %d squares, want %d and %d", len(circles), len(squares), slim, clos)
	}
	if lines != 2 {
		t.Errorf("%d polylines, want 2 (the two engines' Slim Fly points; one Clos point draws no line)", lines)
	}
	// engines in name order (dfsssp, slimroute), each's points by HCAs;
	// in both series more HCAs take more time
	for _, run := range [][2]int{{0, 2}, {2, 5}} {
		for i := run[0] + 1; i < run[1]; i++ {
			if !(circles[i][0] > circles[i-1][0] && circles[i][1] < circles[i-1][1]) {
				t.Errorf("point %d at %v is not right of and above point %d at %v", i, circles[i], i-1, circles[i-1])
			}
		}
	}
	// the same fabric (200 HCAs) at the same x; the slower engine higher up
	// the time axis, that is lower y
	if circles[0][0] != circles[2][0] || !(circles[0][1] < circles[2][1]) {
		t.Errorf("200 HCAs: dfsssp (160 ms) at %v, slimroute (30 ms) at %v", circles[0], circles[2])
	}
	// HCAs 200..2662 → decades 100..10000; ms 2..1400 → 1..10000
	for _, want := range []string{"100", "1000", "10000", "1", "10"} {
		found := false
		for _, s := range ticks {
			found = found || s == want
		}
		if !found {
			t.Errorf("no tick labelled %s among %v", want, ticks)
		}
	}
}
