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

// lidsKept fails unless every port GUID of from's guid2lid holds the
// same LIDs in to's, and no LID is held twice there.
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
		if now[g] != r {
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
