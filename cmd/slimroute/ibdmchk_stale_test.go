package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoStaleIBDMChkInputs: a routing written with --ibdmchk, then again
// into the same directory without it, leaves no ibdmchk/ to judge the old
// tables with; an ibdmchk/ holding a file of the user's is left, with a
// warning.
func TestNoStaleIBDMChkInputs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	if _, err := runApp(t, "route", "--slimfly", "3", "--ibdmchk", "-o", dir); err != nil {
		t.Fatal(err)
	}
	if _, err := runApp(t, "route", "--slimfly", "3", "--layers", "2", "-o", dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ibdmchk")); !os.IsNotExist(err) {
		t.Fatalf("ibdmchk/ of the first routing is still there: %v", err)
	}
	if _, err := runApp(t, "route", "--slimfly", "3", "--ibdmchk", "-o", dir); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "ibdmchk", "notes.txt")
	if err := os.WriteFile(mine, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runAppErr("route", "--slimfly", "3", "--layers", "2", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine); err != nil || !strings.Contains(stderr, "notes.txt") {
		t.Fatalf("a file of the user's in ibdmchk/: %v, warning %q", err, stderr)
	}
}
