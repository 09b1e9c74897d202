package ibsimtest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const twoSwitches = `Switch 4 "a"
[1] "b"[1]
[2] "h"[1]

Switch 4 "b"
[1] "a"[1]

Hca 1 "h"
[1] "a"[2]
`

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestSimulatorIsStoppedEvenWhenTheTestEndsEarly(t *testing.T) {
	Require(t, "ibnetdiscover")
	var pid int
	t.Run("inner", func(t *testing.T) {
		net := t.TempDir() + "/two.net"
		writeFile(t, net, twoSwitches)
		s := Start(t, net)
		pid = s.PID()
		out := s.Run(t, 30*time.Second, "ibnetdiscover")
		if !strings.Contains(out, `"a"`) || !strings.Contains(out, `"h"`) {
			t.Errorf("ibnetdiscover did not see the simulated nodes:\n%s", out)
		}
		t.SkipNow() // ends the subtest early, as a failure would
	})
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if pid == 0 || alive(pid) {
		t.Fatalf("ibsim (pid %d) still running after its test ended", pid)
	}
}

func TestTwoSimulatorsSideBySide(t *testing.T) {
	Require(t, "ibnetdiscover")
	net := t.TempDir() + "/two.net"
	writeFile(t, net, twoSwitches)
	other := strings.ReplaceAll(twoSwitches, `"h"`, `"x"`)
	net2 := t.TempDir() + "/other.net"
	writeFile(t, net2, other)
	a, b := Start(t, net), Start(t, net2)
	if a.Sock == b.Sock {
		t.Fatal("two simulators share a socket name")
	}
	outA := a.Run(t, 30*time.Second, "ibnetdiscover")
	outB := b.Run(t, 30*time.Second, "ibnetdiscover")
	if !strings.Contains(outA, `"h"`) || !strings.Contains(outB, `"x"`) || strings.Contains(outA, `"x"`) {
		t.Fatalf("clients did not reach their own simulator")
	}
}

func TestBadNetFileFailsClearly(t *testing.T) {
	Require(t)
	net := t.TempDir() + "/bad.net"
	writeFile(t, net, "Switch 4 \"a\"\n[1] \"nosuch\"[1]\n")
	ft := &fakeT{TB: t}
	done := make(chan bool)
	go func() {
		defer close(done)
		Start(ft, net)
	}()
	<-done
	if !ft.failed || !strings.Contains(ft.msg, "exited before it was ready") {
		t.Fatalf("Start on a bad net file: failed=%v msg=%q", ft.failed, ft.msg)
	}
}

// TestAClientWhoseMADTimedOutRunsAgain: a client that fails with
// libibmad's time-out the first time is run again and its second output
// returned; one that fails otherwise is not.
func TestAClientWhoseMADTimedOutRunsAgain(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "client")
	// fails with the time-out until the counter file holds two lines
	os.WriteFile(script, []byte("#!/bin/sh\necho x >> \"$1\"\nif [ $(wc -l < \"$1\") -lt 2 ]; then echo 'ibwarn: _do_madrpc: recv failed: Connection timed out' >&2; exit 255; fi\necho answered\n"), 0o755)
	sim := &Sim{Dir: dir}
	out, err := sim.TryRun(time.Minute, script, filepath.Join(dir, "count"))
	if err != nil || out != "answered\n" {
		t.Fatalf("%q, %v", out, err)
	}
	other := filepath.Join(dir, "other")
	os.WriteFile(other, []byte("#!/bin/sh\necho x >> \"$1\"\necho 'no such port' >&2\nexit 1\n"), 0o755)
	if _, err := sim.TryRun(time.Minute, other, filepath.Join(dir, "count2")); err == nil {
		t.Fatal("a failure other than a time-out passed")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "count2")); strings.Count(string(b), "x") != 1 {
		t.Fatalf("a failure other than a time-out ran %d times", strings.Count(string(b), "x"))
	}
}
