package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptMidWriteLeavesOutputsAsTheyWere starts `slimroute route
// --slimfly 11` (168 MB of files) into a directory holding older files,
// waits until the temporary LFT file is being written, and sends SIGINT
// (then, in a second run, SIGTERM): the command exits with 128 + the
// signal, no temporary file is left, and every old file is unchanged; a
// third run into a directory that did not exist leaves no directory.
func TestInterruptMidWriteLeavesOutputsAsTheyWere(t *testing.T) {
	for _, c := range []struct {
		sig    syscall.Signal
		newDir bool
	}{{syscall.SIGINT, false}, {syscall.SIGTERM, false}, {syscall.SIGINT, true}} {
		sig := c.sig
		t.Run(fmt.Sprintf("%v,new-dir=%v", sig, c.newDir), func(t *testing.T) {
			parent := t.TempDir()
			dir := parent
			old := map[string]string{"opensm-lfts.txt": "old tables\n", "guid2lid": "old cache\n", "summary.json": "{}\n"}
			if c.newDir {
				dir, old = filepath.Join(parent, "route", "sf11"), nil
			}
			for name, content := range old {
				os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
			}
			cmd := exec.Command(slimroute, "route", "--slimfly", "11", "-o", dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			defer func() {
				cmd.Process.Kill() // by PID; a no-op once it has exited
				<-done
			}()
			if tmp := waitForTemporary(t, dir, done); tmp == "" {
				t.Fatalf("slimroute finished before a temporary file appeared; stderr:\n%s", stderr.String())
			}
			cmd.Process.Signal(sig)
			var err error
			select {
			case err = <-done:
				done <- err // for the deferred Wait
			case <-time.After(time.Minute):
				t.Fatal("slimroute did not stop within a minute of the signal")
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sig) || !strings.Contains(stderr.String(), "stopped") {
				t.Errorf("exit %v, want status %d; stderr:\n%s", err, 128+int(sig), stderr.String())
			}
			entries, _ := os.ReadDir(parent)
			if len(entries) != len(old) {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("the directory holds %v, want only the old files", names)
			}
			for name, content := range old {
				if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != content {
					t.Errorf("%s changed: %d bytes", name, len(b))
				}
			}
		})
	}
}

// waitForTemporary polls dir until a temporary file with data appears and
// returns its name, or "" if the command exits first.
func waitForTemporary(t *testing.T, dir string, done chan error) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			done <- err
			return ""
		default:
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if info, err := e.Info(); err == nil && strings.Contains(e.Name(), ".tmp-") && info.Size() > 0 {
				return e.Name()
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no temporary file within two minutes")
	return ""
}
