package fabric

import (
	"errors"
	"fmt"

	"slimroute/internal/parseerr"
)

// ParseError reports malformed input at a position in a file (File, Line,
// Msg). It is parseerr.Error, shared with the readers outside this package.
type ParseError = parseerr.Error

// errorList gathers ParseErrors so a reader can report every problem in a
// file, not only the first, up to a limit.
type errorList struct {
	file string
	errs []error
}

func (l *errorList) add(line int, format string, args ...any) {
	if len(l.errs) < maxErrors {
		l.errs = append(l.errs, &ParseError{File: l.file, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

func (l *errorList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	if len(l.errs) == maxErrors {
		return errors.Join(append(l.errs, errors.New("(more problems not shown)"))...)
	}
	return errors.Join(l.errs...)
}

// wrapValidation puts the file name in front of each model validation
// error.
func wrapValidation(file string, err error) error {
	if err == nil {
		return nil
	}
	if file == "" {
		file = "<input>"
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var each []error
		for _, e := range joined.Unwrap() {
			each = append(each, fmt.Errorf("%s: invalid fabric: %w", file, e))
		}
		return errors.Join(each...)
	}
	return fmt.Errorf("%s: invalid fabric: %w", file, err)
}

// requireSwitch reports a fabric with nodes but no switch: nothing can
// route it, and a file written from it reads as no fabric at all.
func requireSwitch(nodes []Node, errs *errorList) {
	for i := range nodes {
		if nodes[i].Kind == Switch {
			return
		}
	}
	what := fmt.Sprintf("%d nodes, all HCAs", len(nodes))
	if len(nodes) == 0 {
		what = "no nodes at all"
	}
	errs.add(0, "no switch (%s); slimroute models switched fabrics: add the switches and the cables to them", what)
}
