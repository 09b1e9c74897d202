package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"slimroute/fabric"
	"slimroute/lft"
)

// A chain of repairs offline. route -o DIR writes, beside the tables,
// fabric.json: the fabric they were computed for. route --previous DIR
// reads the tables back onto that fabric (not the new one), so that a
// repair sees what failed and what came back, and finds the base — the
// full computation the chain started from — through summary.json: a full
// computation is its own base, a repair names its base in "base". With
// the base, cables and switches coming back are repaired too, their routes
// returning to the base's (repair.Options.Base). A repair written into the
// base's own directory first copies the base's files into DIR/base.

// fabricFile is fabric.json of tables tab.
func fabricFile(tab *lft.Tables) outputFile {
	return outputFile{"fabric.json", func(w io.Writer) error { return fabric.WriteJSON(w, tab.Fabric()) }}
}

// previousFabric reads fabric.json in dir; nil without one (a routing
// written by an older slimroute).
func previousFabric(dir string) (*fabric.Fabric, error) {
	path := filepath.Join(dir, "fabric.json")
	fh, err := openInput(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return fabric.ReadJSON(fh, path)
}

// baseOf finds the base of the routing in dir, whose tables prev are and
// whose summary.json is sum: prev itself for a full computation, the
// directory a repair's summary.json names in "base" (relative to dir) for
// a repair. It returns the base's tables and directory, or nil and why
// there is none.
func baseOf(dir string, sum *previousSummary, prev *lft.Tables) (*lft.Tables, string, string) {
	if sum.missing != nil {
		return nil, "", fmt.Sprintf("cannot read %s: %v", filepath.Join(dir, "summary.json"), sum.missing)
	}
	if sum.Previous == nil {
		return prev, dir, "" // a full computation
	}
	if sum.Base == "" {
		return nil, "", "its summary.json names no base routing"
	}
	baseDir := sum.Base
	if !filepath.IsAbs(baseDir) {
		baseDir = filepath.Join(dir, baseDir)
	}
	bf, err := previousFabric(baseDir)
	if err != nil || bf == nil {
		return nil, "", fmt.Sprintf("the base routing in %s has no readable fabric.json (%v)", baseDir, err)
	}
	base, _, err := readPrevious(baseDir, bf)
	if err != nil {
		return nil, "", fmt.Sprintf("the base routing in %s: %v", baseDir, err)
	}
	return base, baseDir, ""
}

// baseFiles returns the files that keep the base for a repair written
// into outDir, and the base's name for its summary.json: the base's
// directory, relative to outDir where it can be; DIR/base, with the base's
// tables copied there, when outDir is the base's own directory.
func baseFiles(outDir, baseDir string, base *lft.Tables) ([]outputFile, string) {
	if base == nil {
		return nil, ""
	}
	if sameDir(outDir, baseDir) {
		var files []outputFile
		for _, f := range append(tableFiles(base), jsonFile("summary.json", map[string]string{"note": "the base routing of the repairs in the directory above"})) {
			f.name = filepath.Join("base", f.name)
			files = append(files, f)
		}
		return files, "base"
	}
	if abs, err := filepath.Abs(baseDir); err == nil {
		baseDir = abs
	}
	if rel, err := filepath.Rel(outDir, baseDir); err == nil && filepath.IsLocal(rel) {
		return nil, rel
	}
	return nil, baseDir
}

// sameDir reports whether paths a and b name the same directory.
func sameDir(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}

// switchesGone names the switches the previous routing had that fabric f
// lacks: those the reader dropped (files read onto f), or those of the
// previous fabric pf that f lacks (files read onto pf).
func switchesGone(shrunk *lft.Shrunk, pf, f *fabric.Fabric) []string {
	if pf == f {
		return shrunk.GoneSwitches()
	}
	var gone []fabric.NodeID
	for _, id := range pf.IDsOf(fabric.Switch) {
		if _, ok := f.NodeByGUID(pf.GUID(id)); !ok {
			gone = append(gone, id)
		}
	}
	slices.SortFunc(gone, func(a, b fabric.NodeID) int { return cmp.Compare(pf.GUID(a), pf.GUID(b)) })
	var out []string
	for _, id := range gone {
		out = append(out, fmt.Sprintf("%s (%s)", pf.Name(id), pf.GUID(id)))
	}
	return out
}
