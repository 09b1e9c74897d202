package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"slimroute/fabric"
	"slimroute/slimfly"
)

// outcome is what one run of slimroute did.
type outcome struct {
	status         int
	stdout, stderr string
}

// runCLI runs slimroute in-process, as main does.
func runCLI(args ...string) outcome {
	var out, errb bytes.Buffer
	status := run(append([]string{"slimroute"}, args...), &out, &errb)
	return outcome{status, out.String(), errb.String()}
}

// snapshot records every file under dir (name, mode, content hash), so a
// run that creates, changes or leaves a temporary file is seen.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h := ""
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h = fmt.Sprintf("%x", sha256.Sum256(data))
		}
		fmt.Fprintf(&b, "%s %v %s\n", strings.TrimPrefix(p, dir), info.Mode(), h)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// refused checks the contract for bad input: exit status 2, a short
// message on stderr whose first line holds every want, no help page, no
// Go internals, nothing on stdout, and the work directory (which holds
// every -o target, some of them existing files) unchanged.
func refused(t *testing.T, dir string, args []string, wants ...string) {
	t.Helper()
	before := snapshot(t, dir)
	o := runCLI(args...)
	if o.status != 2 {
		t.Errorf("%q: exit status %d, want %d\nstderr: %s", args, o.status, exitFailed, o.stderr)
		return
	}
	head, _, _ := strings.Cut(o.stderr, "\n")
	for _, w := range wants {
		if !strings.Contains(head, w) {
			t.Errorf("%q: message %q lacks %q", args, head, w)
		}
	}
	for _, bad := range []string{"goroutine ", "panic", "runtime.", "USAGE:", "NAME:", "&{", "map[", "0x0}"} {
		if strings.Contains(o.stderr, bad) {
			t.Errorf("%q: message shows %q:\n%s", args, bad, o.stderr)
		}
	}
	if len(o.stderr) > 3000 || strings.Count(o.stderr, "\n") > 25 {
		t.Errorf("%q: message of %d bytes, %d lines", args, len(o.stderr), strings.Count(o.stderr, "\n"))
	}
	if o.stdout != "" {
		t.Errorf("%q: refused but printed %q", args, o.stdout)
	}
	if after := snapshot(t, dir); after != before {
		t.Errorf("%q: the work directory changed:\nbefore:\n%safter:\n%s", args, before, after)
	}
}

// inputs writes the bad and good input files the cases use into dir.
func inputs(t *testing.T, dir string) map[string]string {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: 3})
	if err != nil {
		t.Fatal(err)
	}
	var ibnd, net bytes.Buffer
	if err := fabric.WriteIBNetDiscover(&ibnd, f); err != nil {
		t.Fatal(err)
	}
	if err := fabric.WriteIBSimNet(&net, f); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"empty":         nil,
		"binary":        {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0xff, 0xfe},
		"huge":          bytes.Repeat([]byte("Switch 8 "), 1<<18), // one 2.3 MB line
		"truncated.txt": ibnd.Bytes()[:ibnd.Len()/2],
		"found.net":     ibnd.Bytes(), // ibnetdiscover output under an ibsim name: fine
		"sf3.net":       net.Bytes(),
		"bad.toml":      []byte("kind = \"slimfly\"\n[slimfly]\nq = \n"),
		"unknown.toml":  []byte("kind = \"slimfly\"\nradix = 8\n[slimfly]\nq = 3\nqq = 4\n"),
		"existing.out":  []byte("keep me\n"),
		"ports255.json": []byte(`{"format":"slimroute-fabric/1","nodes":[{"name":"s","kind":"switch","guid":"0x100","ports":2},{"name":"h","kind":"hca","guid":"0x200","ports":255}],"links":[{"a":{"node":"s","port":1},"b":{"node":"h","port":1}}]}`),
		"noswitch.json": []byte(`{"format":"slimroute-fabric/1","nodes":[],"links":[]}`),
		"empty.ibsim":   nil,
		"pods.toml":     []byte("kind = \"clos\"\nradix = 16\n[clos]\nlevels = 3\npods = -4\n"),
		"uplinks.toml":  []byte("kind = \"clos\"\nradix = 16\n[clos]\nlevels = 3\nspine_uplinks = 100\n"),
		"units.toml":    []byte("kind = \"slimfly\"\n[slimfly]\nq = 5\n[racks]\nunits = 4294967296\n"),
	}
	paths := map[string]string{}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	paths["missing"] = filepath.Join(dir, "no-such-file")
	paths["plan"] = dir                            // holds no fabric.json
	paths["outdir"] = filepath.Join(dir, "outdir") // not created by a refused run
	return paths
}

func TestBadInputIsRefusedWithAMessage(t *testing.T) {
	dir := t.TempDir()
	p := inputs(t, dir)
	out, outdir := p["existing.out"], p["outdir"]
	cases := []struct {
		args  []string
		wants []string
	}{
		// commands and arguments
		{[]string{"bogus"}, []string{`unknown command "bogus"`, "route"}},
		{[]string{"help", "bogus"}, []string{`unknown command "bogus"`}},
		{[]string{"cabling", "bogus"}, []string{`unknown command "bogus"`, "plan, verify"}},
		{[]string{"topo", "slimfly", "--q", "5", out}, []string{"unexpected argument", "-o FILE"}},
		{[]string{"route", "--slimfly", "3", "-o", outdir, "extra"}, []string{`unexpected argument "extra"`}},
		{[]string{"lft", "from-pcap", "--slimfly", "3"}, []string{"want one capture FILE.pcap, got 0"}},
		{[]string{"lft", "from-pcap", p["missing"], "--slimfly", "3"}, []string{p["missing"], "no such file"}},
		{[]string{"lft", "from-pcap", p["empty"], "--slimfly", "3"}, []string{p["empty"]}},
		{[]string{"lft", "from-pcap", p["binary"], "--slimfly", "3"}, []string{p["binary"]}},
		{[]string{"route", "--bogus", "-o", outdir}, []string{"unknown flag -bogus", "route --help"}},
		{[]string{"route", "--slimfly", "3", "-o", outdir, "--layers"}, []string{"--layers (-L)", "needs a value"}},
		// required flags: one line, not the help page
		{[]string{"route", "--slimfly", "3"}, []string{"missing --output (-o) DIR"}},
		{[]string{"export", "--slimfly", "3"}, []string{"missing --output (-o) FILE"}},
		{[]string{"cabling", "plan", "--slimfly", "3"}, []string{"missing --output (-o) DIR"}},
		{[]string{"cabling", "verify", "--plan", p["plan"]}, []string{"missing --discovered FILE"}},
		{[]string{"path", "--slimfly", "3", "--to", "x"}, []string{"missing --from"}},
		// which fabric
		{[]string{"topo", "stats"}, []string{"name one fabric"}},
		{[]string{"topo", "stats", "--slimfly", "3", "--fabric", p["sf3.net"]}, []string{"name one fabric"}},
		{[]string{"topo", "stats", "--fabric", p["sf3.net"], "--in-format", "xml"}, []string{`--in-format "xml"`, "ibsim|ibnetdiscover|json|opensm-subnet"}},
		// parameters that do not go together
		{[]string{"route", "--slimfly", "3", "--lmc", "1", "--layers", "4", "-o", outdir}, []string{"--lmc 1", "--layers 4", "--lmc 2 or more", "--layers 2 or fewer"}},
		{[]string{"route", "--slimfly", "3", "--min-len", "3", "-o", outdir}, []string{"set both or neither"}},
		{[]string{"route", "--slimfly", "3", "--lids-from-fabric", "-o", outdir}, []string{"--lids-from-fabric", "give --fabric FILE"}},
		{[]string{"topo", "slimfly", "--q", "6", "-o", out}, []string{"q=6 has no Slim Fly"}},
		{[]string{"topo", "slimfly", "--q", "5", "--format", "xml", "-o", out}, []string{`--format "xml"`}},
		{[]string{"export", "--slimfly", "3", "--format", "erf", "-o", out}, []string{`--format "erf": want pcap`}},
		{[]string{"route", "--slimfly", "3", "--deadlock", "lash", "-o", outdir}, []string{"want hops, dfsssp, auto or none"}},
		{[]string{"route", "--config", "../../testdata/specs/fattree-3level.toml", "--deadlock", "hops", "--vls", "3", "-o", outdir}, []string{"(--vls 4)"}},
		{[]string{"cabling", "plan", "--slimfly", "3", "--rate", "fast", "-o", outdir}, []string{"--rate"}},
		{[]string{"path", "--slimfly", "3", "--from", "nobody", "--to", "hca-0-0-0-1"}, []string{`--from "nobody"`}},
		// an output directory that is a file
		{[]string{"route", "--slimfly", "3", "-o", out}, []string{"-o " + out, "is not a directory", "name a directory"}},
		{[]string{"cabling", "plan", "--slimfly", "3", "-o", out}, []string{"-o " + out, "is not a directory", "name a directory"}},
		{[]string{"demo", "-q", "3", "-o", out}, []string{"-o " + out, "is not a directory", "name a directory"}},
		{[]string{"analyze", "--slimfly", "3", "--permutations", "1", "--svg", out}, []string{"--svg " + out, "is not a directory", "name a directory"}},
		{[]string{"route", "--slimfly", "3", "--profile", out, "-o", outdir}, []string{"--profile " + out, "is not a directory", "name a directory"}},
		{[]string{"export", "--slimfly", "3", "--sm", "nobody", "-o", out}, []string{`--sm "nobody"`}},
		// spec files
		{[]string{"topo", "--config", p["missing"]}, []string{p["missing"], "no such file"}},
		{[]string{"topo", "--config", p["bad.toml"]}, []string{p["bad.toml"]}},
		{[]string{"topo", "--config", p["unknown.toml"]}, []string{p["unknown.toml"], "qq"}},
		{[]string{"topo", "--config", p["binary"]}, []string{p["binary"]}},
		{[]string{"topo", "stats", "--fabric", p["empty.ibsim"]}, []string{p["empty.ibsim"], "is this an ibsim net file?"}},
		{[]string{"topo", "--config", p["pods.toml"]}, []string{p["pods.toml"], "pods=-4", "want 0 (the default) or more"}},
		{[]string{"topo", "--config", p["uplinks.toml"]}, []string{p["uplinks.toml"], "spine_uplinks=100", "want 1..15"}},
		{[]string{"topo", "--config", p["units.toml"]}, []string{p["units.toml"], "racks.units = 4294967296", "1..100"}},
		// a directory where a file is read
		{[]string{"topo", "stats", "--fabric", dir}, []string{dir + " is a directory; name a file"}},
		{[]string{"topo", "--config", dir}, []string{dir + " is a directory; name a file"}},
		{[]string{"verify", "--slimfly", "3", "--lfts", dir}, []string{dir + " is a directory; name a file"}},
		{[]string{"topo", "clos", "--levels", "3", "--radix", "8", "--spine-uplinks", "8", "-o", out}, []string{"--spine-uplinks 8", "want 1..7"}},
	}
	// every command that reads --fabric, on every kind of broken file
	readers := [][]string{
		{"topo", "-o", out}, {"topo", "stats"}, {"route", "-o", outdir}, {"analyze"},
		{"path", "--from", "a", "--to", "b"}, {"export", "-o", out}, {"cabling", "plan", "-o", outdir},
	}
	for _, r := range readers {
		cmd, flags := r, []string(nil)
		for i, a := range r {
			if strings.HasPrefix(a, "-") {
				cmd, flags = r[:i], r[i:]
				break
			}
		}
		with := func(extra ...string) []string {
			return append(append(append([]string(nil), cmd...), extra...), flags...)
		}
		cases = append(cases,
			struct{ args, wants []string }{with("--fabric", p["missing"]), []string{p["missing"], "no such file"}},
			struct{ args, wants []string }{with("--fabric", p["empty"]), []string{p["empty"], "no Switch"}},
			struct{ args, wants []string }{with("--fabric", p["binary"]), []string{p["binary"], "binary content"}},
			struct{ args, wants []string }{with("--fabric", p["huge"]), []string{p["huge"] + ":1:", "line longer than"}},
			struct{ args, wants []string }{with("--fabric", p["truncated.txt"]), []string{p["truncated.txt"] + ":"}},
			struct{ args, wants []string }{with("--fabric", p["sf3.net"], "--in-format", "json"), []string{p["sf3.net"]}},
			struct{ args, wants []string }{with("--fabric", p["ports255.json"]), []string{p["ports255.json"], `("h")`, "ports 255", "1..254"}},
			struct{ args, wants []string }{with("--fabric", p["noswitch.json"]), []string{p["noswitch.json"], "no switch"}},
		)
	}
	for _, name := range []string{"empty", "binary", "truncated.txt", "missing"} {
		cases = append(cases,
			struct{ args, wants []string }{[]string{"cabling", "verify", "--plan", dir, "--discovered", p[name]}, []string{"could not check"}},
			struct{ args, wants []string }{[]string{"analyze", "--slimfly", "3", "--lfts", p[name]}, []string{p[name]}},
		)
	}
	for _, c := range cases {
		refused(t, dir, c.args, c.wants...)
	}
}

// numberFlag is one int, float or uint flag of one command.
type numberFlag struct {
	path []string
	cmd  *cli.Command
	flag cli.Flag
}

// numberFlags walks the app's commands and returns every number flag, so
// that a new flag is covered without touching this test.
func numberFlags(cmds []*cli.Command, path []string) []numberFlag {
	var out []numberFlag
	for _, c := range cmds {
		p := append(append([]string(nil), path...), c.Name)
		for _, f := range c.Flags {
			switch f.(type) {
			case *cli.IntFlag, *cli.Float64Flag, *cli.Uint64Flag:
				out = append(out, numberFlag{p, c, f})
			}
		}
		out = append(out, numberFlags(c.Subcommands, p)...)
	}
	return out
}

// requiredArgs supplies the required flags and positional argument of a
// command with paths in dir (1 for a number), so that only the flag under
// test is wrong.
func requiredArgs(c *cli.Command, dir string) []string {
	var args []string
	for _, f := range c.Flags {
		d, ok := f.(cli.DocGenerationFlag)
		switch _, isInt := f.(*cli.IntFlag); {
		case !ok || !strings.HasSuffix(d.GetUsage(), " (required)"):
		case isInt:
			args = append(args, "--"+f.Names()[0], "1") // place --nodes
		default:
			args = append(args, "--"+f.Names()[0], filepath.Join(dir, f.Names()[0]))
		}
	}
	if c.ArgsUsage != "" {
		args = append(args, filepath.Join(dir, "arg"))
	}
	return args
}

// Every number flag of every command at 0, −1, its bounds ±1, 2^63 (and
// NaN, ±Inf for floats): a value outside the flag's range exits 2 with a
// message naming the flag and what it accepts, before any work; a value
// inside passes the range check. Every default lies in its range.
func TestEveryNumberFlagIsRangeChecked(t *testing.T) {
	app := newApp(nil, nil)
	prepareCommands(app.Commands, nil)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "output"), []byte("keep me\n"), 0o644)
	flags := numberFlags(app.Commands, nil)
	if len(flags) < 40 {
		t.Fatalf("found only %d number flags", len(flags))
	}
	for _, nf := range flags {
		name := nf.flag.Names()[0]
		if _, isUint := nf.flag.(*cli.Uint64Flag); isUint {
			for _, v := range []string{"-1", "18446744073709551616", "x"} {
				args := append(append(append([]string(nil), nf.path...), requiredArgs(nf.cmd, dir)...), "--"+name, v)
				want := "not an unsigned integer"
				if v == "18446744073709551616" {
					want = "out of range"
				}
				refused(t, dir, args, "--"+name+" "+v, want)
			}
			continue
		}
		r, ok := rangeOf(nf.path, nf.flag)
		if !ok {
			t.Errorf("%v --%s has no range in numberRanges", nf.path, name)
			continue
		}
		// a zero default is "not given" (help shows none); others must be valid
		if def := defaultOf(nf.flag); def != 0 && r.check(def) != "" {
			t.Errorf("%v --%s: default %v is %s (range %v..%v)", nf.path, name, def, r.check(def), r.min, r.max)
		}
		values := []string{"0", "-1", num(r.min - 1), num(r.min), num(r.min + 1), num(r.max - 1), num(r.max), num(r.max + 1), "9223372036854775808", "-9223372036854775809", "1.5", "x"}
		if _, isFloat := nf.flag.(*cli.Float64Flag); isFloat {
			values = append(values, "NaN", "Inf", "-Inf", "1e309")
		}
		for _, v := range values {
			x, err := strconv.ParseFloat(v, 64)
			_, isInt := nf.flag.(*cli.IntFlag)
			parses := err == nil && (!isInt || (x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64))
			if parses && r.check(x) == "" {
				continue // in range: accepted by the check (and may be real work to run)
			}
			args := append(append(append([]string(nil), nf.path...), requiredArgs(nf.cmd, dir)...), "--"+name, v)
			refused(t, dir, args, "--"+name+" ", "want ")
		}
	}
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func defaultOf(f cli.Flag) float64 {
	switch f := f.(type) {
	case *cli.IntFlag:
		return float64(f.Value)
	case *cli.Float64Flag:
		return f.Value
	}
	return 0
}

// help, in every spelling, prints help and exits 0.
func TestHelpInEverySpelling(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"help", "route"}, {"route", "help"}, {"route", "--help"}, {"help", "topo", "slimfly"}, {"cabling", "help"}, {"lft", "from-pcap", "-h"}} {
		o := runCLI(args...)
		if o.status != 0 || !strings.Contains(o.stdout, "USAGE:") || o.stderr != "" {
			t.Errorf("%q: status %d, stdout %.80q, stderr %q", args, o.status, o.stdout, o.stderr)
		}
	}
}

// Advice in an error works when followed: each fix a message proposes is
// run and succeeds.
func TestAdviceInErrorsWorks(t *testing.T) {
	dir := t.TempDir()
	ring := filepath.Join(dir, "ring7.net") // diameter 3: layers ≥ 1 get 4-hop paths
	var b strings.Builder
	for i := 0; i < 7; i++ {
		fmt.Fprintf(&b, "Switch 4 \"s%d\"\n[1] \"s%d\"[2]\n[2] \"s%d\"[1]\n[3] \"h%d\"[1]\n\n", i, (i+1)%7, (i+6)%7, i)
	}
	for i := 0; i < 7; i++ {
		fmt.Fprintf(&b, "Hca 1 \"h%d\"\n[1] \"s%d\"[3]\n\n", i, i)
	}
	os.WriteFile(ring, []byte(b.String()), 0o644)
	json := filepath.Join(dir, "sf3.net")
	if o := runCLI("topo", "slimfly", "--q", "3", "-f", "json", "-o", json); o.status != 0 {
		t.Fatal(o.stderr)
	}
	// LIDs an SM assigned with LMC 1, the description giving no lmc: four
	// layers need them aligned to 4, two do with them as they are
	sf, err := slimfly.Build(slimfly.Params{Q: 3})
	if err != nil {
		t.Fatal(err)
	}
	lmc1 := filepath.Join(dir, "lmc1.json")
	text := strings.ReplaceAll(string(fabricJSON(t, withLIDs(t, sf, 1))), `"lmc": 1`, `"lmc": 0`)
	os.WriteFile(lmc1, []byte(text), 0o644)
	// the fat tree's four-hop routes need the hop-indexed scheme's fourth VL
	fattree := []string{"route", "--config", "../../testdata/specs/fattree-3level.toml", "--deadlock", "hops", "--vls", "3"}
	for _, c := range []struct {
		args   []string
		advice [][]string // each fix, as the message spells it
	}{
		{fattree, [][]string{{"--vls", "4"}}},
		{[]string{"route", "--fabric", ring, "--deadlock", "hops", "--vls", "3"}, [][]string{{"--vls", "4"}}},
		{[]string{"route", "--slimfly", "3", "--lmc", "1", "--layers", "4"}, [][]string{{"--lmc", "2"}, {"--layers", "2"}}},
		{[]string{"topo", "stats", "--fabric", json, "--in-format", "ibsim"}, [][]string{{"--in-format", "json"}}},
		{[]string{"route", "--fabric", lmc1, "--lids-from-fabric", "--layers", "4"}, [][]string{{"--layers", "2"}}},
	} {
		o := runCLI(append(c.args, "-o", filepath.Join(dir, "out"))...)
		if c.args[1] == "stats" {
			o = runCLI(c.args...)
		}
		if o.status != 2 {
			t.Fatalf("%q: status %d, want a refusal", c.args, o.status)
		}
		for _, fix := range c.advice {
			spelled := strings.Join(fix, " ")
			if fix[0] == "--deadlock" {
				spelled = "--deadlock auto or dfsssp"
			}
			if !strings.Contains(o.stderr, spelled) {
				t.Errorf("%q: the message does not propose %q:\n%s", c.args, spelled, o.stderr)
				continue
			}
			args := append(append([]string(nil), c.args...), fix...)
			if c.args[1] != "stats" {
				args = append(args, "-o", filepath.Join(dir, "out"))
			}
			// the flag the advice replaces is given again, later: the last wins
			if f := runCLI(args...); f.status != 0 {
				t.Errorf("%q (following the advice of %q) failed:\n%s", args, c.args, f.stderr)
			}
		}
	}
}

// Flags may come before or after a command's argument, in any order: the
// capture is read the same way.
func TestFlagsMayFollowArguments(t *testing.T) {
	dir := t.TempDir()
	pcap := filepath.Join(dir, "lfts.pcap")
	if o := runCLI("export", "--slimfly", "3", "-o", pcap); o.status != 0 {
		t.Fatal(o.stderr)
	}
	want := runCLI("lft", "from-pcap", "--slimfly", "3", "--sm", "sw-0-0-0", pcap)
	if want.status != 0 || want.stdout == "" {
		t.Fatal(want.stderr)
	}
	for _, args := range [][]string{
		{"lft", "from-pcap", pcap, "--slimfly", "3", "--sm", "sw-0-0-0"},
		{"lft", "from-pcap", "--sm=sw-0-0-0", pcap, "--slimfly", "3"},
		{"lft", "from-pcap", "--slimfly", "3", "--sm", "sw-0-0-0", "--", pcap},
	} {
		if got := runCLI(args...); got != want {
			t.Errorf("%q: status %d, %d bytes (want %d), stderr %q", args, got.status, len(got.stdout), len(want.stdout), got.stderr)
		}
	}
}

// TestVerifyStreamsTheTables: verify --lfts given a sparse file of 8 GiB
// (a disk image named by mistake) refuses it at its first line, having
// read no more than a line's limit, instead of asking for a buffer of the
// file's size.
func TestVerifyStreamsTheTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 8<<30); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, stderr, err := runAppErr("verify", "--slimfly", "3", "--lfts", path)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(stderr, path+":1: line longer than") {
		t.Fatalf("want the file refused at line 1: %v %s", err, stderr)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Fatalf("verify allocated %d MiB to refuse it", n>>20)
	}
}
