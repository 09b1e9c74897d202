package deadlock_test

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"slimroute/deadlock"
	"slimroute/internal/procstat"
	"slimroute/layers"
	"slimroute/slimfly"
)

// limitedEnv marks the child process that runs a test under a memory limit.
const limitedEnv = "SLIMROUTE_UNDER_ULIMIT"

// runUnderULimit runs the named test of this binary again in a child
// process whose address space is limited to limitMB (ulimit -v): a stage
// that runs away fails the child with "out of memory" instead of taking the
// machine down. It reports whether the caller is that child.
func runUnderULimit(t *testing.T, name string, limitMB int) (child bool) {
	t.Helper()
	if os.Getenv(limitedEnv) == "1" {
		return true
	}
	script := `ulimit -v "$1" && exec "$2" -test.run "^$3\$" -test.v`
	cmd := exec.Command("sh", "-c", script, "sh", strconv.Itoa(limitMB<<10), os.Args[0], name)
	cmd.Env = append(os.Environ(), limitedEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		crash := string(out)
		if i := strings.Index(crash, "fatal error"); i >= 0 {
			crash = crash[i:min(len(crash), i+3000)] // the runtime's reason and the failing stack
		}
		t.Fatalf("under ulimit -v %d MiB: %v\n%s", limitMB, err, tail(crash, 40))
	}
	t.Logf("under ulimit -v %d MiB:\n%s", limitMB, tail(string(out), 12))
	return false
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// vlCase is one setting of the VL assignment.
type vlCase struct {
	scheme     string
	vls        int
	bestEffort bool
}

var assigners = map[string]func(*layers.Routing, deadlock.Options) (*deadlock.Assignment, error){
	"hops": deadlock.AssignHops, "dfsssp": deadlock.AssignDFSSSP, "auto": deadlock.AssignAuto,
}

var (
	adviceVLs      = regexp.MustCompile(`--vls (\d+)`)
	adviceDeadlock = regexp.MustCompile(`--deadlock (\w+)`)
)

// TestTooFewVLsFailFastWithAdviceThatWorks assigns VLs to the 4-layer
// routings of the q=5 and q=7 Slim Flies for every VL count 1..8, every
// scheme (hops, dfsssp, auto) with and without best effort, in a child
// process limited to 2 GiB of address space. Each assignment succeeds with
// an acyclic CDG (or, in best effort, reports its routes on cycles) or
// fails with an error that names its fix; every fix it names (--vls N,
// --deadlock S, --best-effort) is followed and must succeed, and N must be
// the least VL count that does. No assignment may allocate more than 4 ×
// what the successful 8-VL runs on the same routing allocate: the work is
// bounded by the input, not by how few VLs were offered.
func TestTooFewVLsFailFastWithAdviceThatWorks(t *testing.T) {
	if !runUnderULimit(t, "TestTooFewVLsFailFastWithAdviceThatWorks", 2048) {
		return
	}
	for _, q := range []int{5, 7} {
		f, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		r, err := layers.Compute(f, layers.Options{Layers: 4, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		done := map[vlCase]error{}
		var budget uint64
		assign := func(c vlCase) (uint64, error) {
			if err, ok := done[c]; ok {
				return 0, err
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			a, err := assigners[c.scheme](r, deadlock.Options{VLs: c.vls, BestEffort: c.bestEffort})
			runtime.ReadMemStats(&after)
			if err == nil {
				checkAssignment(t, r, a, c)
			}
			done[c] = err
			return after.TotalAlloc - before.TotalAlloc, err
		}
		for _, scheme := range []string{"hops", "dfsssp"} {
			n, err := assign(vlCase{scheme, 8, false})
			if err != nil {
				t.Fatalf("q=%d %s on 8 VLs: %v", q, scheme, err)
			}
			budget = max(budget, 4*n)
		}
		for _, scheme := range []string{"hops", "dfsssp", "auto"} {
			for _, bestEffort := range []bool{false, true} {
				for vls := 1; vls <= 8; vls++ {
					c := vlCase{scheme, vls, bestEffort}
					name := fmt.Sprintf("q=%d %+v", q, c)
					n, err := assign(c)
					if n > budget {
						t.Errorf("%s allocated %d MiB, more than %d MiB (4 × a successful 8-VL run)", name, n>>20, budget>>20)
					}
					if err != nil {
						followAdvice(t, name, c, err, assign)
					}
				}
			}
		}
		t.Logf("q=%d: 48 settings, each within %d MiB allocated", q, budget>>20)
	}
	t.Logf("peak RSS %.0f MiB", procstat.PeakRSSMB())
}

// checkAssignment verifies a successful assignment: within its VLs, and
// acyclic unless best effort left routes on cycles.
func checkAssignment(t *testing.T, r *layers.Routing, a *deadlock.Assignment, c vlCase) {
	t.Helper()
	rep := check(t, r, a)
	if rep.VLs > c.vls || (!rep.Acyclic() && a.RoutesOnCycle == 0) {
		t.Errorf("%+v: %d VLs of %d, acyclic %v, %d routes on cycles", c, rep.VLs, c.vls, rep.Acyclic(), a.RoutesOnCycle)
	}
}

// followAdvice checks that the error of the setting c names a fix and that
// each fix it names works.
func followAdvice(t *testing.T, name string, c vlCase, err error, assign func(vlCase) (uint64, error)) {
	t.Helper()
	msg := err.Error()
	fixes := 0
	try := func(what string, fixed vlCase) {
		fixes++
		if _, err := assign(fixed); err != nil {
			t.Errorf("%s: %s\n  advised %s, which fails: %v", name, msg, what, err)
		}
	}
	if m := adviceVLs.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		fixed := c
		fixed.vls = n
		try(m[0], fixed)
		if fewer := n - 1; fewer > c.vls {
			fixed.vls = fewer
			if _, err := assign(fixed); err == nil {
				t.Errorf("%s: %s\n  advised %s, but %d VLs do", name, msg, m[0], fewer)
			}
		}
	}
	if m := adviceDeadlock.FindStringSubmatch(msg); m != nil {
		fixed := c
		fixed.scheme = m[1]
		try(m[0], fixed)
	}
	if strings.Contains(msg, "--best-effort") {
		fixed := c
		fixed.bestEffort = true
		try("--best-effort", fixed)
	}
	if fixes == 0 {
		t.Errorf("%s: %s\n  names no fix", name, msg)
	}
}
