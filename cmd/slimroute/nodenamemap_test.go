package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A node-name-map line that gives a node the name another node has is
// refused at its file and line, naming both nodes by GUID, and the advice
// (another name for one of the two) works when followed.
func TestNodeNameMapClashNamesTheLineAndBothNodes(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan")
	if o := runCLI("cabling", "plan", "--slimfly", "3", "-o", plan); o.status != 0 {
		t.Fatal(o.stderr)
	}
	data, err := os.ReadFile(filepath.Join(plan, "node-name-map"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if lines[1] != `0x5346000000000000 "sw-0-0-0"` || lines[2] != `0x5346000000100000 "sw-0-0-1"` {
		t.Fatalf("unexpected map:\n%s", data)
	}
	nnm := filepath.Join(dir, "nnm")
	write := func(name string) {
		lines[1] = `0x5346000000000000 "` + name + `"`
		if err := os.WriteFile(nnm, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sw-0-0-1")
	args := []string{"cabling", "verify", "--plan", plan, "--discovered", filepath.Join(plan, "expected.ibnetdiscover"), "--node-name-map", nnm}
	refused(t, dir, args, nnm+":2:", "GUID 0x5346000000000000", `"sw-0-0-0"`, `"sw-0-0-1"`, "0x5346000000100000", "mapped at line 3", "another name in the map")
	if o := runCLI(args...); strings.Contains(o.stderr, "node 0") || strings.Contains(o.stderr, "use a node-name-map") {
		t.Errorf("message shows an internal index or advises the map in use: %s", o.stderr)
	}
	for _, name := range []string{"sw-0-0-0", "another-name"} { // the advice, followed
		write(name)
		if o := runCLI(args...); o.status == 2 {
			t.Errorf("map line 2 naming %q: status 2: %s", name, o.stderr)
		}
	}
}

// cabling verify --rate gives the rate every cable should train at instead
// of the plan's: a plan made for 4xEDR, checked against a fabric that
// trains at 4xSDR (as ibsim's does), has every cable degraded; with --rate
// 4xSDR or any none is, and with --rate 4xHDR every cable is again.
func TestCablingVerifyTakesTheRate(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan")
	if o := runCLI("cabling", "plan", "--slimfly", "3", "--rate", "4xEDR", "-o", plan); o.status != 0 {
		t.Fatal(o.stderr)
	}
	expected, err := os.ReadFile(filepath.Join(plan, "expected.ibnetdiscover"))
	if err != nil || !strings.Contains(string(expected), "4xEDR") {
		t.Fatalf("the plan's expected dump names no 4xEDR (%v)", err)
	}
	found := filepath.Join(dir, "found.txt")
	if err := os.WriteFile(found, []byte(strings.ReplaceAll(string(expected), "4xEDR", "4xSDR")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rate     string
		status   int
		degraded string
	}{{"", 1, "runs at 4xSDR, planned 4xEDR"}, {"4xSDR", 0, ""}, {"any", 0, ""}, {"4xHDR", 1, "runs at 4xSDR, planned 4xHDR"}} {
		args := []string{"cabling", "verify", "--plan", plan, "--discovered", found}
		if c.rate != "" {
			args = append(args, "--rate", c.rate)
		}
		o := runCLI(args...)
		if o.status != c.status || (c.degraded != "" && strings.Count(o.stdout, c.degraded) != strings.Count(string(expected), "4xEDR")/2) {
			t.Errorf("--rate %q: status %d, want %d with every cable %q:\n%s%s", c.rate, o.status, c.status, c.degraded, o.stdout, o.stderr)
		}
	}
}
