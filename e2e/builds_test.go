package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"slimroute/internal/ibsimtest"
)

// archBuild is one build of the command: an instruction set, and how to run
// it on this machine.
type archBuild struct {
	name string   // amd64-v1, amd64-v3, arm64
	env  []string // GOARCH, GOAMD64, CGO_ENABLED for go build
	qemu string   // the emulator to run it through; "" runs it natively
	bin  string   // the built executable
}

// command runs the build with args, killed when ctx ends.
func (b archBuild) command(ctx context.Context, args ...string) *exec.Cmd {
	if b.qemu != "" {
		return exec.CommandContext(ctx, b.qemu, append([]string{b.bin}, args...)...)
	}
	return exec.CommandContext(ctx, b.bin, args...)
}

// buildCases are the fabrics every build routes, with the command's default
// settings; q=11 last, the slow one (about 10 s natively, minutes emulated).
var buildCases = []struct {
	name string
	args []string
}{
	{"slimfly-q5", []string{"--slimfly", "5"}},
	{"slimfly-q7", []string{"--slimfly", "7"}},
	{"clos-2level", []string{"--config", "../testdata/specs/clos-2level.toml"}},
	{"fattree-3level", []string{"--config", "../testdata/specs/fattree-3level.toml"}},
	{"slimfly-q11", []string{"--slimfly", "11"}},
}

// TestTablesAreTheSameFromEveryBuild builds the command for amd64 at
// GOAMD64=v1 and v3 and for arm64 (run through qemu-aarch64), routes Slim
// Flies q=5, 7, 11 and the Clos and fat-tree specs with each, and requires
// every file route writes (timings.json aside, which holds wall times) to be
// the same bytes from every build. The compiler may fuse a float multiply
// and add into one FMA instruction on v3 and arm64, and the fused result is
// rounded once instead of twice: any decision taken on float costs can then
// go another way on another build. An OpenSM host on ARM must program the
// tables the command predicts on x86.
func TestTablesAreTheSameFromEveryBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command three times: skipped under -short")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("needs linux/amd64 to run the amd64 builds, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	ctx := t.Context()
	if deadline, ok := t.Deadline(); ok { // end the runs before go test's panic does
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-20*time.Second))
		defer cancel()
	}
	builds := buildAll(t, runnableBuilds(t), t.TempDir())
	for _, c := range buildCases {
		t.Run(c.name, func(t *testing.T) {
			dirs := routeWithEvery(ctx, t, c.name, builds, append([]string{"route"}, c.args...))
			for i := 1; i < len(builds); i++ {
				same := compareOutputs(t, c.name, dirs[0], dirs[i])
				t.Logf("%s: %s: %d files the same bytes as %s's", c.name, builds[i].name, same, builds[0].name)
			}
		})
	}
}

// runnableBuilds lists the builds this machine can run, amd64-v1 first:
// amd64-v3 needs AVX2 and FMA, arm64 needs qemu-aarch64 (a failure under
// SLIMROUTE_REQUIRE_E2E=1 when missing). It skips t when only v1 is left.
func runnableBuilds(t *testing.T) []archBuild {
	t.Helper()
	builds := []archBuild{{name: "amd64-v1", env: []string{"GOARCH=amd64", "GOAMD64=v1"}}}
	if cpuHas(t, "avx2", "fma") {
		builds = append(builds, archBuild{name: "amd64-v3", env: []string{"GOARCH=amd64", "GOAMD64=v3"}})
	} else {
		t.Log("this CPU lacks AVX2 or FMA: no amd64-v3 build, it could not run")
	}
	if qemu, err := exec.LookPath("qemu-aarch64"); err == nil {
		builds = append(builds, archBuild{name: "arm64", env: []string{"GOARCH=arm64"}, qemu: qemu})
	} else {
		msg := "missing qemu-aarch64; install the Debian package qemu-user (./scripts/test does)"
		if os.Getenv(ibsimtest.RequireEnv) == "1" {
			t.Fatal(msg)
		}
		t.Log(msg + ": no arm64 build")
	}
	if len(builds) == 1 {
		t.Skip("no build to compare amd64-v1 with")
	}
	return builds
}

// cpuHas reports whether /proc/cpuinfo lists every one of flags.
func cpuHas(t *testing.T, flags ...string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Logf("reading the CPU's flags: %v", err)
		return false
	}
	for line := range strings.Lines(string(b)) {
		name, list, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(name) == "flags" {
			have := strings.Fields(list)
			return !slices.ContainsFunc(flags, func(f string) bool { return !slices.Contains(have, f) })
		}
	}
	return false
}

// buildAll builds the command for every one of builds into dir, side by
// side (go build spreads each over the cores itself), and returns them with
// their executables set.
func buildAll(t *testing.T, builds []archBuild, dir string) []archBuild {
	t.Helper()
	errs := make([]error, len(builds))
	var wg sync.WaitGroup
	for i := range builds {
		b := &builds[i]
		b.bin = filepath.Join(dir, "slimroute-"+b.name)
		wg.Go(func() {
			start := time.Now()
			cmd := exec.Command("go", "build", "-o", b.bin, "slimroute/cmd/slimroute")
			cmd.Env = append(append(os.Environ(), "CGO_ENABLED=0"), b.env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("building %s (%s): %v\n%s", b.name, strings.Join(b.env, " "), err, out)
				return
			}
			t.Logf("built %s in %v", b.name, time.Since(start).Round(100*time.Millisecond))
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return builds
}

// routeWithEvery runs args with every build, each writing into a directory
// named after the build (-o), and returns the directories in the order of
// builds. The emulated builds run alongside the native ones, which run one
// after another: two at a time, the cores of a small machine.
func routeWithEvery(ctx context.Context, t *testing.T, name string, builds []archBuild, args []string) []string {
	t.Helper()
	dirs := make([]string, len(builds))
	errs := make([]error, len(builds))
	tmp := t.TempDir()
	var wg sync.WaitGroup
	for _, emulated := range []bool{true, false} {
		for i, b := range builds {
			if (b.qemu != "") != emulated {
				continue
			}
			dirs[i] = filepath.Join(tmp, b.name)
			run := func() { errs[i] = routeOnce(ctx, t, name, b, dirs[i], args) }
			if emulated {
				wg.Go(run)
			} else {
				run()
			}
		}
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return dirs
}

// routeOnce runs args -o dir with build b and logs how long it took.
func routeOnce(ctx context.Context, t *testing.T, name string, b archBuild, dir string, args []string) error {
	start := time.Now()
	out, err := b.command(ctx, append(args, "-o", dir)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %s: slimroute %s -o %s after %v: %v (%v)\n%s", name, b.name, strings.Join(args, " "), dir,
			time.Since(start).Round(100*time.Millisecond), err, context.Cause(ctx), out)
	}
	t.Logf("%s: %s routed in %v", name, b.name, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// compareOutputs requires every file in ref to be in dir with the same
// bytes, and every file in dir to be in ref (timings.json aside in both),
// and returns how many are the same; the directories are named after their
// builds. A difference is reported at its first line, with both lines.
func compareOutputs(t *testing.T, name, ref, dir string) int {
	t.Helper()
	refBuild, build := filepath.Base(ref), filepath.Base(dir)
	want, got := outputFiles(t, ref), outputFiles(t, dir)
	same := 0
	for _, file := range want {
		if !slices.Contains(got, file) {
			t.Errorf("%s: %s wrote %s, %s did not", name, refBuild, file, build)
			continue
		}
		line, a, b := firstDifference(t, filepath.Join(ref, file), filepath.Join(dir, file))
		if line == 0 {
			same++
			continue
		}
		t.Errorf("%s: %s from %s differs from %s's at line %d:\n  %s: %s\n  %s: %s",
			name, file, build, refBuild, line, refBuild, a, build, b)
	}
	for _, file := range got {
		if !slices.Contains(want, file) {
			t.Errorf("%s: %s wrote %s, %s did not", name, build, file, refBuild)
		}
	}
	return same
}

// outputFiles lists the files under dir, relative to it, but timings.json.
func outputFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "timings.json" {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		files = append(files, rel)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// firstDifference compares files a and b line by line and returns the first
// line number where they differ (0: the same bytes) and both lines there.
func firstDifference(t *testing.T, a, b string) (int, string, string) {
	t.Helper()
	fa, fb := mustOpen(t, a), mustOpen(t, b)
	defer fa.Close()
	defer fb.Close()
	ra, rb := bufio.NewReaderSize(fa, 1<<16), bufio.NewReaderSize(fb, 1<<16)
	for n := 1; ; n++ {
		la, errA := ra.ReadBytes('\n')
		lb, errB := rb.ReadBytes('\n')
		for _, err := range []error{errA, errB} {
			if err != nil && err != io.EOF {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(la, lb) {
			from := max(0, commonPrefix(la, lb)-60) // long lines: show where they part
			return n, showLine(la, from), showLine(lb, from)
		}
		if errA == io.EOF { // and errB: the same bytes end the same way
			return 0, "", ""
		}
	}
}

// commonPrefix is the number of leading bytes a and b share.
func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// mustOpen opens path for reading, or fails t.
func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// showLine quotes a line of a file for a message: at most 200 bytes of it
// from byte from on, with … where some is left out.
func showLine(line []byte, from int) string {
	if len(line) == 0 {
		return "(end of file)"
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	before, after := "", ""
	if from > 0 {
		line, before = line[min(from, len(line)):], fmt.Sprintf("(from byte %d) …", from+1)
	}
	if len(line) > 200 {
		line, after = line[:200], "…"
	}
	return fmt.Sprintf("%s%q%s", before, line, after)
}
