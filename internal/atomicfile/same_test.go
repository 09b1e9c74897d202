package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSameKeepsOrLinksTheFile: a File whose Same is its own target leaves
// the target as it is (same inode, no write); one whose Same is the file
// the set replaces becomes a hard link to the old file, which keeps its
// bytes under the new name only; and it is written as usual where Same
// has another mode, another name besides, or the set fails — then no
// link or temporary is left.
func TestSameKeepsOrLinksTheFile(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	inode := func(path string) os.FileInfo {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	os.WriteFile(at("kept"), []byte("kept"), 0o644)
	os.WriteFile(at("table"), []byte("old"), 0o644)
	os.Mkdir(at("base"), 0o755)
	kept, old := inode(at("kept")), inode(at("table"))
	written := map[string]bool{}
	write := func(name, text string) func(io.Writer) error {
		return func(w io.Writer) error { written[name] = true; _, err := io.WriteString(w, text); return err }
	}
	err := WriteAll(
		File{Path: at("kept"), Perm: 0o644, Write: write("kept", "kept"), Same: at("kept")},
		File{Path: at("table"), Perm: 0o644, Write: write("table", "new")},
		File{Path: at("base/table"), Perm: 0o644, Write: write("base/table", "old"), Same: at("table")},
	)
	if err != nil {
		t.Fatal(err)
	}
	if written["kept"] || written["base/table"] || !written["table"] {
		t.Errorf("written: %v, want only table", written)
	}
	if !os.SameFile(kept, inode(at("kept"))) || !os.SameFile(old, inode(at("base/table"))) {
		t.Errorf("kept is another file, or base/table is not the old table")
	}
	if b, _ := os.ReadFile(at("base/table")); string(b) != "old" {
		t.Errorf("base/table holds %q", b)
	}
	noTemporaries(t, dir)
	noTemporaries(t, at("base"))

	// written where no link is to be made
	os.Chmod(at("table"), 0o600)
	os.WriteFile(at("linked"), []byte("linked"), 0o644)
	os.Link(at("linked"), at("other name"))
	written = map[string]bool{}
	err = WriteAll(
		File{Path: at("mode"), Perm: 0o644, Write: write("mode", "new"), Same: at("table")},
		File{Path: at("two names"), Perm: 0o644, Write: write("two names", "linked"), Same: at("linked")},
	)
	if err != nil || !written["mode"] || !written["two names"] {
		t.Errorf("error %v, written %v: want both written", err, written)
	}
	for _, p := range []string{"mode", "two names"} {
		if fi := inode(at(p)); os.SameFile(fi, inode(at("table"))) || os.SameFile(fi, inode(at("linked"))) {
			t.Errorf("%s is a link", p)
		}
	}

	// a set that fails leaves no link
	boom := errors.New("boom")
	os.WriteFile(at("single"), []byte("single"), 0o644)
	written = map[string]bool{}
	err = WriteAll(
		File{Path: at("base/new"), Perm: 0o644, Write: write("base/new", "single"), Same: at("single")},
		File{Path: at("fails"), Perm: 0o644, Write: func(io.Writer) error { return boom }},
	)
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if _, err := os.Lstat(at("base/new")); err == nil || written["base/new"] {
		t.Errorf("base/new made by a set that failed, or written: %v", written)
	}
	if fi := inode(at("single")); fi.Sys().(*syscall.Stat_t).Nlink != 1 {
		t.Errorf("single has %d names after a set that failed", fi.Sys().(*syscall.Stat_t).Nlink)
	}
	noTemporaries(t, dir)
	noTemporaries(t, at("base"))
}
