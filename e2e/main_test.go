// Package e2e runs the slimroute command against the real InfiniBand tools:
// ibsim simulates what slimroute writes, and ibnetdiscover, OpenSM and the
// other diagnostics report what the simulated fabric looks like.
package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// slimroute is the path of the command under test, built once by TestMain.
var slimroute string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		// every test here runs the built command, most against ibsim and
		// OpenSM: minutes, so -short leaves them all out (without building)
		fmt.Println("e2e: end-to-end tests skipped under -short")
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "slimroute-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	slimroute = filepath.Join(dir, "slimroute")
	build := exec.Command("go", "build", "-o", slimroute, "slimroute/cmd/slimroute")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building slimroute:", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs slimroute with args and returns its standard output; a non-zero
// exit fails the test.
func run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(slimroute, args...).Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("slimroute %v: %v\n%s", args, err, stderr)
	}
	return string(out)
}
