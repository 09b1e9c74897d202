// Package parseerr holds the error type slimroute's readers return for
// malformed input: a message at a file and line. It is its own package so
// that every reader (fabric files, TOML specs, forwarding-table dumps) can
// use it without depending on one another; package fabric re-exports it as
// fabric.ParseError.
package parseerr

import (
	"fmt"
	"io"
)

// Error reports malformed input at a position in a file.
type Error struct {
	File string // name given to the reader; "" when unknown
	Line int    // 1-based; 0 when the problem concerns the whole file
	Msg  string // what is wrong and what was expected
}

func (e *Error) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", file, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", file, e.Line, e.Msg)
}

// Capped returns r cut off after limit bytes: a read past them fails with
// an *Error naming file and the limit, so that a reader that keeps its
// whole input (a fabric description, a spec) refuses a wrong file — a
// disk image, /dev/zero — instead of running out of memory. what names
// the kind of file the limit is for.
func Capped(r io.Reader, file string, limit int64, what string) io.Reader {
	return &capped{r: r, left: limit, err: &Error{File: file, Msg: fmt.Sprintf("longer than %d MiB, more than any %s: is it the right file?", limit>>20, what)}}
}

type capped struct {
	r    io.Reader
	left int64
	err  error
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// one byte more tells a file of exactly the limit from a longer one
		var b [1]byte
		if n, err := c.r.Read(b[:]); n > 0 {
			return 0, c.err
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
