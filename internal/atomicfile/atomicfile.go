// Package atomicfile writes files so that readers see either the old
// content or the complete new content, never half a file.
//
// Atomic replacement (write a temporary file, rename it over the target)
// is only right for regular files. What else a path may name is handled
// as a user would expect of a shell redirection: a symbolic link is
// followed and its target replaced (the link stays); a character device
// (/dev/null, a terminal) or a FIFO is written through; a link to an open
// file (/dev/stdout, /dev/fd/N, anything under /proc) is written through,
// appending, whatever it names, because it stands for a file someone else
// opened; a directory, a block device or a socket is refused.
//
// A process that is interrupted calls Abort: it removes every temporary
// file still being written, and no rename happens after it, so the
// targets keep their old content.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// ErrAborted is the error of a write that Abort stopped.
var ErrAborted = errors.New("interrupted")

// pending holds the temporary files being written; the mutex also makes
// each rename and Abort exclusive, so no rename follows an Abort.
var pending struct {
	sync.Mutex
	aborted atomic.Bool // set under the mutex; read without it by abortable
	files   map[string]bool
	dirs    []string // directories made for the writes in progress, parents first
}

// Abort removes the temporary files of the writes in progress and makes
// every later or unfinished Write fail with ErrAborted, leaving its target
// as it was. It is meant for a signal handler; it returns the number of
// temporary files removed.
func Abort() int {
	pending.Lock()
	defer pending.Unlock()
	pending.aborted.Store(true)
	for name := range pending.files {
		os.Remove(name)
	}
	removeDirs(pending.dirs)
	n := len(pending.files)
	pending.files, pending.dirs = nil, nil
	return n
}

// Write creates or replaces path with what write produces: atomically for
// a regular file (or a new one), through the file for a device, a FIFO or
// a link to an open file (see the package comment).
func Write(path string, perm os.FileMode, write func(io.Writer) error) error {
	return WriteAll(File{Path: path, Perm: perm, Write: write})
}

// File is one file for WriteAll.
type File struct {
	Path  string
	Perm  os.FileMode
	Write func(io.Writer) error
	// Same, when set, names a regular file that holds, byte for byte,
	// what Write writes. When it is the file at Path, that file is left
	// as it is; otherwise Path becomes a hard link to it, renamed into
	// place with the set (nothing written or synced). Write writes the
	// file as usual where no link is to be made: Same has another mode
	// than Path would get, has other names, or the file system makes no
	// link. Name in Same only a file that the same set replaces (or the
	// file at Path itself), so that no two names share a file once the
	// set is in place.
	Same string
}

// WriteAll writes files as a set: the regular ones go to temporary files,
// and only when every file is written are they renamed into place, in one
// step that Abort cannot split. Missing directories are made. An error or
// Abort on the way leaves every target as it was and removes the
// directories made. Devices, FIFOs and open-file links are written through,
// in order, as they come.
func WriteAll(files ...File) (err error) {
	var done []staged
	var made []string // directories this call made, parents first
	defer func() {
		for _, st := range done {
			forget(st.tmp, err != nil)
		}
		forgetDirs(made, err != nil)
	}()
	for _, f := range files {
		st, err := stage(f, &made)
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
		if st.tmp != "" {
			done = append(done, st)
		}
	}
	return commit(done)
}

// staged is a file written to tmp, to be renamed to target.
type staged struct{ tmp, target, path string }

// stage writes f through, or to a temporary file next to its target.
func stage(f File, made *[]string) (staged, error) {
	if f.Path == "" {
		return staged{}, errors.New("the file name is empty")
	}
	target, through, err := resolve(f.Path)
	if err != nil {
		return staged{}, err
	}
	if through {
		return staged{}, writeThrough(f.Path, f.Write)
	}
	if err := mkdirs(filepath.Dir(target), made); err != nil {
		return staged{}, err
	}
	perm := f.Perm
	if fi, err := os.Stat(target); err == nil {
		perm = fi.Mode().Perm() // a file replaced keeps its mode, as with a shell's >
	}
	if f.Same != "" {
		if tmp, ok := linkSame(f.Same, target, perm); ok {
			return staged{tmp, target, f.Path}, nil
		}
	}
	tmp, err := writeTemporary(target, perm, f.Write)
	return staged{tmp, target, f.Path}, err
}

// linkSame stages target as a hard link to same (File.Same), a regular
// file of mode perm with no other name: it returns the temporary link,
// or "" when target is that file already. It reports false when no link
// is to be made.
func linkSame(same, target string, perm os.FileMode) (string, bool) {
	fi, err := os.Lstat(same)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != perm {
		return "", false
	}
	if at, err := os.Stat(target); err == nil && os.SameFile(fi, at) {
		return "", true // it stays as it is
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Nlink != 1 {
		return "", false
	}
	tmp, err := link(same, target)
	return tmp, err == nil
}

// link makes and registers a temporary hard link to same next to target,
// unless aborted.
func link(same, target string) (string, error) {
	pending.Lock()
	defer pending.Unlock()
	if pending.aborted.Load() {
		return "", ErrAborted
	}
	for {
		tmp := filepath.Join(filepath.Dir(target), fmt.Sprintf(".%s.tmp-%d", filepath.Base(target), rand.Uint32()))
		err := os.Link(same, tmp)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if pending.files == nil {
			pending.files = map[string]bool{}
		}
		pending.files[tmp] = true
		return tmp, nil
	}
}

// maxLinks bounds the symbolic links followed, as the kernel does (ELOOP).
const maxLinks = 40

// resolve follows the symbolic links of path to the file to replace, or
// reports that path is to be written through.
func resolve(path string) (target string, through bool, err error) {
	target = path
	for hops := 0; ; hops++ {
		if isOpenFileLink(target) {
			return "", true, refuseKind(path)
		}
		fi, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) {
			return target, false, nil // created anew (a dangling link's target too)
		}
		if err != nil {
			return "", false, err
		}
		switch mode := fi.Mode(); {
		case mode.IsRegular():
			return target, false, nil
		case mode&fs.ModeSymlink != 0:
			if hops == maxLinks {
				return "", false, fmt.Errorf("more than %d symbolic links", maxLinks)
			}
			link, err := os.Readlink(target)
			if err != nil {
				return "", false, err
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(filepath.Dir(target), link)
			}
			target = link
		default:
			return "", true, refuseKind(path)
		}
	}
}

// isOpenFileLink reports whether path stands for a file a process has
// open: standard output and its kin, /dev/fd/N, or anything under /proc.
func isOpenFileLink(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	switch abs {
	case "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return true
	}
	return strings.HasPrefix(abs, "/dev/fd/") || strings.HasPrefix(abs, "/proc/")
}

// NotAFileError refuses a path that names what a write must not replace
// or write into: a directory, a block device or a socket. What to name
// instead is the caller's to say (a file, another directory).
type NotAFileError struct {
	Kind string // "directory", "block device" or "socket"
}

func (e *NotAFileError) Error() string { return "is a " + e.Kind }

// refuseKind returns nil for a path that may be written through (what it
// finally names is a character device, a FIFO, a regular file or
// nothing yet), or the error that says why not.
func refuseKind(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errors.New("it names no open file")
		}
		return err
	}
	mode := fi.Mode()
	switch {
	case mode.IsDir():
		return &NotAFileError{"directory"}
	case mode&fs.ModeDevice != 0 && mode&fs.ModeCharDevice == 0:
		return &NotAFileError{"block device"}
	case mode&fs.ModeSocket != 0:
		return &NotAFileError{"socket"}
	}
	return nil
}

// writeThrough writes into the file path names as it is: no temporary
// file, no rename, appending (for a regular file behind /proc/self/fd/N,
// opened by a shell with > or >>).
func writeThrough(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeTemporary writes a synced temporary file next to path and returns
// its name; on failure it removes it.
func writeTemporary(path string, perm os.FileMode, write func(io.Writer) error) (name string, err error) {
	tmp, err := create(path)
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			forget(tmp.Name(), true)
		}
	}()
	bw := bufio.NewWriter(abortable{tmp})
	if err = write(bw); err != nil {
		return "", err
	}
	if err = bw.Flush(); err != nil {
		return "", err
	}
	if err = tmp.Chmod(perm); err != nil {
		return "", err
	}
	if err = tmp.Sync(); err != nil {
		return "", err
	}
	return tmp.Name(), tmp.Close()
}

// create makes and registers the temporary file for path, unless aborted.
func create(path string) (*os.File, error) {
	pending.Lock()
	defer pending.Unlock()
	if pending.aborted.Load() {
		return nil, ErrAborted
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	if pending.files == nil {
		pending.files = map[string]bool{}
	}
	pending.files[tmp.Name()] = true
	return tmp, nil
}

// commit renames the staged files over their targets, unless Abort came
// first (it removed them).
//
// The set stays a set when a rename fails (an immutable file, a file of
// another user in a sticky directory): every target is first kept as a
// backup (a hard link, else a copy), and the renames already done are
// undone from them, so that no directory is left with new files beside
// old ones.
func commit(files []staged) error {
	pending.Lock()
	defer pending.Unlock()
	if pending.aborted.Load() {
		return ErrAborted
	}
	backups := make([]string, 0, len(files)) // per file: its target's backup, "" if it had none
	defer func() {
		for _, b := range backups {
			if b != "" {
				os.Remove(b)
			}
		}
	}()
	for _, st := range files {
		b, err := backup(st.target)
		if err != nil {
			return fmt.Errorf("writing %s: keeping the old file: %w", st.path, err)
		}
		backups = append(backups, b)
	}
	for i, st := range files {
		delete(pending.files, st.tmp)
		if err := rename(st.tmp, st.target); err != nil {
			for j := i - 1; j >= 0; j-- {
				if backups[j] == "" {
					os.Remove(files[j].target)
				} else if os.Rename(backups[j], files[j].target) == nil {
					backups[j] = ""
				}
			}
			return fmt.Errorf("writing %s: %w (no file of the set was replaced)", st.path, err)
		}
	}
	return nil
}

// rename is os.Rename; tests make it fail.
var rename = os.Rename

// backup keeps target's content in a new file beside it and returns that
// file's name, or "" when target does not exist.
func backup(target string) (string, error) {
	fi, err := os.Lstat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	name := filepath.Join(filepath.Dir(target), fmt.Sprintf(".%s.old-%d", filepath.Base(target), os.Getpid()))
	os.Remove(name)
	if os.Link(target, name) == nil {
		return name, nil
	}
	src, err := os.Open(target)
	if err != nil {
		return "", err
	}
	defer src.Close()
	dst, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		os.Remove(name)
		return "", err
	}
	return name, dst.Close()
}

// mkdirs makes dir and its missing parents, registering each it makes
// (parents first) in made and for Abort.
func mkdirs(dir string, made *[]string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		missing = append(missing, d)
	}
	pending.Lock()
	defer pending.Unlock()
	if pending.aborted.Load() {
		return ErrAborted
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		*made = append(*made, missing[i])
		pending.dirs = append(pending.dirs, missing[i])
	}
	return nil
}

// forgetDirs unregisters the directories made and, if remove, removes
// them (those still empty).
func forgetDirs(made []string, remove bool) {
	pending.Lock()
	defer pending.Unlock()
	pending.dirs = slices.DeleteFunc(pending.dirs, func(d string) bool { return slices.Contains(made, d) })
	if remove {
		removeDirs(made)
	}
}

// removeDirs removes the directories listed parents first, children first
// (those still empty).
func removeDirs(dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i])
	}
}

// forget unregisters tmp and, if remove, deletes it.
func forget(tmp string, remove bool) {
	pending.Lock()
	defer pending.Unlock()
	delete(pending.files, tmp)
	if remove {
		os.Remove(tmp)
	}
}

// abortable fails every write after Abort, so a long write stops soon.
type abortable struct{ w io.Writer }

func (a abortable) Write(p []byte) (int, error) {
	if pending.aborted.Load() {
		return 0, ErrAborted
	}
	return a.w.Write(p)
}
