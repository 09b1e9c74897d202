package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestHoldsOnlyTheSameBytes: holds says a file holds what a writer writes
// only for the same bytes, byte for byte to the last (1 MB in writes of
// 1 to 200 KB), and never for a file one byte shorter or longer, one byte
// other anywhere, a link to the file, a directory or a FIFO.
func TestHoldsOnlyTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	want := make([]byte, 1<<20)
	for i := range want {
		want[i] = byte(i * 7 / 3)
	}
	write := func(w io.Writer) error {
		for rest, n := want, 1; len(rest) > 0; n = n*3 + 1 {
			k := min(len(rest), n%(200<<10)+1)
			if _, err := w.Write(rest[:k]); err != nil {
				return err
			}
			rest = rest[k:]
		}
		return nil
	}
	file := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if !holds(file("same", want), write) {
		t.Errorf("the same bytes do not hold")
	}
	for _, at := range []int{0, 1 << 15, 1<<16 - 1, 1 << 16, len(want) - 1} {
		other := bytes.Clone(want)
		other[at]++
		if holds(file("other", other), write) {
			t.Errorf("a byte other at %d holds", at)
		}
	}
	if holds(file("shorter", want[:len(want)-1]), write) || holds(file("longer", append(bytes.Clone(want), '\n')), write) {
		t.Errorf("a file a byte shorter or longer holds")
	}
	os.Symlink(filepath.Join(dir, "same"), filepath.Join(dir, "link"))
	os.Mkdir(filepath.Join(dir, "dir"), 0o755)
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	for _, name := range []string{"link", "dir", "fifo", "missing"} {
		if holds(filepath.Join(dir, name), write) {
			t.Errorf("%s holds", name)
		}
	}
}
