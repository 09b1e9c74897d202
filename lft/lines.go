package lft

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"slimroute/fabric"
)

// maxLine bounds one input line, as the fabric readers do: the longest
// line of a valid file is a path-SL line of one digit per unicast LID
// (49 151 bytes).
const maxLine = 1 << 20

// scanLines calls line with every line of r, numbered from 1 and trimmed
// of blanks, until it returns an error. A line longer than maxLine is a
// *fabric.ParseError at its line, not a bare "token too long".
func scanLines(r io.Reader, file string, line func(ln int, text string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	ln := 0
	for sc.Scan() {
		ln++
		if err := line(ln, strings.TrimSpace(sc.Text())); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &fabric.ParseError{File: file, Line: ln + 1, Msg: fmt.Sprintf("line longer than %d bytes; is this a text file?", maxLine)}
		}
		return fmt.Errorf("reading %s: %w", file, err)
	}
	return nil
}

// clip shortens a line quoted in an error message.
func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:80] + "…"
}

// parseGUID is fabric.ParseGUID with the text it quotes clipped.
func parseGUID(s string) (fabric.GUID, error) {
	g, err := fabric.ParseGUID(s)
	if err != nil {
		return 0, fmt.Errorf("invalid GUID %q: want up to 16 hex digits", clip(s))
	}
	return g, nil
}
