package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// noTemporaries fails if a temporary file of this package is left in dir.
func noTemporaries(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

// kind describes what a path is, without following a link.
func kind(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		return "missing"
	}
	m := fi.Mode()
	s := fi.Sys().(*syscall.Stat_t)
	switch {
	case m&fs.ModeSymlink != 0:
		link, _ := os.Readlink(path)
		return "link to " + link
	case m&fs.ModeCharDevice != 0:
		return fmt.Sprintf("char device %d", s.Rdev)
	case m&fs.ModeDevice != 0:
		return fmt.Sprintf("block device %d", s.Rdev)
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m.IsDir():
		return "directory"
	}
	return "regular file"
}

func mknod(t *testing.T, path string, mode uint32, major, minor int) {
	t.Helper()
	if err := syscall.Mknod(path, mode, major<<8|minor); err != nil {
		t.Skipf("mknod %s: %v (needs root)", path, err)
	}
}

// TestCharacterDeviceIsWrittenThroughNotReplaced: a null device made with
// mknod stays a null device.
func TestCharacterDeviceIsWrittenThroughNotReplaced(t *testing.T) {
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	mknod(t, null, syscall.S_IFCHR|0o666, 1, 3)
	before := kind(t, null)
	if err := Write(null, 0o644, writeString("tables\n")); err != nil {
		t.Fatal(err)
	}
	if after := kind(t, null); after != before {
		t.Errorf("%s was a %s, now a %s", null, before, after)
	}
	noTemporaries(t, dir)
}

// TestFIFOIsWrittenThrough: a reader of the FIFO gets the content and the
// FIFO stays a FIFO.
func TestFIFOIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// the reader opens first (without waiting for a writer), so a write
	// that replaced the FIFO instead would leave it empty, not hang
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Write(fifo, 0o644, writeString("through the pipe\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r); string(b) != "through the pipe\n" {
		t.Errorf("reader got %q", b)
	}
	if k := kind(t, fifo); k != "fifo" {
		t.Errorf("the FIFO is now a %s", k)
	}
	noTemporaries(t, dir)
}

// TestSymlinksAreFollowedAndKept: the target of a chain of links (relative
// and absolute, and a dangling one) is replaced atomically; the links stay.
func TestSymlinksAreFollowedAndKept(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "real")
	os.Mkdir(sub, 0o755)
	file := filepath.Join(sub, "lfts.txt")
	os.WriteFile(file, []byte("old\n"), 0o644)
	os.Symlink("real/lfts.txt", filepath.Join(dir, "rel"))
	os.Symlink(filepath.Join(dir, "rel"), filepath.Join(dir, "abs"))
	os.Symlink("real/new.txt", filepath.Join(dir, "dangling"))
	for _, c := range []struct{ link, target string }{
		{"rel", file}, {"abs", file}, {"dangling", filepath.Join(sub, "new.txt")},
	} {
		link := filepath.Join(dir, c.link)
		before := kind(t, link)
		if err := Write(link, 0o644, writeString("new via "+c.link+"\n")); err != nil {
			t.Fatal(err)
		}
		if after := kind(t, link); after != before {
			t.Errorf("%s was a %s, now a %s", c.link, before, after)
		}
		if b, _ := os.ReadFile(c.target); string(b) != "new via "+c.link+"\n" || kind(t, c.target) != "regular file" {
			t.Errorf("via %s the target %s holds %q (%s)", c.link, c.target, b, kind(t, c.target))
		}
	}
	noTemporaries(t, dir)
	noTemporaries(t, sub)
	os.Symlink("loop2", filepath.Join(dir, "loop1"))
	os.Symlink("loop1", filepath.Join(dir, "loop2"))
	if err := Write(filepath.Join(dir, "loop1"), 0o644, writeString("x")); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("a link loop: %v", err)
	}
}

// TestOpenFileLinksAreWrittenThrough: a link to /proc/self/fd/N reaches
// the open file — a pipe, or a regular file opened for appending (as a
// shell's >> does) — without replacing anything.
func TestOpenFileLinksAreWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	link := filepath.Join(dir, "out")
	os.Symlink(fmt.Sprintf("/proc/self/fd/%d", w.Fd()), link)
	got := make(chan string)
	go func() { b, _ := io.ReadAll(r); got <- string(b) }()
	if err := Write(link, 0o644, writeString("to the pipe\n")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if s := <-got; s != "to the pipe\n" {
		t.Errorf("the pipe carried %q", s)
	}

	log := filepath.Join(dir, "log")
	os.WriteFile(log, []byte("earlier\n"), 0o644)
	fh, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	fdPath := fmt.Sprintf("/proc/self/fd/%d", fh.Fd())
	if err := Write(fdPath, 0o644, writeString("appended\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(log); string(b) != "earlier\nappended\n" {
		t.Errorf("the log holds %q", b)
	}
	if k := kind(t, link); !strings.HasPrefix(k, "link to /proc/self/fd/") {
		t.Errorf("the link is now a %s", k)
	}
	noTemporaries(t, dir)
}

// TestDirectoriesBlockDevicesAndSocketsAreRefused: each is left as it was
// and the error says what it is, as a *NotAFileError (the caller says what
// to name instead).
func TestDirectoriesBlockDevicesAndSocketsAreRefused(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	disk := filepath.Join(dir, "disk")
	mknod(t, disk, syscall.S_IFBLK|0o600, 7, 0)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.Symlink(disk, filepath.Join(dir, "to-disk"))
	for _, c := range []struct{ path, want string }{
		{sub, "is a directory"}, {disk, "is a block device"}, {filepath.Join(dir, "to-disk"), "is a block device"}, {sock, "is a socket"},
		{"/proc/self/fd/987654", "names no open file"},
	} {
		before := kind(t, c.path)
		err := Write(c.path, 0o644, writeString("x"))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: error %v, want %q and the path", c.path, err, c.want)
		}
		var naf *NotAFileError
		if notFile := strings.HasPrefix(c.want, "is a"); errors.As(err, &naf) != notFile {
			t.Errorf("%s: error %v is a *NotAFileError: %v, want %v", c.path, err, !notFile, notFile)
		}
		if after := kind(t, c.path); after != before {
			t.Errorf("%s was a %s, now a %s", c.path, before, after)
		}
	}
	noTemporaries(t, dir)
}

// TestAbortRemovesTheTemporaryAndKeepsTheTarget interrupts a write half
// way, as the signal handler does: the write fails, the temporary file is
// gone, the target keeps its old content, and later writes are refused.
func TestAbortRemovesTheTemporaryAndKeepsTheTarget(t *testing.T) {
	defer func() { pending.aborted.Store(false) }()
	dir := t.TempDir()
	path := filepath.Join(dir, "lfts.txt")
	os.WriteFile(path, []byte("old\n"), 0o644)
	removed := 0
	err := Write(path, 0o644, func(w io.Writer) error {
		for i := 0; i < 1000; i++ {
			if i == 500 {
				removed = Abort()
			}
			if _, err := io.WriteString(w, strings.Repeat("x", 1000)); err != nil {
				return err
			}
		}
		return nil
	})
	if !errors.Is(err, ErrAborted) || removed != 1 {
		t.Fatalf("error %v, %d temporaries removed; want ErrAborted and 1", err, removed)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("target now %d bytes", len(b))
	}
	noTemporaries(t, dir)
	if err := Write(path, 0o644, writeString("later")); !errors.Is(err, ErrAborted) {
		t.Errorf("a write after Abort: %v", err)
	}
}

// TestWriteAllIsAllOrNothing: when the last of three files fails, or Abort
// comes while the second is written, none of the three targets changes.
func TestWriteAllIsAllOrNothing(t *testing.T) {
	defer func() { pending.aborted.Store(false) }()
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"a", "b", "c"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("old "+name), 0o644)
		paths = append(paths, p)
	}
	boom := errors.New("boom")
	for _, c := range []struct {
		name string
		fail func(io.Writer) error
		want error
	}{
		{"error in the last", func(io.Writer) error { return boom }, boom},
		{"abort in the second", func(w io.Writer) error { Abort(); _, err := io.WriteString(w, "more"); return err }, ErrAborted},
	} {
		files := []File{{Path: paths[0], Perm: 0o644, Write: writeString("new a")}, {Path: paths[1], Perm: 0o644, Write: writeString("new b")}, {Path: paths[2], Perm: 0o644, Write: c.fail}}
		if c.name == "abort in the second" {
			files[1].Write = c.fail
		}
		if err := WriteAll(files...); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v", c.name, err)
		}
		for _, p := range paths {
			if b, _ := os.ReadFile(p); string(b) != "old "+filepath.Base(p) {
				t.Errorf("%s: %s now holds %q", c.name, p, b)
			}
		}
		noTemporaries(t, dir)
	}
}

// TestWriteAllRemovesTheDirectoriesItMadeOnFailure: files into a missing
// nested directory make it on success, and leave nothing when the write
// fails or is aborted.
func TestWriteAllRemovesTheDirectoriesItMadeOnFailure(t *testing.T) {
	defer func() { pending.aborted.Store(false) }()
	dir := t.TempDir()
	out := filepath.Join(dir, "route", "sf5")
	boom := errors.New("boom")
	for _, fail := range []func(io.Writer) error{
		func(io.Writer) error { return boom },
		func(io.Writer) error { Abort(); return ErrAborted },
	} {
		err := WriteAll(File{Path: filepath.Join(out, "a"), Perm: 0o644, Write: writeString("a")}, File{Path: filepath.Join(out, "sub", "b"), Perm: 0o644, Write: fail})
		if err == nil {
			t.Fatal("the failing write succeeded")
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("after %v the directory holds %d entries, want none", err, len(entries))
		}
	}
	pending.aborted.Store(false)
	if err := WriteAll(File{Path: filepath.Join(out, "sub", "b"), Perm: 0o644, Write: writeString("b")}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "sub", "b")); string(b) != "b" || len(pending.dirs) != 0 {
		t.Errorf("the new file holds %q; %d directories still registered", b, len(pending.dirs))
	}
}
