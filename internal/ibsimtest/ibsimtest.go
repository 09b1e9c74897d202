// Package ibsimtest runs the InfiniBand fabric simulator ibsim for tests,
// and runs the real diagnostics (ibnetdiscover, ibroute, opensm, …) against
// it through the umad2sim preload library.
//
// Every simulator gets its own abstract socket (IBSIM_SOCKNAME), so tests
// can run side by side, and is stopped by its PID when the test ends,
// whether it passed or failed. Tests that need the tools call Require: it
// skips when they are missing, unless SLIMROUTE_REQUIRE_E2E=1 (set by
// ./scripts/test and CI), in which case a missing tool fails the test.
// Under go test -short they skip always: the tests that run real tools are
// the slow part of the suite.
package ibsimtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"slimroute/fabric"
)

// Preload is the umad2sim library that redirects libibumad to ibsim.
const Preload = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"

// RequireEnv names the environment variable that turns a missing tool from
// a skip into a failure.
const RequireEnv = "SLIMROUTE_REQUIRE_E2E"

// Require skips t (or fails it, under SLIMROUTE_REQUIRE_E2E=1) unless ibsim,
// the umad2sim library and the named tools are installed. Under -short it
// skips t.
func Require(t testing.TB, tools ...string) {
	t.Helper()
	requireTools(t, Preload, append([]string{"ibsim"}, tools...)...)
}

// RequireTools is Require for tests that run other external programs
// without ibsim (tshark, chromium): it skips under -short or when a tool is
// missing, and fails instead under SLIMROUTE_REQUIRE_E2E=1.
func RequireTools(t testing.TB, tools ...string) {
	t.Helper()
	requireTools(t, "", tools...)
}

func requireTools(t testing.TB, lib string, tools ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs external tools: skipped under -short")
	}
	var missing []string
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if lib != "" {
		if _, err := os.Stat(lib); err != nil {
			missing = append(missing, lib)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := fmt.Sprintf("missing %s; install the Debian packages ibsim-utils libumad2sim0 infiniband-diags opensm ibutils tshark chromium (./scripts/test does)", strings.Join(missing, ", "))
	if os.Getenv(RequireEnv) == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Sim is one running ibsim.
type Sim struct {
	// Sock is the simulator's IBSIM_SOCKNAME.
	Sock string
	// Dir is a scratch directory that lives as long as the test.
	Dir string
	// NetFile is the net file the simulator runs.
	NetFile string
	cmd     *exec.Cmd
	log     string
	done    chan error
	stopped atomic.Bool
	console io.WriteCloser // ibsim's stdin, when started with its console
}

var seq atomic.Int64

// StartFabric writes f as an ibsim net file and simulates it.
func StartFabric(t testing.TB, f *fabric.Fabric) *Sim {
	t.Helper()
	dir := t.TempDir()
	net := filepath.Join(dir, "fabric.net")
	var b bytes.Buffer
	if err := fabric.WriteIBSimNet(&b, f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(net, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return Start(t, net, LimitsFor(f)...)
}

// LimitsFor returns ibsim's -S/-N/-P options sized for f, with headroom.
func LimitsFor(f *fabric.Fabric) []string { return fabric.IBSimLimits(f) }

// Start runs `ibsim -n -s [extra...] netfile` and waits until it is ready.
// The simulator is stopped, by its PID, when the test ends.
func Start(t testing.TB, netfile string, extra ...string) *Sim {
	t.Helper()
	return start(t, netfile, false, extra...)
}

// StartWithConsole is Start with ibsim's console open: Console sends it
// commands such as `Unlink "sw-0-0-0"[5]`.
func StartWithConsole(t testing.TB, netfile string, extra ...string) *Sim {
	t.Helper()
	return start(t, netfile, true, extra...)
}

// Console sends one command line to the simulator's console.
func (s *Sim) Console(t testing.TB, line string) {
	t.Helper()
	if s.console == nil {
		t.Fatal("the simulator was started without its console (use StartWithConsole)")
	}
	if _, err := io.WriteString(s.console, line+"\n"); err != nil {
		t.Fatalf("ibsim console: %v", err)
	}
}

func start(t testing.TB, netfile string, console bool, extra ...string) *Sim {
	t.Helper()
	Require(t)
	dir := t.TempDir()
	s := &Sim{
		Sock:    fmt.Sprintf("slimroute-%d-%d", os.Getpid(), seq.Add(1)),
		Dir:     dir,
		NetFile: netfile,
		log:     filepath.Join(dir, "ibsim.log"),
		done:    make(chan error, 1),
	}
	logf, err := os.Create(s.log)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-n", "-s"}, extra...)
	if console {
		args = args[1:] // the console reads stdin, which stays open
	}
	args = append(args, netfile)
	s.cmd = exec.Command("ibsim", args...)
	if console {
		w, err := s.cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		s.console = w
	}
	s.cmd.Env = append(os.Environ(), "IBSIM_SOCKNAME="+s.Sock)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("starting ibsim: %v", err)
	}
	go func() { s.done <- s.cmd.Wait(); logf.Close() }()
	t.Cleanup(s.Stop)
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(s.log)
		if bytes.Contains(b, []byte("Network simulator ready.")) {
			return s
		}
		select {
		case err := <-s.done:
			s.stopped.Store(true)
			t.Fatalf("ibsim exited before it was ready (%v):\n%s", err, tail(b))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("ibsim not ready after 60 s:\n%s", tail(b))
		}
	}
}

// PID returns the simulator's process id.
func (s *Sim) PID() int { return s.cmd.Process.Pid }

// Log returns what the simulator printed so far.
func (s *Sim) Log() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

// Stop ends the simulator: SIGTERM to its process group (by PID), then
// SIGKILL if it has not exited within five seconds. It is safe to call
// more than once.
func (s *Sim) Stop() {
	if s.stopped.Swap(true) {
		return
	}
	if s.console != nil {
		s.console.Close()
	}
	stopGroup(s.cmd.Process.Pid, s.done, 5*time.Second)
}

// stopGroup ends the process group of pid: SIGTERM, then SIGKILL if done
// has not reported its exit within grace.
func stopGroup(pid int, done <-chan error, grace time.Duration) {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(grace):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-done
	}
}

// Env returns the environment a client of this simulator needs.
func (s *Sim) Env() []string {
	return append(os.Environ(), "IBSIM_SOCKNAME="+s.Sock, "LD_PRELOAD="+Preload)
}

// Command prepares a diagnostic or OpenSM to run against the simulator.
// The caller starts it; if it outlives the test, the caller stops it.
func (s *Sim) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = s.Env()
	cmd.Dir = s.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Run runs a client to completion within timeout and returns its standard
// output; a failure or time-out fails the test with the client's stderr.
func (s *Sim) Run(t testing.TB, timeout time.Duration, name string, args ...string) string {
	t.Helper()
	out, err := s.TryRun(timeout, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TryRun is Run returning the error instead of failing the test. A
// client whose MAD got no answer in time ("recv failed: Connection timed
// out": the simulator, on a loaded machine, answered too late) is run
// again, up to twice.
func (s *Sim) TryRun(timeout time.Duration, name string, args ...string) (string, error) {
	out, err := s.tryRun(timeout, name, args...)
	for retry := 0; retry < 2 && err != nil && strings.Contains(err.Error(), madTimeout); retry++ {
		out, err = s.tryRun(timeout, name, args...)
	}
	return out, err
}

// madTimeout is how libibmad says a MAD went unanswered.
const madTimeout = "recv failed: Connection timed out"

// tryRun runs a client once.
func (s *Sim) tryRun(timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := s.Command(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		err = errors.Join(err, fmt.Errorf("timed out after %v", timeout))
	}
	if err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %v\nstderr:\n%s\nibsim log:\n%s", name, strings.Join(args, " "), err, tail(stderr.Bytes()), tail([]byte(s.Log())))
	}
	return stdout.String(), nil
}

func tail(b []byte) string {
	const n = 3000
	if len(b) > n {
		return "…" + string(b[len(b)-n:])
	}
	return string(b)
}

// OpenSM runs one OpenSM sweep (opensm -o) against the simulator with the
// given options, dumping its tables (-D 0x43), and returns the directory
// holding opensm-lfts.dump, opensm-subnet.lst, the other dumps and
// opensm.log. It fails the test unless OpenSM brings the subnet up.
func (s *Sim) OpenSM(t testing.TB, timeout time.Duration, args ...string) string {
	t.Helper()
	return s.OpenSMWithLIDs(t, timeout, nil, args...)
}

// OpenSMWithLIDs is OpenSM with its guid2lid cache seeded (when guid2lid is
// not nil), so that OpenSM keeps the LIDs it lists.
func (s *Sim) OpenSMWithLIDs(t testing.TB, timeout time.Duration, guid2lid []byte, args ...string) string {
	t.Helper()
	Require(t, "opensm")
	dir, err := os.MkdirTemp(s.Dir, "opensm-")
	if err != nil {
		t.Fatal(err)
	}
	if guid2lid != nil {
		if err := os.WriteFile(filepath.Join(dir, "guid2lid"), guid2lid, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "opensm.log")
	full := append([]string{"-o", "-f", log, "-D", "0x43", "--dump_files_dir", dir}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := s.Command(ctx, "opensm", full...)
	cmd.Env = append(cmd.Env, "OSM_CACHE_DIR="+dir)
	out, err := cmd.CombinedOutput()
	b, _ := os.ReadFile(log)
	if err != nil || !bytes.Contains(b, []byte("SUBNET UP")) {
		t.Fatalf("opensm %s: %v (no SUBNET UP)\n%s\nlog:\n%s", strings.Join(args, " "), err, tail(out), tail(b))
	}
	return dir
}

// SM is an OpenSM running against a simulator.
type SM struct {
	// Dir holds its cache, dumps and log (opensm.log).
	Dir     string
	cmd     *exec.Cmd
	done    chan error
	stopped atomic.Bool
	exited  atomic.Bool
}

// SMOptions configure StartOpenSM.
type SMOptions struct {
	Config   string   // opensm.conf contents (-F), if any
	GUID2LID []byte   // seeds the LID cache, if not nil
	Env      []string // extra environment, e.g. LD_LIBRARY_PATH for a plugin
	Args     []string // extra command-line options
}

// StartOpenSM starts OpenSM as a daemon against the simulator, dumping its
// tables after each sweep, and waits until it brings the subnet up. It is
// stopped by its PID when the test ends.
func (s *Sim) StartOpenSM(t testing.TB, o SMOptions) *SM {
	t.Helper()
	Require(t, "opensm")
	dir, err := os.MkdirTemp(s.Dir, "sm-")
	if err != nil {
		t.Fatal(err)
	}
	if o.GUID2LID != nil {
		if err := os.WriteFile(filepath.Join(dir, "guid2lid"), o.GUID2LID, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"-f", filepath.Join(dir, "opensm.log"), "-D", "0x43", "--dump_files_dir", dir}
	if o.Config != "" {
		conf := filepath.Join(dir, "opensm.conf")
		if err := os.WriteFile(conf, []byte(o.Config), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-F", conf)
	}
	args = append(args, o.Args...)
	m := &SM{Dir: dir, done: make(chan error, 1)}
	m.cmd = s.Command(context.Background(), "opensm", args...)
	m.cmd.Env = append(append(m.cmd.Env, "OSM_CACHE_DIR="+dir), o.Env...)
	out, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	m.cmd.Stdout, m.cmd.Stderr = out, out
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("starting opensm: %v", err)
	}
	go func() { err := m.cmd.Wait(); m.exited.Store(true); m.done <- err; out.Close() }()
	t.Cleanup(m.Stop)
	deadline := time.Now().Add(3 * time.Minute)
	for !bytes.Contains([]byte(m.Log()), []byte("SUBNET UP")) {
		select {
		case err := <-m.done:
			m.stopped.Store(true)
			t.Fatalf("opensm exited (%v):\n%s", err, tail([]byte(m.Log())))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("opensm: no SUBNET UP after 3 minutes:\n%s", tail([]byte(m.Log())))
		}
	}
	return m
}

// Log returns OpenSM's log so far.
func (m *SM) Log() string {
	b, _ := os.ReadFile(filepath.Join(m.Dir, "opensm.log"))
	return string(b)
}

// Running tells whether OpenSM's process is still running.
func (m *SM) Running() bool { return !m.exited.Load() }

// PID returns OpenSM's process id.
func (m *SM) PID() int { return m.cmd.Process.Pid }

// Stop ends OpenSM: SIGTERM to its process group, SIGKILL after 10 s.
func (m *SM) Stop() {
	if m.stopped.Swap(true) {
		return
	}
	stopGroup(m.cmd.Process.Pid, m.done, 10*time.Second)
}
