package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/lft"
	"slimroute/slimfly"
	"slimroute/verify"
)

// TestRoutePreviousReusesOnlyWhatStaysTheSame: over seeded damage to a
// Slim Fly q = 5 routing (1 to 3 cables, and a switch or none), route
// --previous in place (then again in place, one more cable gone) and into
// another directory writes the same bytes, file for file, whether it
// leaves the files that need no new bytes (reuseUnchanged) or writes every
// file. In place, the first repair's base/ tables are the previous files
// themselves (hard links: same inode), and guid2lid stays while no LID
// goes; a repair of a fabric that did not change leaves every table file.
func TestRoutePreviousReusesOnlyWhatStaysTheSame(t *testing.T) {
	defer func() { reuseFiles = true }()
	dir := t.TempDir()
	sf, good := routedSlimFly(t, dir, 5, routeArgs...)
	work := filepath.Join(dir, "work") // the same path for both runs: summary.json names it
	repair := func(fabricFile, prev, out string) string {
		o, err := runApp(t, "route", "--fabric", fabricFile, "--previous", prev, "-o", out)
		if err != nil || !strings.Contains(o, "repaired the routing") {
			t.Fatalf("no repair (%v):\n%s", err, o)
		}
		return o
	}
	for seed := uint64(1); seed <= 4; seed++ {
		damaged, err := failures.Draw(sf, 1+int(seed%3), int(seed%2), seed)
		if err != nil {
			t.Fatal(err)
		}
		again, err := failures.Draw(damaged, 1, 0, seed+10)
		if err != nil {
			t.Fatal(err)
		}
		damagedFile, againFile := writeFabric(t, dir, "damaged.json", damaged), writeFabric(t, dir, "again.json", again)
		for _, inPlace := range []bool{true, false} {
			trees := map[bool]map[string][]byte{}
			for _, reuse := range []bool{true, false} {
				reuseFiles = reuse
				os.RemoveAll(work)
				os.Mkdir(work, 0o755)
				prev := copyRoute(t, good, filepath.Join(work, "prev"), "", nil)
				out := filepath.Join(work, "out")
				if inPlace {
					out = prev
				}
				before := inodes(t, prev)
				printed := repair(damagedFile, prev, out)
				if inPlace && reuse {
					linkedToOld(t, fmt.Sprintf("seed %d", seed), prev, before, printed)
					repair(againFile, prev, prev)
				}
				if inPlace && !reuse {
					repair(againFile, prev, prev)
				}
				trees[reuse] = tree(t, work)
			}
			name := fmt.Sprintf("seed %d, in place %v", seed, inPlace)
			sameTrees(t, name, trees[true], trees[false])
		}
	}
	// nothing changed: every table file stays
	reuseFiles = true
	os.RemoveAll(work)
	prev := copyRoute(t, good, work, "", nil)
	before := inodes(t, prev)
	printed := repair(filepath.Join(dir, "intact.json"), prev, prev)
	after := inodes(t, prev)
	for _, f := range tableFiles(nil) {
		if after[f.name] != before[f.name] {
			t.Errorf("nothing changed, and %s was written anew:\n%s", f.name, printed)
		}
	}
}

// routedSlimFly builds the Slim Fly of q, writes it to dir/intact.json
// and routes it with args into dir/good; it returns the fabric and the
// routing's directory.
func routedSlimFly(t testing.TB, dir string, q int, args ...string) (*fabric.Fabric, string) {
	t.Helper()
	sf, err := slimfly.Build(slimfly.Params{Q: q})
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good")
	if o := runCLI(append(append([]string{"route", "--fabric", writeFabric(t, dir, "intact.json", sf)}, args...), "-o", good)...); o.status != 0 {
		t.Fatal(o.stderr)
	}
	return sf, good
}

// linkedToOld checks the first repair written into prev, whose files had
// inodes before: every base/ table file is the previous file (a link),
// guid2lid is the previous file unless LIDs went, and the printout says
// so.
func linkedToOld(t *testing.T, name, prev string, before map[string]uint64, printed string) {
	t.Helper()
	after := inodes(t, prev)
	for _, f := range tableFiles(nil) {
		if after["base/"+f.name] != before[f.name] && f.name != "guid2lid" {
			t.Errorf("%s: base/%s is not the previous %s:\n%s", name, f.name, f.name, printed)
		}
	}
	keptGUID2LID := after["guid2lid"] == before["guid2lid"]
	if goneLIDs(t, prev) == 0 && !keptGUID2LID {
		t.Errorf("%s: no LID went, and guid2lid was written anew", name)
	}
	if keptGUID2LID != strings.Contains(printed, "left as they were: guid2lid") {
		t.Errorf("%s: guid2lid kept %v, and the printout says:\n%s", name, keptGUID2LID, printed)
	}
}

// inodes maps the files under dir (paths relative to it) to their inodes.
func inodes(t *testing.T, dir string) map[string]uint64 {
	t.Helper()
	m := map[string]uint64{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[rel] = fileInode(fi)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fileInode is the inode number of a file.
func fileInode(fi os.FileInfo) uint64 { return fi.Sys().(*syscall.Stat_t).Ino }

// tree reads every file under dir but timings.json, by path relative to
// dir.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "timings.json" {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[rel], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sameTrees fails unless trees a and b hold the same files and bytes
// (a missing file reads as 0 bytes).
func sameTrees(t *testing.T, name string, a, b map[string][]byte) {
	t.Helper()
	var names []string
	for p := range a {
		names = append(names, p)
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	for _, p := range names {
		if x, y := a[p], b[p]; x == nil || y == nil || !bytes.Equal(x, y) {
			t.Errorf("%s: %s differs (%d bytes against %d)", name, p, len(x), len(y))
		}
	}
}

// TestRoutePreviousRefusedByTheVerifierPutsNothingInPlace: a repair the
// verifier refuses writes nothing: route --previous says so and
// recomputes in full, and the directory (in place, or another one new or
// holding a previous routing) ends with the bytes a full route writes and
// no temporary file.
func TestRoutePreviousRefusedByTheVerifierPutsNothingInPlace(t *testing.T) {
	defer func() { checkRepair = verify.Check }()
	dir := t.TempDir()
	sf, good := routedSlimFly(t, dir, 5, routeArgs...)
	damaged, err := failures.Draw(sf, 2, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	damagedFile := writeFabric(t, dir, "damaged.json", damaged)
	full := filepath.Join(dir, "full")
	if _, err := runApp(t, "route", "--fabric", damagedFile, "--previous", good, "-o", filepath.Join(dir, "unused")); err != nil {
		t.Fatal(err) // the settings route --previous carries on
	}
	checkRepair = func(*lft.Tables, int) (*verify.Report, error) { return nil, errors.New("refused for the test") }
	if _, err := runApp(t, "route", "--fabric", damagedFile, "--previous", good, "-o", full); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"in place", "new directory", "another routing"} {
		work := copyRoute(t, good, filepath.Join(dir, strings.ReplaceAll(name, " ", "-")), "", nil)
		out := work
		switch name {
		case "new directory":
			out = filepath.Join(dir, "new", "out")
		case "another routing":
			out = copyRoute(t, good, filepath.Join(dir, "other"), "", nil)
		}
		printed, err := runApp(t, "route", "--fabric", damagedFile, "--previous", work, "-o", out)
		if err != nil || !strings.Contains(printed, "the repaired tables fail the verifier: refused for the test; recomputing in full") {
			t.Fatalf("%s: %v\n%s", name, err, printed)
		}
		got, want := tree(t, out), tree(t, full)
		delete(got, "summary.json") // names no directory, but a full routing's; the rest must be the same
		delete(want, "summary.json")
		sameTrees(t, name, got, want)
		noTemporaryIn(t, out)
	}
}

// noTemporaryIn fails if a temporary file of atomicfile is left under dir.
func noTemporaryIn(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file %s left", p)
		}
		return err
	})
}
