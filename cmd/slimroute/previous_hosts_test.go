package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/lft"
	"slimroute/slimfly"
	"slimroute/verify"
)

// TestRoutePreviousKeepsLIDsAndRoutesNewHosts: drawn fabrics (Slim Fly
// q = 5, a two-level Clos) routed while a few hosts are down, then routed
// with --previous once some are up. The hosts' return is a repair: the
// new hosts are named in summary.json, every port keeps its LIDs
// (guid2lid, read here), every entry toward those LIDs stays, and the
// written tables pass the verifier. A full recompute after it (another
// seed) keeps every port's LIDs too. Red with the LIDs assigned afresh
// (a host early in GUID order shifts every LID after it) and with new
// hosts left to a full recompute.
func TestRoutePreviousKeepsLIDsAndRoutesNewHosts(t *testing.T) {
	for seed := range uint64(4) {
		var all *fabric.Fabric
		var err error
		if seed%2 == 0 {
			all, err = slimfly.Build(slimfly.Params{Q: 5})
		} else {
			all, err = clos.Build(clos.Params{Radix: 8})
		}
		if err != nil {
			t.Fatal(err)
		}
		before, after, back, err := failures.LateHosts(all, 5, seed)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
		if _, err := runApp(t, "route", "--fabric", writeFabric(t, dir, "before.json", before), "--vls", "4", "-o", a); err != nil {
			t.Fatal(err)
		}
		afterFile := writeFabric(t, dir, "after.json", after)
		out, err := runApp(t, "route", "--fabric", afterFile, "--previous", a, "-o", b)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("seed %d (%d hosts back)", seed, len(back))
		if !strings.Contains(out, "repaired the routing in") {
			t.Fatalf("%s: no repair:\n%s", name, out)
		}
		var sum repairSummary
		raw, err := os.ReadFile(filepath.Join(b, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &sum); err != nil {
			t.Fatal(err)
		}
		if len(sum.Repair.HostsAdded) != len(back) {
			t.Fatalf("%s: hosts_added %v", name, sum.Repair.HostsAdded)
		}
		lidsKept(t, name, a, b)
		prev, _, err := readPrevious(a, before)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := readPrevious(b, after)
		if err != nil {
			t.Fatal(err)
		}
		if rep, err := verify.Check(got, 2); err != nil || !rep.Acyclic() {
			t.Fatalf("%s: the verifier: %v", name, err)
		}
		for _, sw := range prev.Switches() {
			gsw, _ := after.NodeByGUID(before.GUID(sw))
			for _, pl := range prev.LIDs().Ports() {
				for l := pl.Base; l <= pl.Top(); l++ {
					if prev.Port(sw, l) != got.Port(gsw, l) {
						t.Fatalf("%s: %s toward LID 0x%x changed", name, before.Name(sw), l)
					}
				}
			}
		}
		if _, err := runApp(t, "route", "--fabric", afterFile, "--previous", b, "--seed", "9", "-o", c); err != nil {
			t.Fatal(err)
		}
		lidsKept(t, name+", recomputed in full", b, c)
	}
}

// lidsKept fails unless every port GUID of from's guid2lid that to's
// holds has the same LIDs there, and no LID is held twice there.
func lidsKept(t *testing.T, name, from, to string) {
	t.Helper()
	was, now := guid2lid(t, from), guid2lid(t, to)
	held := map[int]string{}
	for g, r := range now {
		for l := r[0]; l <= r[1]; l++ {
			if o, ok := held[l]; ok {
				t.Fatalf("%s: LID 0x%x held by %s and %s", name, l, o, g)
			}
			held[l] = g
		}
	}
	for g, r := range was {
		if _, still := now[g]; still && now[g] != r {
			t.Fatalf("%s: port %s: LIDs %x in %s, %x in %s", name, g, now[g], to, r, from)
		}
	}
}

// guid2lid reads dir's guid2lid: port GUID -> [min, max] LID.
func guid2lid(t *testing.T, dir string) map[string][2]int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "guid2lid"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][2]int{}
	for _, line := range strings.Split(string(raw), "\n") {
		var g string
		var lo, hi int
		if _, err := fmt.Sscanf(line, "%s 0x%x 0x%x", &g, &lo, &hi); err == nil {
			m[g] = [2]int{lo, hi}
		}
	}
	if len(m) == 0 {
		t.Fatalf("%s/guid2lid holds no LIDs", dir)
	}
	return m
}

// TestRoutePreviousNewHostsBesideOtherChanges: new hosts in the same step
// as other changes, in a chain of repairs on q = 5 and a Clos: a cable
// back (its routes returning to the base routing's) while a host is new,
// and a host gone while another is new. Each is a repair naming the new
// host, judged from the files: the verifier accepts them, every port
// present before keeps its LIDs, and the new host takes none of the gone
// host's (OpenSM keeps those reserved in its cache). Red with the base
// routing left without the new host (route then wrote no path-SL file)
// and with the gone host's LIDs free for the taking.
func TestRoutePreviousNewHostsBesideOtherChanges(t *testing.T) {
	for i, build := range []func() (*fabric.Fabric, error){
		func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 5}) },
		func() (*fabric.Fabric, error) { return clos.Build(clos.Params{Radix: 8}) },
	} {
		all, err := build()
		if err != nil {
			t.Fatal(err)
		}
		hcas := all.IDsOf(fabric.HCA)
		x, y, z := hcas[1], hcas[len(hcas)/2], hcas[len(hcas)-2]
		cable := failures.InterSwitch(all)[3]
		dir := t.TempDir()
		step := func(name string, drop []fabric.NodeID, cut []int, prev, out string) string {
			t.Helper()
			f, err := all.Without(drop, cut)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"route", "--fabric", writeFabric(t, dir, name+".json", f), "--vls", "4", "-o", filepath.Join(dir, out)}
			if prev != "" {
				args = append(args, "--previous", filepath.Join(dir, prev))
			}
			text, err := runApp(t, args...)
			if err != nil {
				t.Fatalf("design %d, %s: %v\n%s", i, name, err, text)
			}
			got, _, err := readPrevious(filepath.Join(dir, out), f)
			if err != nil {
				t.Fatal(err)
			}
			if rep, err := verify.Check(got, 2); err != nil || !rep.Acyclic() {
				t.Fatalf("design %d, %s: the verifier: %v", i, name, err)
			}
			return text
		}
		step("a", []fabric.NodeID{x, y}, nil, "", "a")
		step("b", []fabric.NodeID{x, y}, []int{cable}, "a", "b")
		out := step("c", []fabric.NodeID{y}, nil, "b", "c")
		if !strings.Contains(out, "repaired the routing in") || !strings.Contains(out, "HCAs new to the routing or recabled (1): "+all.Name(x)) {
			t.Fatalf("design %d: the cable back and %s new: no repair naming it\n%s", i, all.Name(x), out)
		}
		lidsKept(t, fmt.Sprintf("design %d, the cable back", i), filepath.Join(dir, "b"), filepath.Join(dir, "c"))
		out = step("d", []fabric.NodeID{z}, nil, "c", "d")
		if !strings.Contains(out, "repaired the routing in") || !strings.Contains(out, "HCAs new to the routing or recabled (1): "+all.Name(y)) {
			t.Fatalf("design %d: %s gone and %s new: no repair naming it\n%s", i, all.Name(z), all.Name(y), out)
		}
		was, now := guid2lid(t, filepath.Join(dir, "c")), guid2lid(t, filepath.Join(dir, "d"))
		gone := was[all.PortGUID(fabric.PortRef{Node: z, Port: 1}).String()]
		mine := now[all.PortGUID(fabric.PortRef{Node: y, Port: 1}).String()]
		if mine[0] <= gone[1] && gone[0] <= mine[1] {
			t.Fatalf("design %d: new %s took LIDs %x of %s, gone", i, all.Name(y), mine, all.Name(z))
		}
		// two hosts on different switches swap cables: both recabled, at their LIDs
		swapped, err := failures.SwapHosts(all, hcas[0], hcas[len(hcas)-1])
		if err != nil {
			t.Fatal(err)
		}
		sw, err := swapped.Without([]fabric.NodeID{z}, nil)
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"route", "--fabric", writeFabric(t, dir, "e.json", sw), "--previous", filepath.Join(dir, "d"), "-o", filepath.Join(dir, "e")}
		out, err = runApp(t, args...)
		if err != nil || !strings.Contains(out, "repaired the routing in") || !strings.Contains(out, "HCAs new to the routing or recabled (2)") {
			t.Fatalf("design %d: two hosts swapped: %v\n%s", i, err, out)
		}
		lidsKept(t, fmt.Sprintf("design %d, two hosts swapped", i), filepath.Join(dir, "d"), filepath.Join(dir, "e"))
		got, _, err := readPrevious(filepath.Join(dir, "e"), sw)
		if err != nil {
			t.Fatal(err)
		}
		if rep, err := verify.Check(got, 2); err != nil || !rep.Acyclic() {
			t.Fatalf("design %d, two hosts swapped: the verifier: %v", i, err)
		}
	}
}

// TestRoutePreviousRecomputeKeepsTheLIDsInForce: a full recompute (another
// seed, an HCA replaced) after a repair that lost a host keeps every
// port's LIDs and leaves the lost host's reserved, as OpenSM's cache does,
// the new HCA taking others; a directory
// without fabric.json keeps the LIDs of its guid2lid, and one whose
// guid2lid does not read is refused naming the file and line. Red with
// the base routing's LIDs left out of those in force.
func TestRoutePreviousRecomputeKeepsTheLIDsInForce(t *testing.T) {
	all, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	h := all.IDsOf(fabric.HCA)[3]
	less, err := all.Without([]fabric.NodeID{h}, nil)
	if err != nil {
		t.Fatal(err)
	}
	nodes := less.Nodes() // and another HCA replaced: a new port, which takes free LIDs
	r := less.IDsOf(fabric.HCA)[20]
	nodes[r].GUID |= 0xf0 << 8
	nodes[r].Name += "-new"
	replaced, err := fabric.New(nodes, less.Links())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	allFile, lessFile := writeFabric(t, dir, "all.json", all), writeFabric(t, dir, "less.json", less)
	for _, args := range [][]string{
		{"--fabric", allFile, "-o", at("a")},
		{"--fabric", lessFile, "--previous", at("a"), "-o", at("b")},
		{"--fabric", writeFabric(t, dir, "replaced.json", replaced), "--previous", at("b"), "--seed", "9", "-o", at("c")},
	} {
		if out, err := runApp(t, append([]string{"route"}, args...)...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	lidsKept(t, "recomputed after a repair", at("b"), at("c"))
	lost := guid2lid(t, at("a"))[all.PortGUID(fabric.PortRef{Node: h, Port: 1}).String()]
	for g, r := range guid2lid(t, at("c")) {
		if r[0] <= lost[1] && lost[0] <= r[1] {
			t.Fatalf("port %s took LIDs %x of the host lost, %x", g, r, lost)
		}
	}
	// without fabric.json, the LIDs of guid2lid
	if err := os.Remove(filepath.Join(at("c"), "fabric.json")); err != nil {
		t.Fatal(err)
	}
	out, err := runApp(t, "route", "--fabric", allFile, "--previous", at("c"), "--seed", "3", "-o", at("d"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lidsKept(t, "without fabric.json", at("c"), at("d"))
	// a guid2lid that does not read
	g2l := filepath.Join(at("c"), "guid2lid")
	raw, err := os.ReadFile(g2l)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(g2l, append(raw, "0x1 0x0002\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runApp(t, "route", "--fabric", allFile, "--previous", at("c"), "--seed", "3", "-o", at("e")); err == nil || !strings.Contains(err.Error(), g2l+":") || !strings.Contains(err.Error(), "remove it") {
		t.Fatalf("a guid2lid that does not read: %v", err)
	}
}

// TestRoutePreviousCountsAReplacedHCAsLIDsGone: an HCA replaced (a new
// GUID on the same port) is a repair whose summary counts the old HCA's
// LIDs among lids_gone, and no switch forwards them. Red with them left
// out of the count.
func TestRoutePreviousCountsAReplacedHCAsLIDsGone(t *testing.T) {
	all, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	nodes := all.Nodes()
	h := all.IDsOf(fabric.HCA)[5]
	nodes[h].GUID |= 0xf0 << 8
	nodes[h].Name += "-new"
	replaced, err := fabric.New(nodes, all.Links())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if _, err := runApp(t, "route", "--fabric", writeFabric(t, dir, "all.json", all), "-o", a); err != nil {
		t.Fatal(err)
	}
	out, err := runApp(t, "route", "--fabric", writeFabric(t, dir, "replaced.json", replaced), "--previous", a, "-o", b)
	if err != nil || !strings.Contains(out, "repaired the routing in") {
		t.Fatalf("%v\n%s", err, out)
	}
	counts := repairCountsIn(t, b)
	if len(counts.HostsAdded) != 1 || counts.GoneLIDs != 4 {
		t.Fatalf("hosts_added %v, lids_gone %d; want the new HCA and its predecessor's 4 LIDs", counts.HostsAdded, counts.GoneLIDs)
	}
	old := guid2lid(t, a)[all.PortGUID(fabric.PortRef{Node: h, Port: 1}).String()]
	got, _, err := readPrevious(b, replaced)
	if err != nil {
		t.Fatal(err)
	}
	for _, sw := range got.Switches() {
		for l := old[0]; l <= old[1]; l++ {
			if p := got.Port(sw, lft.LID(l)); p != lft.Drop {
				t.Fatalf("%s forwards LID 0x%x of the replaced HCA to port %d", replaced.Name(sw), l, p)
			}
		}
	}
}
