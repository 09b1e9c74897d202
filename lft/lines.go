package lft

import (
	"bytes"
	"fmt"
	"io"

	"slimroute/fabric"
)

// scanLineBytes calls line with every line of r, numbered from 1 and
// trimmed of blanks (fabric.ScanLineBytes: text is valid until line
// returns; a line over fabric.MaxLine is a *fabric.ParseError at its
// line), each line first passed through keep (nil: every line is kept),
// which returns it, shortened, or nil: then the line reads as a blank
// line, which every reader skips, so errors still name the file's line.
func scanLineBytes(r io.Reader, file string, keep func([]byte) []byte, line func(ln int, text []byte) error) error {
	return fabric.ScanLineBytes(r, file, func(ln int, text []byte) error {
		if keep != nil {
			text = keep(text)
		}
		return line(ln, bytes.TrimSpace(text))
	})
}

// parseError is a *fabric.ParseError at line ln of file.
func parseError(file string, ln int, format string, args ...any) error {
	return &fabric.ParseError{File: file, Line: ln, Msg: fmt.Sprintf(format, args...)}
}

// clip shortens a line quoted in an error message.
func clip(s string) string { return fabric.Clip(s, 80) }

// parseGUID is fabric.ParseGUID with the text it quotes clipped.
func parseGUID(s string) (fabric.GUID, error) {
	g, err := fabric.ParseGUID(s)
	if err != nil {
		return 0, fmt.Errorf("invalid GUID %q: want up to 16 hex digits", clip(s))
	}
	return g, nil
}
