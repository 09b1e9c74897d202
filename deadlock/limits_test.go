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
	adviceClauses  = regexp.MustCompile(`, |; |: `)
)

// TestTooFewVLsFailFastWithAdviceThatWorks assigns VLs to the 4-layer
// routings of the q=5 and q=7 Slim Flies, and of q=3 with paths of
// exactly 4, 5 and 6 hops in layers ≥ 1 (routes the hop-indexed scheme
// cannot take, some not DFSSSP either), for every VL count 1..8, every
// scheme (hops, dfsssp, auto) with and without best effort, in a child
// process limited to 2 GiB of address space. Each assignment succeeds with
// an acyclic CDG (or, in best effort, reports its routes on cycles) or
// fails with an error that names its fix; every fix it names (--vls N,
// --deadlock S, --best-effort, those together, or the default path
// lengths) is followed and must succeed, and N must be the least VL count
// that does. On the Slim Flies' own routings no assignment may allocate
// more than 4 × what the successful 8-VL runs on the same routing
// allocate: the work is bounded by the input, not by how few VLs were
// offered.
func TestTooFewVLsFailFastWithAdviceThatWorks(t *testing.T) {
	if !runUnderULimit(t, "TestTooFewVLsFailFastWithAdviceThatWorks", 2048) {
		return
	}
	for _, q := range []int{5, 7} {
		r := routed(t, q, 0)
		budget := uint64(0)
		for _, scheme := range []string{"hops", "dfsssp"} {
			n, err := measure(t, r, vlCase{scheme, 8, false})
			if err != nil {
				t.Fatalf("q=%d %s on 8 VLs: %v", q, scheme, err)
			}
			budget = max(budget, 4*n)
		}
		adviceOn(t, fmt.Sprintf("q=%d", q), r, nil, budget)
		t.Logf("q=%d: 48 settings, each within %d MiB allocated", q, budget>>20)
	}
	defaults := routed(t, 3, 0)
	for _, hops := range []int{4, 5, 6} {
		adviceOn(t, fmt.Sprintf("q=3 paths of %d hops", hops), routed(t, 3, hops), defaults, 0)
	}
	t.Logf("peak RSS %.0f MiB", procstat.PeakRSSMB())
}

// routed returns the 4-layer routing of Slim Fly q, with paths of exactly
// hops hops in layers ≥ 1 (0: the default lengths).
func routed(t *testing.T, q, hops int) *layers.Routing {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: q})
	if err != nil {
		t.Fatal(err)
	}
	r, err := layers.Compute(f, layers.Options{Layers: 4, Seed: 1, MinLen: hops, MaxLen: hops})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// measure assigns the VLs of setting c to r and returns the bytes it
// allocated; a success is checked (checkAssignment).
func measure(t *testing.T, r *layers.Routing, c vlCase) (uint64, error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	a, err := assigners[c.scheme](r, deadlock.Options{VLs: c.vls, BestEffort: c.bestEffort})
	runtime.ReadMemStats(&after)
	if err == nil {
		checkAssignment(t, r, a, c)
	}
	return after.TotalAlloc - before.TotalAlloc, err
}

// adviceOn runs every setting on r and follows the advice of each
// refusal; defaults, when not nil, is the routing of the same fabric with
// the default path lengths. A budget above 0 bounds every run's
// allocation.
func adviceOn(t *testing.T, label string, r, defaults *layers.Routing, budget uint64) {
	t.Helper()
	done := map[vlCase]error{}
	assign := func(c vlCase) (uint64, error) {
		if err, ok := done[c]; ok {
			return 0, err
		}
		n, err := measure(t, r, c)
		done[c] = err
		return n, err
	}
	onDefaults := func(c vlCase) error {
		_, err := measure(t, defaults, c)
		return err
	}
	for _, scheme := range []string{"hops", "dfsssp", "auto"} {
		for _, bestEffort := range []bool{false, true} {
			for vls := 1; vls <= 8; vls++ {
				c := vlCase{scheme, vls, bestEffort}
				name := fmt.Sprintf("%s %+v", label, c)
				n, err := assign(c)
				if budget > 0 && n > budget {
					t.Errorf("%s allocated %d MiB, more than %d MiB (4 × a successful 8-VL run)", name, n>>20, budget>>20)
				}
				if err != nil {
					followAdvice(t, name, c, err, assign, onDefaults)
				}
			}
		}
	}
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
// each fix it names works. The advice's alternatives are separated by
// commas, semicolons and colons; the settings one names (--vls N,
// --deadlock S, --best-effort) are applied together; an advised --vls N
// must be the least that works (but with best effort, which any count
// does). "leave out --min-len
// and --max-len" is followed on the default routing (onDefaults): it must
// not fail for long routes again.
func followAdvice(t *testing.T, name string, c vlCase, err error, assign func(vlCase) (uint64, error), onDefaults func(vlCase) error) {
	t.Helper()
	msg := err.Error()
	fixes := 0
	for _, clause := range adviceClauses.Split(msg, -1) {
		fixed, named := c, false
		if strings.Contains(clause, "leave out --min-len and --max-len") {
			fixes++
			if err := onDefaults(c); err != nil && strings.Contains(err.Error(), "five or more") {
				t.Errorf("%s: %s\n  advised the default path lengths, which fail alike: %v", name, msg, err)
			}
			continue
		}
		if m := adviceVLs.FindStringSubmatch(clause); m != nil {
			fixed.vls, _ = strconv.Atoi(m[1])
			named = true
		}
		if m := adviceDeadlock.FindStringSubmatch(clause); m != nil {
			fixed.scheme, named = m[1], true
		}
		if strings.Contains(clause, "--best-effort") {
			fixed.bestEffort, named = true, true
		}
		if !named {
			continue
		}
		fixes++
		if _, err := assign(fixed); err != nil {
			t.Errorf("%s: %s\n  advised %q, which fails: %v", name, msg, clause, err)
		}
		if fewer := fixed; adviceVLs.MatchString(clause) && fewer.vls-1 > c.vls && !fewer.bestEffort {
			fewer.vls--
			if _, err := assign(fewer); err == nil {
				t.Errorf("%s: %s\n  advised %q, but %d VLs do", name, msg, clause, fewer.vls)
			}
		}
	}
	if fixes == 0 {
		t.Errorf("%s: %s\n  names no fix", name, msg)
	}
}
