package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"slimroute/fabric"
	"slimroute/lft"
)

func runApp(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := newApp(&out, &errb).Run(append([]string{"slimroute"}, args...))
	return out.String(), err
}

// commands walks the command tree, returning each command's argument path.
func commands(prefix []string, cmds []*cli.Command) [][]string {
	var out [][]string
	for _, c := range cmds {
		p := append(append([]string(nil), prefix...), c.Name)
		out = append(out, p)
		out = append(out, commands(p, c.Subcommands)...)
	}
	return out
}

func TestEveryCommandHasHelpWithAnExample(t *testing.T) {
	for _, path := range commands(nil, newApp(nil, nil).Commands) {
		out, err := runApp(t, append(path, "--help")...)
		if err != nil {
			t.Fatalf("%v --help: %v", path, err)
		}
		if !strings.Contains(out, "Example") || !strings.Contains(out, "slimroute "+path[0]) {
			t.Errorf("%v --help has no example:\n%s", path, out)
		}
	}
}

func TestTopoWritesAtomicallyAndDeterministically(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.net"), filepath.Join(dir, "b.net")
	for _, p := range []string{a, b} {
		if _, err := runApp(t, "topo", "slimfly", "--q", "5", "-o", p); err != nil {
			t.Fatal(err)
		}
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Fatal("two runs wrote different bytes")
	}
	// a failed write (unknown format) leaves the old file and no temporary
	if _, err := runApp(t, "topo", "slimfly", "--q", "5", "--format", "xml", "-o", a); err == nil {
		t.Fatal("unknown format accepted")
	}
	z, _ := os.ReadFile(a)
	entries, _ := os.ReadDir(dir)
	if !bytes.Equal(x, z) || len(entries) != 2 {
		t.Fatalf("failed write changed the directory: %d entries", len(entries))
	}
}

func TestConvertAndStatsAgree(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "f.toml")
	os.WriteFile(spec, []byte("kind = \"slimfly\"\n[slimfly]\nq = 7\n"), 0o644)
	js := filepath.Join(dir, "f.json")
	if _, err := runApp(t, "topo", "--config", spec, "--format", "json", "-o", js); err != nil {
		t.Fatal(err)
	}
	out, err := runApp(t, "topo", "stats", "--fabric", js, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var st fabric.Stats
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.Switches != 98 || st.Diameter != 2 || st.MaxDegree != 11 || st.HCAs != 588 {
		t.Fatalf("stats of q=7 via JSON: %+v", st)
	}
	text, err := runApp(t, "topo", "stats", "--slimfly", "5")
	if err != nil || !strings.Contains(text, "Moore-bound efficiency              100.0%") {
		t.Fatalf("q=5 is the Hoffman–Singleton graph, efficiency 100%%:\n%s %v", text, err)
	}
}

func TestErrorsAreOneClearLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"topo", "slimfly", "--q", "6"}, "q=6 has no Slim Fly"},
		{[]string{"topo", "slimfly", "--q", "5", "--radix", "8"}, "needs 11 ports per switch"},
		{[]string{"topo", "stats"}, "name one fabric"},
		{[]string{"topo", "--fabric", "/nonexistent.net"}, "no such file"},
		{[]string{"topo", "clos", "--radix", "8", "--spines", "3"}, "spread evenly"},
	} {
		_, err := runApp(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: error spans lines: %q", c.args, err)
		}
	}
}

func TestDemoWritesEveryFormat(t *testing.T) {
	dir := t.TempDir()
	out, err := runApp(t, "demo", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "switches                            50") || !strings.Contains(out, "HCAs                                200") {
		t.Errorf("demo output lacks the q=5 counts:\n%s", out)
	}
	for _, f := range fabric.ReadFormats {
		path := filepath.Join(dir, "sf5"+f.Extension())
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		g, err := fabric.Read(fh, path, f)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if st := fabric.ComputeStats(g); st.Switches != 50 || st.HCAs != 200 || st.Diameter != 2 {
			t.Errorf("%s: %+v", path, st)
		}
	}
}

func TestAnalyzeReportsLayersAndWritesCharts(t *testing.T) {
	dir := t.TempDir()
	out, err := runApp(t, "analyze", "--slimfly", "5", "--permutations", "5", "--json", "--svg", dir)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Layers     int   `json:"layers"`
		Pairs      int   `json:"pairs"`
		Disjoint   []int `json:"disjoint_at_least"`
		LayerStats []struct {
			Fallback int `json:"fallback"`
		} `json:"layer_stats"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// q=5 is the Hoffman–Singleton graph (girth 5): the 7 neighbours of a
	// switch have no 2- or 3-hop alternative, so 50·7·4 pairs fall back.
	if rep.Layers != 4 || rep.Pairs != 9800 || len(rep.LayerStats) != 4 || rep.LayerStats[1].Fallback != 1400 {
		t.Fatalf("report %+v", rep)
	}
	for _, name := range []string{"path-lengths.svg", "link-loads.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("<rect x=")) {
			t.Errorf("%s: not a chart with bars (%v)", name, err)
		}
	}
}

func TestRouteWritesVerifiedFilesDeterministically(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		out, err := runApp(t, "route", "--slimfly", "5", "--deadlock", "hops", "-o", dir)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "no CDG cycle") || !strings.Contains(out, "uses 3 VLs and 5 SLs") {
			t.Fatalf("route output:\n%s", out)
		}
	}
	for _, name := range []string{"opensm-lfts.txt", "guid2lid", "path-sl.txt", "sl2vl.txt", "summary.json"} {
		x, err1 := os.ReadFile(filepath.Join(a, name))
		y, err2 := os.ReadFile(filepath.Join(b, name))
		if err1 != nil || err2 != nil || len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs (%v %v)", name, err1, err2)
		}
	}
}

func TestRouteRefusesWhatItCannotDo(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"route", "--slimfly", "29", "-o", t.TempDir()}, "use LMC 0 (1 layers)"},
		{[]string{"route", "--slimfly", "5", "--deadlock", "none", "-o", t.TempDir()}, "credit loop"},
		{[]string{"route", "--slimfly", "5", "--deadlock", "dfsssp", "--vls", "2", "-o", t.TempDir()}, "DFSSSP needs 4 VLs on this routing, 2 allowed"},
		{[]string{"route", "--slimfly", "5", "--deadlock", "hops", "--vls", "2", "-o", t.TempDir()}, "needs 3 VLs"},
		{[]string{"route", "--slimfly", "5", "--deadlock", "lash", "-o", t.TempDir()}, "want hops, dfsssp, auto or none"},
	} {
		_, err := runApp(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
	// nothing was written for a refused run
	dir := t.TempDir()
	runApp(t, "route", "--slimfly", "5", "--deadlock", "none", "-o", dir)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused route left %d files", len(entries))
	}
}

func TestPathShowsEveryLayer(t *testing.T) {
	out, err := runApp(t, "path", "--slimfly", "5", "--from", "hca-0-0-0-1", "--to", "hca-1-4-2-3")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "layer ") != 4 || !strings.Contains(out, "sw-0-0-0[") || !strings.Contains(out, `"hca-1-4-2-3"[1]`) {
		t.Fatalf("path output:\n%s", out)
	}
}

func TestPcapExportReadsBackAsTheRouteFile(t *testing.T) {
	dir := t.TempDir()
	pcap := filepath.Join(dir, "lfts.pcap")
	if _, err := runApp(t, "export", "--slimfly", "5", "--format", "pcap", "-o", pcap); err != nil {
		t.Fatal(err)
	}
	back, err := runApp(t, "lft", "from-pcap", "--slimfly", "5", pcap)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runApp(t, "route", "--slimfly", "5", "-o", dir); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "opensm-lfts.txt"))
	a, err := lft.ReadDump(strings.NewReader(back), "from-pcap")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := lft.ReadDump(bytes.NewReader(want), "opensm-lfts.txt")
	if len(a) != 50 || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("tables from the pcap (%d switches) differ from route's file (%d)", len(a), len(b))
	}
}

func TestRouteNamesDisconnectedSwitches(t *testing.T) {
	net := filepath.Join(t.TempDir(), "split.net")
	os.WriteFile(net, []byte("Switch 4 \"a\"\n[1] \"h1\"[1]\n[2] \"b\"[2]\n\nSwitch 4 \"b\"\n[2] \"a\"[2]\n\nSwitch 4 \"lonely\"\n[1] \"h2\"[1]\n\nHca 1 \"h1\"\n[1] \"a\"[1]\n\nHca 1 \"h2\"\n[1] \"lonely\"[1]\n"), 0o644)
	dir := t.TempDir()
	_, err := runApp(t, "route", "--fabric", net, "-o", dir)
	if err == nil || !strings.Contains(err.Error(), "disconnected") || !strings.Contains(err.Error(), "lonely") {
		t.Fatalf("error %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused route left %d files", len(entries))
	}
}

func TestRouteProfileWritesProfiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := runApp(t, "route", "--slimfly", "3", "--profile", filepath.Join(dir, "prof"), "-o", filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cpu.pprof", "heap.pprof"} {
		if fi, err := os.Stat(filepath.Join(dir, "prof", name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}
