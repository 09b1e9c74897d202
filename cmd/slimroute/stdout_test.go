package main

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// fullDisk is a standard output on which every write fails, as on a full
// disk (> /dev/full).
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestEveryReportFailsWhenStdoutFails: every command that reports on
// standard output — after a success, and verify after finding broken
// tables — exits non-zero and says on standard error that the report did
// not reach standard output, instead of exiting 0 with the report lost.
func TestEveryReportFailsWhenStdoutFails(t *testing.T) {
	dir := t.TempDir()
	r, plan := filepath.Join(dir, "r"), filepath.Join(dir, "plan")
	if _, err := runApp(t, "route", "--slimfly", "3", "-o", r); err != nil {
		t.Fatal(err)
	}
	if _, err := runApp(t, "cabling", "plan", "--slimfly", "3", "-o", plan); err != nil {
		t.Fatal(err)
	}
	file := func(d, name string) string { return filepath.Join(d, name) }
	for _, args := range [][]string{
		{"topo", "stats", "--slimfly", "3"},
		{"topo", "slimfly", "--q", "3"},
		{"route", "--slimfly", "3", "-o", file(dir, "r2")},
		{"verify", "--slimfly", "3", "--lfts", file(r, "opensm-lfts.txt"), "--path-sl", file(r, "path-sl.txt"), "--sl2vl", file(r, "sl2vl.txt")},
		{"verify", "--slimfly", "3", "--lfts", file(r, "opensm-lfts.txt"), "--json"},
		{"verify", "--slimfly", "3", "--lfts", file(r, "opensm-lfts.txt"), "--path-sl", file(r, "path-sl.txt")}, // every SL on VL 0: a credit loop, status 1
		{"path", "--slimfly", "3", "--from", "hca-0-0-0-1", "--to", "hca-1-0-0-1"},
		{"analyze", "--slimfly", "3", "--permutations", "2"},
		{"cabling", "plan", "--slimfly", "3", "-o", file(dir, "plan2")},
		{"cabling", "verify", "--plan", plan, "--discovered", file(plan, "expected.ibnetdiscover")},
		{"cabling", "verify", "--plan", plan, "--discovered", file(plan, "expected.ibnetdiscover"), "--json"},
	} {
		var stderr bytes.Buffer
		status := run(append([]string{"slimroute"}, args...), fullDisk{}, &stderr)
		if status == 0 || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%v: status %d, standard error %q", args, status, stderr.String())
		}
	}
}
