package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFailedWriteLeavesOldFileAndNoTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := Write(path, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "old\n"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "half of the new")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "old\n" {
		t.Fatalf("file now %q, want the old content", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only out.txt", len(entries))
	}
}

// TestASetIsReplacedWholeOrNotAtAll: over seeded sets of 2 to 6 files, each
// either new or replacing an old file (of mode 0600 or 0640), with the
// k-th rename failing (as over an immutable file, or one of another user
// in a sticky directory) or none: after a failure every target holds its
// old content or is absent as before, and after success the new content
// in the old file's mode; no temporary or backup file is left either way.
func TestASetIsReplacedWholeOrNotAtAll(t *testing.T) {
	defer func(r func(string, string) error) { rename = r }(rename)
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 9))
		dir := t.TempDir()
		n := 2 + rng.IntN(5)
		fail := rng.IntN(n + 1) // n: no failure
		var files []File
		old := map[string]string{}
		modes := map[string]os.FileMode{}
		for i := range n {
			path := filepath.Join(dir, fmt.Sprintf("f%d.txt", i))
			if rng.IntN(2) == 0 {
				old[path] = fmt.Sprintf("old %d\n", i)
				modes[path] = []os.FileMode{0o600, 0o640}[rng.IntN(2)]
				if err := os.WriteFile(path, []byte(old[path]), modes[path]); err != nil {
					t.Fatal(err)
				}
			}
			files = append(files, File{Path: path, Perm: 0o644, Write: func(w io.Writer) error { _, err := fmt.Fprintf(w, "new %d\n", i); return err }})
		}
		renames := 0
		rename = func(from, to string) error {
			if renames++; renames == fail+1 {
				return errors.New("operation not permitted")
			}
			return os.Rename(from, to)
		}
		err := WriteAll(files...)
		if (err != nil) != (fail < n) {
			t.Fatalf("seed %d: failing rename %d of %d: %v", seed, fail, n, err)
		}
		for i, f := range files {
			b, rerr := os.ReadFile(f.Path)
			want, had := old[f.Path], old[f.Path] != ""
			switch {
			case err == nil:
				want = fmt.Sprintf("new %d\n", i)
			case !had:
				if !errors.Is(rerr, fs.ErrNotExist) {
					t.Fatalf("seed %d: %s was new, and is there after the failure", seed, f.Path)
				}
				continue
			}
			if string(b) != want {
				t.Fatalf("seed %d (rename %d of %d fails): %s holds %q, want %q", seed, fail, n, f.Path, b, want)
			}
			if fi, _ := os.Stat(f.Path); had && fi.Mode().Perm() != modes[f.Path] {
				t.Fatalf("seed %d: %s has mode %v, it had %v", seed, f.Path, fi.Mode().Perm(), modes[f.Path])
			}
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				t.Fatalf("seed %d: %s left behind", seed, e.Name())
			}
		}
	}
}
