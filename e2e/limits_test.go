package e2e

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runLimited runs slimroute with args under `ulimit -v limitMB` and returns
// its standard error, exit status and run time.
func runLimited(t *testing.T, limitMB int, dir string, args ...string) (string, int, time.Duration) {
	t.Helper()
	script := `ulimit -v "$1" && shift && exec "$@"`
	cmd := exec.Command("sh", append([]string{"-c", script, "sh", strconv.Itoa(limitMB << 10), slimroute}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stderr.String(), status, time.Since(start)
}

// TestResourceHungryInputsFailFastUnderAMemoryLimit runs the commands of
// issue 13 that grew to 24 GB or died in the Go runtime, each under a
// 2 GiB address-space limit: each must exit 2 (bad input) within 30 s with
// a message that names the fix, and no Go runtime error. (How many VLs
// DFSSSP needs follows the routing; that the number it names works is
// checked by cmd/slimroute's TestRouteRefusesWhatItCannotDo.)
func TestResourceHungryInputsFailFastUnderAMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"route", "--slimfly", "5", "--deadlock", "dfsssp", "--vls", "1", "-o", "x"}, "VLs on this routing, 1 allowed"},
		{[]string{"route", "--slimfly", "5", "--deadlock", "auto", "--vls", "1", "-o", "x"}, "allow 3 VLs (--vls 3)"},
		{[]string{"route", "--slimfly", "7", "--deadlock", "dfsssp", "--vls", "2", "-o", "x"}, "VLs on this routing, 2 allowed"}, // the count follows the routing
		{[]string{"topo", "stats", "--slimfly", "4294967291"}, "from 3 to 109"},
		{[]string{"topo", "stats", "--slimfly", "1000003"}, "from 3 to 109"},
		{[]string{"topo", "stats", "--slimfly", "37"}, "use at most 16 endpoints per switch, or q ≤ 31 with the default endpoints"},
		{[]string{"topo", "clos", "--levels", "3", "--radix", "254"}, "set pods to at most 2"},
		{[]string{"topo", "kary", "--k", "100", "--n", "4"}, "use n ≤ 2"},
	} {
		stderr, status, took := runLimited(t, 2048, dir, c.args...)
		if status != 2 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "runtime") || took > 30*time.Second {
			t.Errorf("slimroute %s: exit %d after %v, want 2 and %q:\n%s", strings.Join(c.args, " "), status, took.Round(time.Millisecond), c.want, stderr)
		}
	}
	// best effort finishes on one VL, with its routes on cycles
	stderr, status, _ := runLimited(t, 2048, dir, "route", "--slimfly", "5", "--deadlock", "dfsssp", "--vls", "1", "--best-effort", "-o", "x")
	if status != 0 {
		t.Errorf("--best-effort --vls 1: exit %d:\n%s", status, stderr)
	}
}
