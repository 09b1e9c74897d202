package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

func runApp(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := runArgs(newApp(&out, &errb), append([]string{"slimroute"}, args...))
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
	if err != nil {
		t.Fatal(err)
	}
	// q=5 is the Hoffman–Singleton graph: degree 7, diameter 2 and
	// 1 + 7 + 7·6 = 50 switches, the Moore bound itself
	if got := statValue(t, text, "Moore bound (degree 7, diameter 2)"); got != fmt.Sprint(1+7+7*6) {
		t.Errorf("Moore bound %s, want 50\n%s", got, text)
	}
	if got := statValue(t, text, "Moore-bound efficiency"); got != "100.0%" {
		t.Errorf("Moore-bound efficiency %s, want 100.0%%\n%s", got, text)
	}
}

// statValue returns what follows label on its line of a `topo stats` table,
// whatever the column padding.
func statValue(t *testing.T, text, label string) string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, label); ok && strings.HasPrefix(rest, " ") {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("no %q line in\n%s", label, text)
	return ""
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
	// the demo is the q=5 Slim Fly: 2q² switches with ⌈k′/2⌉ = 4 HCAs each,
	// k′ = (3q − δ)/2 = 7
	if statValue(t, out, "switches") != fmt.Sprint(2*5*5) || statValue(t, out, "HCAs") != fmt.Sprint(2*5*5*4) {
		t.Errorf("demo output lacks the q=5 counts (50 switches, 200 HCAs):\n%s", out)
	}
	for _, f := range fabric.ReadFormats() {
		if !slices.Contains(fabric.WriteFormats(), f) {
			continue // read only: OpenSM writes it
		}
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
	for _, name := range []string{"path-lengths.svg", "link-loads.svg", "disjoint-paths.svg", "shift-loads.svg"} {
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
		if !strings.Contains(out, "no CDG cycle") {
			t.Fatalf("route output:\n%s", out)
		}
		// the summary's counts are those of the files: one VL per hop of
		// the longest route (3 on q=5, diameter 2 plus one for
		// the almost-minimal layers), and the spare VL a repair would
		// open (SL 5 on VL 3), as many SLs as path-sl.txt uses
		var vls, sls int
		for _, line := range strings.Split(out, "\n") {
			if i := strings.Index(line, "uses "); i >= 0 && strings.HasPrefix(line, "deadlock scheme hops") {
				fmt.Sscanf(line[i:], "uses %d VLs and %d SLs", &vls, &sls)
			}
		}
		spare := strings.Contains(out, fmt.Sprintf("; SL %d on VL %d programmed spare", sls, vls))
		if want := usedDigits(t, filepath.Join(dir, "sl2vl.txt"), "0x"); vls != 3 || !spare || vls+1 != want {
			t.Errorf("route says %d VLs and a spare: %v; sl2vl.txt uses %d, the hop scheme on 3-hop routes 3 and the spare\n%s", vls, spare, want, out)
		}
		if want := usedDigits(t, filepath.Join(dir, "path-sl.txt"), ""); sls != want || sls < 1 || sls > 16 {
			t.Errorf("route says %d SLs; path-sl.txt uses %d\n%s", sls, want, out)
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
		{[]string{"route", "--slimfly", "5", "--deadlock", "dfsssp", "--vls", "2", "-o", t.TempDir()}, "VLs on this routing, 2 allowed"},
		{[]string{"route", "--slimfly", "5", "--deadlock", "hops", "--vls", "2", "-o", t.TempDir()}, "needs 3 VLs"},
		{[]string{"route", "--slimfly", "5", "--deadlock", "lash", "-o", t.TempDir()}, "want hops, dfsssp, auto or none"},
	} {
		_, err := runApp(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
	// DFSSSP's count is the one that works
	_, err := runApp(t, "route", "--slimfly", "5", "--deadlock", "dfsssp", "--vls", "2", "-o", t.TempDir())
	m := regexp.MustCompile(`DFSSSP needs (\d+) VLs on this routing, 2 allowed.*\(--vls (\d+)\)`).FindStringSubmatch(fmt.Sprint(err))
	if m == nil || m[1] != m[2] || len(m[1]) == 1 && m[1] <= "2" {
		t.Errorf("dfsssp on 2 VLs: %v, want the VLs it needs (more than 2) and the flag that gives them", err)
	} else if _, err := runApp(t, "route", "--slimfly", "5", "--deadlock", "dfsssp", "--vls", m[1], "-o", t.TempDir()); err != nil {
		t.Errorf("dfsssp on the %s VLs its error asked for: %v", m[1], err)
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
	want, err := os.ReadFile(filepath.Join(dir, "opensm-lfts.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// the same writer prints both: the tables the packets program are
	// route's to the byte
	if back != string(want) {
		t.Fatalf("tables from the pcap (%d bytes) differ from route's file (%d bytes)", len(back), len(want))
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

// TestVerifyJudgesRoutesFiles runs verify on what route wrote: exit 0, and
// exit 1 with --vls no higher than the highest VL a path takes; the
// same tables with every path SL 0 hold a credit loop: exit 1, the cycle
// named; a file that is not what its flag says: exit 2, file:line named.
func TestVerifyJudgesRoutesFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := runApp(t, "route", "--slimfly", "5", "--deadlock", "dfsssp", "-o", dir); err != nil {
		t.Fatal(err)
	}
	file := func(name string) string { return filepath.Join(dir, name) }
	out, err := runApp(t, "verify", "--slimfly", "5", "--lfts", file("opensm-lfts.txt"), "--path-sl", file("path-sl.txt"), "--sl2vl", file("sl2vl.txt"))
	if err != nil || !strings.Contains(out, "verified: every LID reachable") {
		t.Fatalf("route's own files: %v\n%s", err, out)
	}
	// --vls: the highest VL a path takes must be below it
	out, err = runApp(t, "verify", "--slimfly", "5", "--lfts", file("opensm-lfts.txt"), "--path-sl", file("path-sl.txt"), "--sl2vl", file("sl2vl.txt"), "--json")
	var rep struct {
		MaxVL int `json:"max_vl"`
	}
	if err != nil {
		t.Fatalf("verify --json: %v\n%s", err, out)
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.MaxVL < 1 {
		t.Fatalf("verify --json: max_vl %d (%v)\n%s", rep.MaxVL, err, out)
	}
	if out, err := runApp(t, "verify", "--slimfly", "5", "--lfts", file("opensm-lfts.txt"), "--path-sl", file("path-sl.txt"), "--sl2vl", file("sl2vl.txt"), "--vls", fmt.Sprint(rep.MaxVL+1)); err != nil {
		t.Fatalf("--vls %d, paths up to VL %d: %v\n%s", rep.MaxVL+1, rep.MaxVL, err, out)
	}
	out, err = runApp(t, "verify", "--slimfly", "5", "--lfts", file("opensm-lfts.txt"), "--path-sl", file("path-sl.txt"), "--sl2vl", file("sl2vl.txt"), "--vls", fmt.Sprint(rep.MaxVL))
	if status, ok := err.(exitStatus); !ok || status != 1 || !strings.Contains(out, fmt.Sprintf("paths take VL %d, but the switches offer %d data VLs", rep.MaxVL, rep.MaxVL)) {
		t.Fatalf("--vls %d, paths up to VL %d: %v\n%s", rep.MaxVL, rep.MaxVL, err, out)
	}
	psl, _ := os.ReadFile(file("path-sl.txt"))
	zero := regexp.MustCompile(`(?m)^(0x[0-9a-f]+ 0x0001 )([0-9a-f]+)$`).ReplaceAllStringFunc(string(psl), func(l string) string {
		i := strings.LastIndex(l, " ")
		return l[:i+1] + strings.Repeat("0", len(l)-i-1)
	})
	os.WriteFile(file("zero-sl.txt"), []byte(zero), 0o644)
	out, err = runApp(t, "verify", "--slimfly", "5", "--lfts", file("opensm-lfts.txt"), "--path-sl", file("zero-sl.txt"), "--sl2vl", file("sl2vl.txt"))
	if status, ok := err.(exitStatus); !ok || status != 1 || !strings.Contains(out, "CREDIT LOOP") || !strings.Contains(out, "-> sw-") {
		t.Fatalf("every SL 0: %v\n%s", err, out)
	}
	_, err = runApp(t, "verify", "--slimfly", "5", "--lfts", file("opensm-lfts.txt"), "--path-sl", file("sl2vl.txt"))
	if status, ok := err.(exitStatus); !ok || status != 2 {
		t.Fatalf("an SL2VL file given as path SLs: %v", err)
	}
}

// usedDigits counts the distinct hex digits in the table columns of an
// SL/VL file: after the first "0x" on each line (the GUID), those of the
// fields starting with prefix (SL2VL bytes), or with prefix "" the digits of
// the last field (a path-SL row, one SL per DLID).
func usedDigits(t *testing.T, path, prefix string) int {
	t.Helper()
	return len(digitsIn(t, path, prefix))
}

// digitsIn is the set of those digits.
func digitsIn(t *testing.T, path, prefix string) map[rune]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[rune]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		fs := strings.Fields(line)
		if len(fs) < 3 || strings.HasPrefix(line, "#") {
			continue
		}
		if prefix == "" {
			fs = fs[len(fs)-1:]
		} else {
			fs = fs[1:]
		}
		for _, f := range fs {
			if v, ok := strings.CutPrefix(f, prefix); ok && (prefix != "" || len(fs) == 1) {
				for _, d := range v {
					seen[d] = true
				}
			}
		}
	}
	return seen
}

// TestDemoProgramsWithThePlugin: the way demo offers to program a routing
// carries its SLs — the plugin — and OpenSM's file engine, which loads the
// LFTs alone, is offered only for a routing deadlock-free on one VL.
func TestDemoProgramsWithThePlugin(t *testing.T) {
	sf, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := clos.Build(clos.Params{Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	oneVLSeen := false
	for _, c := range []struct {
		f      *fabric.Fabric
		scheme string
	}{{sf, "auto"}, {cl, "auto"}, {cl, "dfsssp"}} {
		res, err := pipeline.Run(c.f, pipeline.Config{LMC: -1, Deadlock: c.scheme})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		printProgramIt(&b, res, "out/route")
		out := b.String()
		oneVL := res.Assignment.Needed <= 1
		oneVLSeen = oneVLSeen || oneVL
		if !strings.Contains(out, "event_plugin_name slimroute") || strings.Contains(out, "opensm -R file -U") != oneVL {
			t.Errorf("%d VLs needed:\n%s", res.Assignment.Needed, out)
		}
	}
	if !oneVLSeen {
		t.Error("no case routed on one VL: the file engine's branch went untested")
	}
}

// -q and --slimfly name the same Slim Fly in every command that builds
// one, and --radix and --endpoints shape it wherever --slimfly is taken;
// given with another fabric they are refused, and dropping them (the
// advice) works.
func TestQAndSlimflyAreOneFlag(t *testing.T) {
	for _, cmd := range [][]string{{"topo", "stats"}, {"analyze", "--permutations", "2"}, {"topo", "slimfly"}} {
		a, err := runApp(t, append(cmd, "-q", "3")...)
		if err != nil {
			t.Fatal(err)
		}
		b, err := runApp(t, append(cmd, "--slimfly", "3")...)
		if err != nil || a != b {
			t.Errorf("%v: -q 3 and --slimfly 3 differ (%v)", cmd, err)
		}
	}
	out, err := runApp(t, "topo", "slimfly", "--slimfly", "3", "--radix", "12", "-f", "json")
	if err != nil {
		t.Fatal(err)
	}
	shaped, err := runApp(t, "topo", "stats", "--slimfly", "3", "--radix", "12", "--endpoints", "2")
	if err != nil || !strings.Contains(out, `"ports": 12`) || statValue(t, shaped, "HCAs") != "36" {
		t.Errorf("--radix 12 --endpoints 2 did not shape the q=3 Slim Fly (%v):\n%s", err, shaped)
	}
	dir := t.TempDir()
	net := filepath.Join(dir, "sf3.net")
	if _, err := runApp(t, "topo", "slimfly", "-q", "3", "-o", net); err != nil {
		t.Fatal(err)
	}
	if _, err := runApp(t, "topo", "stats", "--fabric", net, "--radix", "12"); err == nil || !strings.Contains(err.Error(), "drop --radix") {
		t.Errorf("--radix with --fabric: %v", err)
	}
	if _, err := runApp(t, "topo", "stats", "--fabric", net); err != nil {
		t.Errorf("the advice followed: %v", err)
	}
}
