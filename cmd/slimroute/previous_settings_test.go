package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/slimfly"
	"slimroute/transition"
	"slimroute/verify"
)

// TestRoutePreviousAsksForTheSameRouting: over seeded cases — a Slim Fly
// (q = 4 or 5) with cables cut, routed with drawn settings; then the
// fabric with one more cable cut, or with some of the cut cables (a
// switch's or an HCA's) plugged back in; then route --previous with a
// drawn subset of the flags given, each the previous value or another —
// the run repairs only when the fabric lost cables or got switch cables
// back (not the HCA's: the previous routing, its own base, gives it no
// LID), every routing
// flag it gives has the previous value and the previous SL2VL tables name
// no VL --vls (given, else the previous) lacks (the repair may still find
// no VL left for a new route); otherwise it says it recomputes in full. Either way the tables it writes reach every LID
// without a loop or credit loop, their SL2VL names no VL beyond --vls
// (read off sl2vl.txt's text), and every HCA port has at least the
// layers asked for (given, else the previous) as LIDs (read off
// guid2lid). A quarter of the previous routings lose their recorded
// settings, as an older slimroute wrote them: then every routing flag
// given means a full recompute, and --vls left out is the VLs the old
// SL2VL tables use; a repair writes its own timings.json (an in-place repair
// left the full run's). A run may instead fail, only by naming --vls (the
// previous one too: DFSSSP needs 5 VLs on some regrown fabrics).
func TestRoutePreviousAsksForTheSameRouting(t *testing.T) {
	cases := 60
	if testing.Short() {
		cases = 12
	}
	repaired, recomputed := 0, 0
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 17))
		intact, err := slimfly.Build(slimfly.Params{Q: 4 + rng.IntN(2)})
		if err != nil {
			t.Fatal(err)
		}
		links := intact.Links()
		var cut []int // two switch cables and an HCA cable
		for _, i := range rng.Perm(len(links)) {
			sw := intact.Kind(links[i].A.Node) == fabric.Switch && intact.Kind(links[i].B.Node) == fabric.Switch
			if n := len(cut); sw && n < 2 || !sw && n == 2 {
				cut = append(cut, i)
			}
		}
		prev := map[string]string{
			"layers":   []string{"1", "2", "4"}[rng.IntN(3)],
			"deadlock": []string{"hops", "hops", "dfsssp", "auto"}[rng.IntN(4)],
			"vls":      strconv.Itoa(4 + rng.IntN(5)),
			"seed":     strconv.Itoa(1 + rng.IntN(2)),
		}
		dir := t.TempDir()
		before := without(t, intact, cut)
		prevDir := filepath.Join(dir, "prev")
		if _, err := runApp(t, append(append([]string{"route"}, flagArgs(prev)...), "--fabric", writeFabric(t, dir, "before.json", before), "-o", prevDir)...); err != nil {
			if !strings.Contains(err.Error(), "--vls") {
				t.Fatalf("case %d: the previous routing: %v", seed, err)
			}
			continue // too few VLs for the drawn scheme: no previous routing
		}
		// a routing of an older slimroute records no settings
		older := rng.IntN(4) == 0
		if older {
			stripSettings(t, filepath.Join(prevDir, "summary.json"))
		}
		now, added, hcaBack := before, false, false
		switch rng.IntN(2) {
		case 0: // one more cable cut
			more := slices.DeleteFunc(rng.Perm(len(links)), func(i int) bool { return slices.Contains(cut, i) })
			for _, i := range more {
				if intact.Kind(links[i].A.Node) == fabric.Switch && intact.Kind(links[i].B.Node) == fabric.Switch {
					now = without(t, intact, append(slices.Clone(cut), i))
					break
				}
			}
		case 1: // some of the cut cables plugged back in
			back := 1 + rng.IntN(1<<len(cut)-1) // a nonempty subset
			still := slices.DeleteFunc(slices.Clone(cut), func(i int) bool { return back>>slices.Index(cut, i)&1 == 1 })
			now, added = without(t, intact, still), true
			hcaBack = back>>2&1 == 1 // cut[2] is the HCA's
		}
		given, asked := map[string]string{}, map[string]string{}
		for _, k := range slices.Sorted(maps.Keys(prev)) { // (in the flags' names' order: the draws depend on it)
			v := prev[k]
			asked[k] = v
			switch x := rng.IntN(5); {
			case x < 2: // left out
				continue
			case x == 4 || x == 3 && k == "vls": // the switches' VLs, often corrected
				given[k] = other(rng, k, v)
			default:
				given[k] = v
			}
			asked[k] = given[k]
		}
		changed := false
		for k, v := range given {
			changed = changed || k != "vls" && (v != prev[k] || older)
		}
		if _, ok := given["vls"]; older && !ok {
			// the switches have at least the VLs the old tables use
			asked["vls"] = strconv.Itoa(maxVLOf(t, filepath.Join(prevDir, "sl2vl.txt")) + 1)
		}
		if _, ok := given["layers"]; older && !ok {
			asked["layers"] = "1" // a repair keeps the old layers, a recompute takes the default
		}
		outDir := filepath.Join(dir, "now")
		args := append(flagArgs(given), "--fabric", writeFabric(t, dir, "now.json", now), "--previous", prevDir, "-o", outDir)
		out, err := runApp(t, append([]string{"route"}, args...)...)
		name := fmt.Sprintf("case %d (previous %v, no settings recorded %v, given %v, cable added %v)", seed, prev, older, given, added)
		if err != nil {
			if !strings.Contains(err.Error(), "--vls") {
				t.Fatalf("%s: %v", name, err)
			}
			continue
		}
		vls, _ := strconv.Atoi(asked["vls"])
		tooFew := maxVLOf(t, filepath.Join(prevDir, "sl2vl.txt")) >= vls
		// a switch cable back is repaired (no route of the previous
		// routing, its own base, used it); an HCA back has no LID there
		mayRepair := !hcaBack && !changed && !tooFew // the repair itself may still find no VL left
		got := strings.Contains(out, "repaired the routing in "+prevDir)
		if got && !mayRepair || got == strings.Contains(out, "recomputing in full") {
			t.Fatalf("%s: may repair %v, got:\n%s", name, mayRepair, out)
		}
		if got {
			repaired++
			if b, err := os.ReadFile(filepath.Join(outDir, "timings.json")); err != nil || !strings.Contains(string(b), `"repair_ms"`) {
				t.Fatalf("%s: the repair's timings.json: %v %s", name, err, b)
			}
		} else {
			recomputed++
			checkAgainstPrevious(t, name, out, prevDir, outDir, before, now)
			if mayRepair {
				t.Logf("%s: recomputed:\n%s", name, out[:strings.Index(out, "\n")])
			}
		}
		if vl := maxVLOf(t, filepath.Join(outDir, "sl2vl.txt")); vl >= vls {
			t.Fatalf("%s: sl2vl.txt maps an SL to VL %d with --vls %d", name, vl, vls)
		}
		layers, _ := strconv.Atoi(asked["layers"])
		if n := fewestLIDs(t, filepath.Join(outDir, "guid2lid"), now); n < layers {
			t.Fatalf("%s: an HCA port has %d LIDs for %d layers", name, n, layers)
		}
		tab, _, err := readPrevious(outDir, now)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rep, err := verify.Check(tab, 2)
		if err != nil || !rep.Acyclic() {
			t.Fatalf("%s: the tables fail the verifier: %v %v", name, err, rep)
		}
	}
	t.Logf("%d repaired, %d recomputed", repaired, recomputed)
	if repaired == 0 || recomputed == 0 {
		t.Fatalf("the cases drew %d repairs and %d recomputes: want both", repaired, recomputed)
	}
}

// checkAgainstPrevious: a full recompute in place of a repair says, in
// its output and its summary.json, what it changes against the previous
// routing — lft.Changed and lft.SentToSwitches of the two directories'
// tables, read here onto the fabrics each was routed for.
func checkAgainstPrevious(t *testing.T, name, out, prevDir, outDir string, before, now *fabric.Fabric) {
	t.Helper()
	a, _, err := readPrevious(prevDir, before)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := readPrevious(outDir, now)
	if err != nil {
		t.Fatal(err)
	}
	want := againstPrevious{Previous: prevDir}
	want.Entries, want.PathSLs = lft.Changed(a, b)
	want.Blocks, want.SL2VL = lft.SentToSwitches(a, b)
	var sum struct {
		Against *againstPrevious `json:"against_previous"`
	}
	text, err := os.ReadFile(filepath.Join(outDir, "summary.json"))
	if err == nil {
		err = json.Unmarshal(text, &sum)
	}
	if err != nil || sum.Against == nil || sum.Against.SwitchOver == nil {
		t.Fatalf("%s: summary.json says %+v (%v):\n%s", name, sum.Against, err, out)
	}
	// the switch-over, judged by package transition on the files: onto
	// the fabric as it is now where it changed
	rep, err := transition.Check(a, b)
	if err != nil {
		if onto, _, e := readPrevious(prevDir, now); e == nil {
			rep, err = transition.Check(onto, b)
		}
	}
	if so := sum.Against.SwitchOver; (err != nil) != (so.NotJudged != "") || err == nil && so.Safe != rep.Safe() {
		t.Fatalf("%s: summary.json judges the switch-over %+v, transition %v %v", name, so, rep, err)
	}
	want.SwitchOver = sum.Against.SwitchOver
	if *sum.Against != want || !strings.Contains(out, want.String()+"\n") {
		t.Fatalf("%s: summary.json says %+v, want %+v, in the output too:\n%s", name, sum.Against, want, out)
	}
}

// stripSettings removes "settings" from a summary.json, as an older
// slimroute wrote it.
func stripSettings(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sum map[string]json.RawMessage
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	delete(sum, "settings")
	if b, err = json.Marshal(sum); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func without(t *testing.T, f *fabric.Fabric, links []int) *fabric.Fabric {
	t.Helper()
	g, err := f.Without(nil, links)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// flagArgs are the flags of settings, in name order.
func flagArgs(settings map[string]string) []string {
	var args []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range settings {
			if !yield(k) {
				return
			}
		}
	}) {
		args = append(args, "--"+k, settings[k])
	}
	return args
}

// other draws a value of flag k other than v.
func other(rng *rand.Rand, k, v string) string {
	choices := map[string][]string{
		"layers":   {"1", "2", "4", "8"},
		"deadlock": {"hops", "dfsssp", "auto"},
		"vls":      {"1", "2", "3", "4", "5", "6", "7", "8"},
		"seed":     {"1", "2", "3"},
	}[k]
	choices = slices.DeleteFunc(slices.Clone(choices), func(c string) bool { return c == v })
	return choices[rng.IntN(len(choices))]
}

// maxVLOf is the highest data VL an SL2VL file's bytes 0x(VL)(VL) name
// (15 drops the packet: no data VL).
func maxVLOf(t *testing.T, path string) int {
	t.Helper()
	vl := 0
	for d := range digitsIn(t, path, "0x") {
		v, err := strconv.ParseUint(string(d), 16, 8)
		if err != nil {
			t.Fatalf("%s: %q is no hex digit", path, d)
		}
		if v != 15 {
			vl = max(vl, int(v))
		}
	}
	return vl
}

// fewestLIDs is the fewest LIDs guid2lid gives a cabled HCA port of f.
func fewestLIDs(t *testing.T, path string, f *fabric.Fabric) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	span := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		fs := strings.Fields(line)
		if len(fs) != 3 {
			continue
		}
		lo, err1 := strconv.ParseUint(fs[1], 0, 16)
		hi, err2 := strconv.ParseUint(fs[2], 0, 16)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %q", path, line)
		}
		span[strings.ToLower(fs[0])] = int(hi - lo + 1)
	}
	fewest := 1 << 16
	for _, id := range f.IDsOf(fabric.HCA) {
		for p := 1; p <= f.Ports(id); p++ {
			port := fabric.PortRef{Node: id, Port: p}
			if _, cabled := f.Peer(port); cabled {
				fewest = min(fewest, span[f.PortGUID(port).String()])
			}
		}
	}
	return fewest
}
