package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Files a repair need not write. Replacing a file atomically means writing
// it whole (ext4 shares no blocks between files, and copying the lines of
// the LFT file that stay the same measured slower than formatting them:
// docs/performance.md), so a repair writes every file that changes. A
// file that would get the bytes it has stays as it is — guid2lid while no
// LID goes, every table file when nothing changed — and the first repair
// written into the directory of a full computation, which keeps the base's
// files in DIR/base, makes them hard links to the files it replaces
// instead of copies: those are the base's. Both are decided by comparing
// the bytes a file would get with the file's, which costs a formatting of
// it but no write or sync.

// reuseFiles is whether a repair looks for files it need not write;
// tests turn it off to compare with a repair that writes every file.
var reuseFiles = true

// reuseUnchanged finds the files of a set to be written into dir that
// need no new bytes, and names the file of dir each is to be
// (atomicfile.File.Same): the file itself when its bytes are those to
// write (compared where likely names it), and X for base/X when their
// bytes are the same and the set replaces X.
func reuseUnchanged(dir string, files []outputFile, likely func(name string) bool) map[string]string {
	same, replaced := map[string]string{}, map[string]bool{}
	for _, f := range files {
		if path := filepath.Join(dir, f.name); likely(f.name) && holds(path, f.write) {
			same[f.name] = path
			continue
		}
		replaced[f.name] = true
	}
	for _, f := range files {
		if x, ok := strings.CutPrefix(f.name, "base/"); ok && replaced[x] && same[f.name] == "" {
			if path := filepath.Join(dir, x); holds(path, f.write) {
				same[f.name] = path
			}
		}
	}
	return same
}

// unchangedNames lists, in the order of files, those written into dir
// that stay as they were, and those that are links to another file of
// dir (same: reuseUnchanged).
func unchangedNames(dir string, files []outputFile, same map[string]string) (kept, linked []string) {
	for _, f := range files {
		switch same[f.name] {
		case "":
		case filepath.Join(dir, f.name):
			kept = append(kept, f.name)
		default:
			linked = append(linked, f.name)
		}
	}
	return kept, linked
}

// holds reports whether the regular file at path holds exactly the bytes
// write writes; it stops write at the first difference.
func holds(path string, write func(io.Writer) error) bool {
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	fh, err := os.Open(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	c := &comparer{r: bufio.NewReaderSize(fh, 1<<20)}
	if err := write(c); err != nil {
		return false
	}
	_, err = c.r.ReadByte()
	return err == io.EOF // and not a byte more
}

// errDiffers stops a write compared with a file at the first difference.
var errDiffers = errors.New("the bytes differ")

// comparer compares the bytes written to it with those of r.
type comparer struct {
	r   *bufio.Reader
	buf []byte
}

func (c *comparer) Write(p []byte) (int, error) {
	if c.buf == nil {
		c.buf = make([]byte, 1<<16)
	}
	for done := 0; done < len(p); {
		b := c.buf[:min(len(p)-done, len(c.buf))]
		if _, err := io.ReadFull(c.r, b); err != nil || !bytes.Equal(b, p[done:done+len(b)]) {
			return done, errDiffers
		}
		done += len(b)
	}
	return len(p), nil
}
