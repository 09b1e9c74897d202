package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// outputSets are the commands that write a set of files into a directory
// (named by the last flag, -o or --svg, its value appended): a run of old,
// then one of new over it.
var outputSets = []struct {
	name     string
	old, new []string
}{
	{"cabling plan", []string{"cabling", "plan", "--slimfly", "3", "-o"}, []string{"cabling", "plan", "--slimfly", "4", "-o"}},
	{"demo", []string{"demo", "-q", "3", "-o"}, []string{"demo", "-q", "4", "-o"}},
	{"route", []string{"route", "--slimfly", "3", "-o"}, []string{"route", "--slimfly", "4", "--ibdmchk", "-o"}},
	{"analyze", []string{"analyze", "--slimfly", "3", "--permutations", "2", "--svg"}, []string{"analyze", "--slimfly", "4", "--permutations", "2", "--svg"}},
}

// setFiles lists the regular files under dir, relative to it, sorted.
func setFiles(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

// TestAFailedRunLeavesItsOutputSetAsItWas: for every file a command writes
// into its output directory, in turn, a directory stands where the file
// goes when the command runs over the outputs of an earlier run. The run
// exits 2 naming that path and leaves every file under the directory as
// it was (none rewritten, none added, no temporary); following its advice
// (moving the directory away) the run writes the whole set, the same
// bytes as into an empty directory.
func TestAFailedRunLeavesItsOutputSetAsItWas(t *testing.T) {
	for _, set := range outputSets {
		t.Run(strings.ReplaceAll(set.name, " ", "-"), func(t *testing.T) {
			fresh := t.TempDir()
			if o := runCLI(append(set.new, fresh)...); o.status != 0 {
				t.Fatalf("%q: %s", set.new, o.stderr)
			}
			want := setFiles(t, fresh)
			for _, name := range want {
				dir := t.TempDir()
				if o := runCLI(append(set.old, dir)...); o.status != 0 {
					t.Fatalf("%q: %s", set.old, o.stderr)
				}
				blocker := filepath.Join(dir, name)
				if err := os.RemoveAll(blocker); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(blocker, 0o755); err != nil {
					t.Fatal(err)
				}
				before := snapshot(t, dir)
				o := runCLI(append(set.new, dir)...)
				if o.status != 2 || !strings.Contains(o.stderr, blocker) {
					t.Errorf("%s a directory: exit status %d, want 2 and a message naming it:\n%s", name, o.status, o.stderr)
				}
				if after := snapshot(t, dir); after != before {
					t.Errorf("%s a directory: the failed run changed the outputs:\nbefore:\n%safter:\n%s", name, before, after)
				}
				if flag := set.new[len(set.new)-1]; !strings.Contains(o.stderr, "another "+flag+" DIR") || strings.Contains(o.stderr, "standard output") {
					t.Errorf("%s a directory: the advice is not to move it or name another %s DIR:\n%s", name, flag, o.stderr)
				}
				os.Remove(blocker)
				if o := runCLI(append(set.new, dir)...); o.status != 0 {
					t.Fatalf("%s moved away: %q: %s", name, set.new, o.stderr)
				}
				for _, f := range want {
					x, err1 := os.ReadFile(filepath.Join(fresh, f))
					y, err2 := os.ReadFile(filepath.Join(dir, f))
					if err1 != nil || err2 != nil || (f != "timings.json" && !bytes.Equal(x, y)) {
						t.Errorf("%s moved away: %s differs from a run into an empty directory (%v %v)", name, f, err1, err2)
					}
				}
			}
		})
	}
}
