package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slimroute/fabric"
)

// TestTopoBuildsTheOtherDesigns: topo polarfly, hyperx and dragonfly-plus
// write the fabric their flags describe, and refuse bad shapes naming the
// flag and what fits.
func TestTopoBuildsTheOtherDesigns(t *testing.T) {
	for _, c := range []struct {
		args           []string
		switches, hcas int
	}{
		{[]string{"topo", "polarfly", "--q", "5"}, 31, 31 * 3},
		{[]string{"topo", "polarfly", "--q", "4", "--endpoints", "2"}, 21, 42},
		{[]string{"topo", "hyperx", "--dims", "3x4", "--trunk", "2"}, 12, 12 * 3},
		{[]string{"topo", "hyperx", "--dims", "2,2,2", "--endpoints", "1"}, 8, 8},
		{[]string{"topo", "dragonfly-plus", "--radix", "8", "--groups", "9"}, 9 * 8, 9 * 16},
	} {
		out, err := runApp(t, append(c.args, "--format", "json")...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		f, err := fabric.Read(strings.NewReader(out), "out.json", fabric.FormatJSON)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if st := fabric.ComputeStats(f); st.Switches != c.switches || st.HCAs != c.hcas {
			t.Errorf("%v: %d switches and %d HCAs, want %d and %d", c.args, st.Switches, st.HCAs, c.switches, c.hcas)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"topo", "polarfly", "--q", "6"}, "try q in {2, 3, 4, 5, 7, 8, 9, 11, 13}"},
		{[]string{"topo", "polarfly", "--q", "1000"}, "--q 1000: out of range"},
		{[]string{"topo", "hyperx", "--dims", "12x8x"}, `--dims "12x8x": want 1 to 6 sizes joined by x`},
		{[]string{"topo", "hyperx", "--dims", "12xa"}, `"a" is not a number of switches`},
		{[]string{"topo", "hyperx", "--dims", "200x200"}, "398 network ports per switch"},
		{[]string{"topo", "dragonfly-plus", "--radix", "8", "--groups", "6"}, "use groups in [2 3 5 9 17]"},
		{[]string{"topo", "dragonfly-plus", "--radix", "40"}, "use groups=101"},
	} {
		if _, err := runApp(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}

// TestDemoBuildsEveryDesign: demo --topology writes each design's files
// under its own name, routes it verified, and refuses --q where the design
// has no q, and an unknown design, naming the choices.
func TestDemoBuildsEveryDesign(t *testing.T) {
	for _, c := range []struct {
		topology, base string
		switches, hcas int
	}{{"polarfly", "pf7", 57, 228}, {"hyperx", "hx6x6", 36, 108}, {"dragonfly-plus", "dfp8", 136, 272}} {
		dir := t.TempDir()
		out, err := runApp(t, "demo", "--topology", c.topology, "-o", dir)
		if err != nil {
			t.Fatalf("%s: %v", c.topology, err)
		}
		if statValue(t, out, "switches") != fmt.Sprint(c.switches) || statValue(t, out, "HCAs") != fmt.Sprint(c.hcas) || !strings.Contains(out, "verifier: every LID reachable, no loops, no CDG cycle") {
			t.Errorf("%s: want %d switches, %d HCAs, verified:\n%s", c.topology, c.switches, c.hcas, out)
		}
		for _, name := range []string{c.base + ".net", c.base + ".ibnetdiscover", "route/opensm-lfts.txt"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				t.Errorf("%s: %v", c.topology, err)
			}
		}
	}
	if _, err := runApp(t, "demo", "--topology", "hyperx", "-q", "5", "-o", t.TempDir()); err == nil || !strings.Contains(err.Error(), "drop --q") {
		t.Errorf("--q with hyperx: %v", err)
	}
	if _, err := runApp(t, "demo", "--topology", "torus", "-o", t.TempDir()); err == nil || !strings.Contains(err.Error(), "want slimfly, polarfly, hyperx or dragonfly-plus") {
		t.Errorf("--topology torus: %v", err)
	}
}

// TestSpecAndItsFileRouteAlike: for every example spec, route --config and
// route --fabric on the same fabric written as an ibsim net file write the
// same tables, path SLs and SL2VL tables, byte for byte: the routing
// follows the fabric, not how it was given.
func TestSpecAndItsFileRouteAlike(t *testing.T) {
	specs, _ := filepath.Glob("../../testdata/specs/*.toml")
	if len(specs) == 0 {
		t.Fatal("no example specs")
	}
	for _, spec := range specs {
		dir := t.TempDir()
		net := filepath.Join(dir, "fabric.net")
		if _, err := runApp(t, "topo", "--config", spec, "-o", net); err != nil {
			t.Fatal(err)
		}
		a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		if _, err := runApp(t, "route", "--config", spec, "-o", a); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if _, err := runApp(t, "route", "--fabric", net, "-o", b); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		for _, name := range []string{"opensm-lfts.txt", "path-sl.txt", "sl2vl.txt", "guid2lid"} {
			x, err1 := os.ReadFile(filepath.Join(a, name))
			y, err2 := os.ReadFile(filepath.Join(b, name))
			if err1 != nil || err2 != nil || string(x) != string(y) {
				t.Errorf("%s: %s differs between route --config and route --fabric (%v, %v)", filepath.Base(spec), name, err1, err2)
			}
		}
	}
}
