// Package parseerr holds the error type slimroute's readers return for
// malformed input: a message at a file and line. It is its own package so
// that every reader (fabric files, TOML specs, forwarding-table dumps) can
// use it without depending on one another; package fabric re-exports it as
// fabric.ParseError.
package parseerr

import "fmt"

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
