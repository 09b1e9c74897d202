package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/slimfly"
	"slimroute/verify"
)

// writeFabric writes f as a JSON fabric file in dir.
func writeFabric(t testing.TB, dir, name string, f *fabric.Fabric) string {
	t.Helper()
	return writeFabricAs(t, filepath.Join(dir, name), f, fabric.FormatJSON)
}

// writeFabricAs writes f to path in format and returns path.
func writeFabricAs(t testing.TB, path string, f *fabric.Fabric, format fabric.Format) string {
	t.Helper()
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := fabric.Write(file, f, format); err != nil {
		t.Fatal(err)
	}
	if err := file.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRoutePreviousRepairsAFailedCable: route on Slim Fly q=5, then route
// the fabric without one switch-to-switch cable with --previous: the
// command says it repaired, writes tables the verifier accepts, and they
// differ from the previous ones in exactly the entries it says changed.
// (Switches gone: TestRoutePreviousRepairsRemovedSwitches.)
func TestRoutePreviousRepairsAFailedCable(t *testing.T) {
	dir := t.TempDir()
	intact, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	var cable int
	for i, l := range intact.Links() {
		if intact.Node(l.A.Node).Kind == fabric.Switch && intact.Node(l.B.Node).Kind == fabric.Switch {
			cable = i
			break
		}
	}
	damaged, err := intact.Without(nil, []int{cable})
	if err != nil {
		t.Fatal(err)
	}
	prevDir, outDir := filepath.Join(dir, "prev"), filepath.Join(dir, "repaired")
	if _, err := runApp(t, "route", "--fabric", writeFabric(t, dir, "intact.json", intact), "--vls", "4", "-o", prevDir); err != nil {
		t.Fatal(err)
	}
	out, err := runApp(t, "route", "--fabric", writeFabric(t, dir, "damaged.json", damaged), "--vls", "4", "--previous", prevDir, "--ibdmchk", "-o", outDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(outDir, "ibdmchk", "fdbs")); err != nil {
		t.Fatalf("--ibdmchk: the repair wrote no ibdmchk inputs: %v", err)
	}
	if !strings.Contains(out, "repaired the routing in "+prevDir) || strings.Contains(out, "recomputing in full") {
		t.Fatalf("no repair:\n%s", out)
	}
	var sum repairSummary
	b, err := os.ReadFile(filepath.Join(outDir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Repair.Changed == 0 || sum.Repair.Changed > sum.Repair.Crossed+sum.Repair.Mended {
		t.Fatalf("%d entries changed of %d crossed and %d mended", sum.Repair.Changed, sum.Repair.Crossed, sum.Repair.Mended)
	}
	prev, _, err := readPrevious(prevDir, damaged)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := readPrevious(outDir, damaged)
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := verify.Check(got, 2); err != nil || !rep.Acyclic() {
		t.Fatalf("the written tables fail the verifier: %v", err)
	}
	changed := 0
	for _, sw := range got.Switches() {
		a, b := prev.LFT(sw), got.LFT(sw)
		for lid := range b {
			if a[lid] != b[lid] {
				changed++
			}
		}
	}
	if changed != sum.Repair.Changed {
		t.Fatalf("the files differ in %d entries, the summary says %d changed", changed, sum.Repair.Changed)
	}
}
