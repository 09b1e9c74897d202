package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slimroute/fabric"
)

func parseFile(t *testing.T, path string) Spec {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	s, err := Parse(fh, path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExampleSpecsBuild(t *testing.T) {
	want := map[string]struct{ switches, hcas int }{
		"sf5.toml":               {50, 200},
		"clos-2level.toml":       {54, 648},
		"fattree-3level.toml":    {4*(8+8) + 16, 4 * 8 * 8},
		"polarfly-q7.toml":       {7*7 + 7 + 1, 57 * 4},
		"hyperx-6x6.toml":        {36, 36 * 3},
		"dragonfly-plus-r8.toml": {17 * 8, 17 * 4 * 4},
	}
	files, _ := filepath.Glob("../testdata/specs/*.toml")
	if len(files) != len(want) {
		t.Fatalf("found %d example specs, want %d", len(files), len(want))
	}
	for _, path := range files {
		f, err := Build(parseFile(t, path))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		st := fabric.ComputeStats(f)
		w := want[filepath.Base(path)]
		if st.Switches != w.switches || st.HCAs != w.hcas {
			t.Errorf("%s: %d switches, %d HCAs; want %d, %d", path, st.Switches, st.HCAs, w.switches, w.hcas)
		}
	}
}

func TestRackUnitsAndPrefix(t *testing.T) {
	f, err := Build(parseFile(t, "../testdata/specs/sf5.toml"))
	if err != nil {
		t.Fatal(err)
	}
	id, ok := f.NodeByName("sw-0-0-0")
	if !ok {
		t.Fatal("sw-0-0-0 missing")
	}
	if p := f.Node(id).Place; p.Rack != 1 || p.U != 42 {
		t.Errorf("sw-0-0-0 placed at %+v, want rack 1 U42 (top of the rack)", p)
	}
	g, err := Build(parseFile(t, "../testdata/specs/fattree-3level.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.NodeByName("ft-core-0"); !ok {
		t.Error("naming.prefix not applied")
	}
	s := parseFile(t, "../testdata/specs/sf5.toml")
	s.Racks.Units = 4
	if _, err := Build(s); err == nil || !strings.Contains(err.Error(), "racks.units = 4") {
		t.Errorf("10 switches in a 4-unit rack: error %v", err)
	}
}

func TestBadSpecsNameTheProblem(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"kind = \"slimfly\"\n[slimfly]\nq = 5\nendpionts = 4\n", "unknown key slimfly.endpionts"},
		{"kind = \"slimfly\"\nradx = 36\n", "unknown key radx"},
		{"kind = \"torus\"\n", "kind = \"torus\""},
		{"radix = 36\n", "missing key kind"},
		{"kind = \"slimfly\"\nradix = \"many\"\n", "spec.toml:2: radix: want an integer value, found a string"},
		{"kind = \"slimfly\"\n[slimfly\n", "spec.toml:2"},
	} {
		_, err := Parse(strings.NewReader(c.in), "spec.toml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
	var pe *fabric.ParseError
	_, err := Parse(strings.NewReader("kind = \n"), "x.toml")
	if !errors.As(err, &pe) || pe.Line != 1 {
		t.Errorf("syntax error %v: want a ParseError at line 1", err)
	}
	s, err := Parse(strings.NewReader("kind = \"slimfly\"\n[slimfly]\nq = 6\n"), "x.toml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(s); err == nil || !strings.Contains(err.Error(), "q=6 has no Slim Fly") {
		t.Errorf("q=6: %v", err)
	}
}
