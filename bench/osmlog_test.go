// Package bench holds the benchmark scripts; this test checks the part of
// bench/compare that reads OpenSM's logs (bench/osmlog-times).
package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// osmLog builds an OpenSM log line by line, the way OpenSM 3.3.23 stamps
// them ("Nov 23 16:40:33 722748 [C2133740] 0x02 -> message").
type osmLog struct {
	b    strings.Builder
	now  time.Time
	last string // the last line's message if it was an error or information, else ""
}

func (l *osmLog) line(at time.Time, level int, msg string) {
	fmt.Fprintf(&l.b, "%s %06d [%08X] 0x%02x -> %s\n", at.Format("Jan 02 15:04:05"), at.Nanosecond()/1000, 0xC2133740, level, msg)
	l.last = ""
	if level == 0x01 || level == 0x02 {
		l.last = msg
	}
}

// step advances the clock by d and writes msg at the new time.
func (l *osmLog) step(d time.Duration, level int, msg string) time.Time {
	l.now = l.now.Add(d)
	l.line(l.now, level, msg)
	return l.now
}

// noise writes a line of another thread a little before the clock, as
// OpenSM's threads do: it must neither count as a new day nor as a point.
func (l *osmLog) noise(r *rand.Rand) {
	l.line(l.now.Add(-time.Duration(r.IntN(5000))*time.Microsecond), 0x02, "osm_vendor_send: another thread")
}

// logCase is one generated log with what osmlog-times must print for it.
type logCase struct {
	engine, log string
	want        string // stdout
	status      int    // exit status
}

var engines = []string{"dfsssp", "sssp", "nue", "minhop", "updn", "ftree", "slimroute"}

// generateLog draws a first sweep of `opensm -o`: a start anywhere in the
// day (so some sweeps cross midnight), random gaps between the log points,
// lines of other threads, an error before MASTER state, and one of four
// outcomes: routed, fell back after an error, fell back silently, or
// stopped before SUBNET UP. The expected output is derived from the drawn
// times, not read from a run.
func generateLog(r *rand.Rand) logCase {
	l := &osmLog{now: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(24*3600e6)) * time.Microsecond)}
	if r.IntN(4) == 0 { // close to midnight
		l.now = time.Date(2026, 11, 23, 23, 59, 59, 0, time.UTC).Add(-time.Duration(r.IntN(3_000_000)) * time.Microsecond)
	}
	// whole microseconds, the log's resolution, so the expected differences are exact
	gap := func() time.Duration { return time.Duration(1+r.Int64N(3e6)) * time.Microsecond }
	c := logCase{engine: engines[r.IntN(len(engines))]}
	l.step(0, 0x02, "OpenSM 3.3.23")
	discovering := l.step(gap(), 0x80, "Entering DISCOVERING state")
	if r.IntN(3) == 0 {
		l.step(gap(), 0x01, "pi_rcv_process: ERR 0F06: an error before MASTER state, not the engine's")
	}
	master := l.step(gap(), 0x80, "Entering MASTER state")
	l.noise(r)
	vls := "-"
	switch r.IntN(3) {
	case 1:
		vls = fmt.Sprint(1 + r.IntN(15))
		l.step(gap(), 0x02, "dfsssp_remove_deadlocks: Virtual Lanes needed: "+vls)
	case 2:
		vls = fmt.Sprint(1 + r.IntN(15))
		l.step(gap(), 0x02, fmt.Sprintf("slimroute: 50 switches, 250 LID-holding ports, 4 layers (2..3 hops), deadlock scheme hops: %s VLs, %d SLs; verifier: ok", vls, r.IntN(16)))
	}
	switch outcome := r.IntN(4); outcome {
	case 0, 1: // routed; an unrelated error on the way must not matter
		if outcome == 1 {
			l.step(gap(), 0x01, "osm_sa_mad_ctrl: ERR 1A08: unrelated")
		}
		configured := l.step(gap(), 0x02, "osm_ucast_mgr_process: "+c.engine+" tables configured on all switches")
		l.noise(r)
		up := l.step(gap(), 0x02, "SUBNET UP")
		c.want = fmt.Sprintf("%d\t%d\t%s\n", configured.Sub(master).Microseconds()/1000, up.Sub(discovering).Microseconds()/1000, vls)
	case 2: // the engine fails with an error and OpenSM falls back; the line before says why
		if r.IntN(2) == 0 {
			l.step(gap(), 0x02, "Fabric rank is 1 (should be between 2 and 8)")
		}
		why := "ucast_mgr_route: ftree: cannot build lid matrices"
		if l.last != "" {
			why = l.last + "; " + why
		}
		l.step(gap(), 0x01, "ucast_mgr_route: ftree: cannot build lid matrices")
		l.step(gap(), 0x02, "osm_ucast_mgr_process: "+fallback(c.engine)+" tables configured on all switches")
		l.step(gap(), 0x02, "SUBNET UP")
		c.want, c.status = c.engine+" did not route: "+why+"\n", 1
	case 3: // OpenSM routes with another engine without logging why, or stops early
		if r.IntN(2) == 0 {
			other := "osm_ucast_mgr_process: " + fallback(c.engine) + " tables configured on all switches"
			l.step(gap(), 0x02, other)
			l.step(gap(), 0x02, "SUBNET UP")
			c.want = c.engine + " did not route: OpenSM fell back: " + other + "\n"
		} else {
			l.step(gap(), 0x02, "osm_ucast_mgr_process: "+c.engine+" tables configured on all switches")
			c.want = c.engine + " did not route: no SUBNET UP after the tables were configured\n"
		}
		c.status = 1
	}
	c.log = l.b.String()
	return c
}

// fallback is the engine OpenSM routes with instead: minhop, OpenSM's
// last resort; for sssp dfsssp, whose log line contains "sssp tables
// configured"; and for minhop itself another.
func fallback(engine string) string {
	switch engine {
	case "sssp":
		return "dfsssp"
	case "minhop":
		return "updn"
	}
	return "minhop"
}

func runTimes(t *testing.T, args ...string) (string, int) {
	t.Helper()
	// read the script here, so that go test's cache knows the result
	// depends on it and reruns after an edit
	if _, err := os.ReadFile("osmlog-times"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{"osmlog-times"}, args...)...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	status := 0
	if e, ok := err.(*exec.ExitError); ok {
		status = e.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String() + errb.String(), status
}

// TestOSMLogTimesMeasureEveryEngineFromTheSameLogPoints runs
// bench/osmlog-times on generated logs and checks each answer against the
// times the generator drew.
func TestOSMLogTimesMeasureEveryEngineFromTheSameLogPoints(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 1))
	dir := t.TempDir()
	n := 400
	if testing.Short() {
		n = 60
	}
	for i := range n {
		c := generateLog(r)
		path := filepath.Join(dir, fmt.Sprintf("case%d.log", i))
		if err := os.WriteFile(path, []byte(c.log), 0o644); err != nil {
			t.Fatal(err)
		}
		got, status := runTimes(t, path, c.engine)
		if got != c.want || status != c.status {
			t.Fatalf("case %d (%s): got %q exit %d, want %q exit %d; log:\n%s", i, c.engine, got, status, c.want, c.status, c.log)
		}
	}
}

func TestOSMLogTimesRejectsBadUse(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.log")
	for _, args := range [][]string{{}, {missing}, {missing, "dfsssp"}, {missing, ""}} {
		out, status := runTimes(t, args...)
		if status != 2 || !strings.Contains(out, "osmlog-times") {
			t.Errorf("osmlog-times %q: exit %d, %q; want exit 2 and a message naming the tool", args, status, out)
		}
	}
}
