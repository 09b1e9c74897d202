package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runAppErr is runApp that also returns standard error.
func runAppErr(args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	err = newApp(&out, &errb).Run(append([]string{"slimroute"}, args...))
	return out.String(), errb.String(), err
}

// lstatMode is the type bits of path, not following a link.
func lstatMode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Type()
}

// TestOutputToSpecialFiles runs `topo slimfly -o PATH` with PATH each kind
// of file: a regular file is replaced, a device and a FIFO are written
// through and stay what they were, a symlink (also to an open pipe under
// /proc/self/fd) keeps being a link while what it names gets the topology,
// "-" is standard output, and a directory is refused unchanged.
func TestOutputToSpecialFiles(t *testing.T) {
	want, _, err := runAppErr("topo", "slimfly", "--q", "3")
	if err != nil || want == "" {
		t.Fatalf("topo to standard output: %v", err)
	}
	dir := t.TempDir()
	topo := func(out string) error {
		_, _, err := runAppErr("topo", "slimfly", "--q", "3", "-o", out)
		return err
	}

	if got, _, err := runAppErr("topo", "slimfly", "--q", "3", "-o", "-"); err != nil || got != want {
		t.Errorf("-o -: %v, %d bytes on standard output, want %d", err, len(got), len(want))
	}

	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod: %v (needs root)", err)
	}
	if err := topo(null); err != nil || lstatMode(t, null) != fs.ModeDevice|fs.ModeCharDevice {
		t.Errorf("-o a null device: %v, now %v", err, lstatMode(t, null))
	}

	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o644)
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := topo(fifo); err != nil {
		t.Errorf("-o a FIFO: %v", err)
	}
	if got, _ := io.ReadAll(r); string(got) != want || lstatMode(t, fifo) != fs.ModeNamedPipe {
		t.Errorf("-o a FIFO: the reader got %d bytes, want %d; now %v", len(got), len(want), lstatMode(t, fifo))
	}
	r.Close()

	file := filepath.Join(dir, "sf3.net")
	os.WriteFile(file, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.net")
	os.Symlink("sf3.net", link)
	if err := topo(link); err != nil || lstatMode(t, link) != fs.ModeSymlink {
		t.Errorf("-o a symlink: %v, now %v", err, lstatMode(t, link))
	}
	if got, _ := os.ReadFile(file); string(got) != want {
		t.Errorf("-o a symlink: its target holds %d bytes, want %d", len(got), len(want))
	}

	pr, pw, _ := os.Pipe()
	fdLink := filepath.Join(dir, "stdout-link")
	os.Symlink(fmt.Sprintf("/proc/self/fd/%d", pw.Fd()), fdLink)
	got := make(chan []byte)
	go func() { b, _ := io.ReadAll(pr); got <- b }()
	if err := topo(fdLink); err != nil || lstatMode(t, fdLink) != fs.ModeSymlink {
		t.Errorf("-o a link to /proc/self/fd/N: %v, now %v", err, lstatMode(t, fdLink))
	}
	pw.Close()
	if b := <-got; string(b) != want {
		t.Errorf("-o a link to an open pipe: the pipe carried %d bytes, want %d", len(b), len(want))
	}

	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	if err := topo(sub); err == nil || !strings.Contains(err.Error(), "is a directory") || lstatMode(t, sub) != fs.ModeDir {
		t.Errorf("-o a directory: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left", e.Name())
		}
	}
}

// TestExportToStandardOutput: `export -o -` puts the pcap on standard
// output and its report on standard error; route refuses "-".
func TestExportToStandardOutput(t *testing.T) {
	out, errOut, err := runAppErr("export", "--slimfly", "3", "--layers", "1", "-o", "-")
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 24 || (!strings.HasPrefix(out, "\xd4\xc3\xb2\xa1") && !strings.HasPrefix(out, "\xa1\xb2\xc3\xd4")) {
		t.Errorf("standard output is no pcap: % x", out[:min(len(out), 8)])
	}
	if !strings.Contains(errOut, "LinearForwardingTable SMPs") {
		t.Errorf("report %q not on standard error", errOut)
	}
	if _, _, err := runAppErr("route", "--slimfly", "3", "-o", "-"); err == nil || !strings.Contains(err.Error(), "name a directory") {
		t.Errorf("route -o -: %v", err)
	}
}
