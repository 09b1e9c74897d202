// Command testprogress turns `go test -json` into progress a person can
// follow while a long suite runs: one line per top-level test as it ends,
// the full output of every failing test, and go test's own package lines
// (ok, FAIL, no test files) and build errors. It exits 1 when a test,
// package or build failed, so `set -o pipefail` scripts keep the right
// status.
//
//	go test -json ./... | go run ./internal/testprogress
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

func main() {
	failed, err := format(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// event is one line of `go test -json` (cmd/test2json's TestEvent, plus the
// build events go test adds).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output, build-fail
	Test       string
	Elapsed    float64
	Output     string
}

// format copies the progress worth seeing from the JSON stream r to w and
// reports whether anything failed.
func format(r io.Reader, w io.Writer) (failed bool, err error) {
	out := bufio.NewWriter(w)
	defer out.Flush()
	held := map[string]*strings.Builder{} // output of running tests, by package and test
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if json.Unmarshal(line, &e) != nil || e.Action == "" {
			out.Write(append(line, '\n')) // not JSON: go test's own complaint
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch {
		case e.Action == "build-output":
			out.WriteString(e.Output)
		case e.Action == "build-fail":
			failed = true
		case e.Test == "" && e.Action == "output":
			if e.Output != "PASS\n" && !strings.HasPrefix(e.Output, "=== ") {
				out.WriteString(e.Output)
			}
		case e.Test == "" && e.Action == "fail":
			failed = true
			for _, k := range slices.Sorted(maps.Keys(held)) { // output a crash left unattributed, test by test
				if strings.HasPrefix(k, e.Package+"\x00") {
					out.WriteString(held[k].String())
					delete(held, k)
				}
			}
		case e.Test == "":
		case e.Action == "output":
			if held[key] == nil {
				held[key] = &strings.Builder{}
			}
			held[key].WriteString(e.Output)
		case e.Action == "fail": // the package's fail event follows
			if b := held[key]; b != nil {
				out.WriteString(b.String())
			}
			delete(held, key)
		case e.Action == "pass" || e.Action == "skip":
			if !strings.Contains(e.Test, "/") {
				fmt.Fprintf(out, "    %s %s %s (%.2fs)\n", strings.ToUpper(e.Action), shortPkg(e.Package), e.Test, e.Elapsed)
			}
			if b := held[key]; b != nil && e.Action == "skip" {
				for _, l := range strings.SplitAfter(b.String(), "\n") {
					if strings.HasPrefix(l, "    ") {
						out.WriteString("    " + l) // the reason given to t.Skip
					}
				}
			}
			delete(held, key)
		}
		if e.Action != "output" {
			out.Flush()
		}
	}
	return failed, sc.Err()
}

// shortPkg drops the module path: "slimroute/e2e" → "e2e".
func shortPkg(p string) string {
	if i := strings.Index(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}
