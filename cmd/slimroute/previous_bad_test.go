package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// previousFiles are the files route --previous reads back.
var previousFiles = []string{"opensm-lfts.txt", "path-sl.txt", "sl2vl.txt"}

// copyRoute copies the files route wrote into from into a new directory
// to, with name replaced by data (removed if data is nil).
func copyRoute(t testing.TB, from, to, name string, data []byte) string {
	t.Helper()
	if err := os.Mkdir(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == name {
			if b = data; b == nil {
				continue
			}
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// TestRoutePreviousRefusesFilesItCannotRead: route --previous DIR on the
// fabric the files were written for, with DIR missing, not a directory,
// or one of its files missing, of binary junk or with a bad line: exit 2
// naming --previous, the file (and line) and what to do, nothing
// written. Following the advice (route without --previous) succeeds.
func TestRoutePreviousRefusesFilesItCannotRead(t *testing.T) {
	dir := t.TempDir()
	p := inputs(t, dir)
	route := func(prev string) []string {
		return []string{"route", "--fabric", p["sf3.net"], "--previous", prev, "-o", p["outdir"]}
	}
	good := filepath.Join(dir, "good")
	if o := runCLI("route", "--fabric", p["sf3.net"], "-o", good); o.status != 0 {
		t.Fatal(o.stderr)
	}
	const advice = "or leave --previous out"
	refused(t, dir, route(p["missing"]), "--previous "+p["missing"], "no such directory", advice)
	refused(t, dir, route(p["existing.out"]), "--previous "+p["existing.out"], "not a directory", advice)
	for i, name := range previousFiles {
		b, err := os.ReadFile(filepath.Join(good, name))
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(b, []byte("\n"))
		mid := len(lines) / 2
		cut := b[:bytes.Index(b, []byte(lines[mid]))+len(lines[mid])/2+1] // half of a line
		lines[mid] = []byte("0x0zz1 7 # not a line of " + name)
		for _, c := range []struct {
			kind string
			data []byte
			want string
		}{
			{"missing", nil, "no such file"},
			{"binary", []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0xff, 0xfe}, ":1:"},
			{"badline", bytes.Join(lines, []byte("\n")), fmt.Sprintf(":%d:", mid+1)},
			{"cut", cut, ""}, // refused at its last line, or as not ending with a newline
			{"cut-end", b[:bytes.LastIndex(b, []byte("# "))+3], ""}, // in the last comment, before a footer
			{"cut-between", atBoundary(b), ""},                      // between two tables, or two lines
		} {
			prev := copyRoute(t, good, filepath.Join(dir, fmt.Sprintf("prev-%d-%s", i, c.kind)), name, c.data)
			path := filepath.Join(prev, name)
			want := path + c.want
			if c.kind == "missing" {
				want = path
			}
			refused(t, dir, route(prev), "--previous "+prev, want, c.want, advice)
		}
	}
	if o := runCLI("route", "--fabric", p["sf3.net"], "-o", p["outdir"]); o.status != 0 {
		t.Errorf("following the advice, route without --previous: %s", o.stderr)
	}
}

// atBoundary cuts a file route wrote where a cut leaves whole lines: an
// LFT listing before its last table, any other file before its last line.
func atBoundary(b []byte) []byte {
	if i := bytes.LastIndex(b, []byte("Unicast lids")); i > 0 {
		return b[:i]
	}
	return b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1]
}
