package fabric

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"slimroute/internal/parseerr"
)

// MaxLine bounds one input line of every text reader; longer lines are
// an error, not a crash. The longest line of a valid file is a path-SL
// line of one digit per unicast LID (49 151 bytes).
const MaxLine = 1 << 20

// ScanLines calls line with every line of r, numbered from 1, trailing CR
// removed, until it returns an error. A line longer than MaxLine is a
// *ParseError at its line, not a bare "token too long". Lines are not
// kept: a forwarding-table dump may run to gigabytes.
func ScanLines(r io.Reader, file string, line func(ln int, text string) error) error {
	return ScanLineBytes(r, file, func(ln int, text []byte) error { return line(ln, string(text)) })
}

// ScanLineBytes is ScanLines for readers that parse bytes: text is valid
// only until line returns (no string per line is made; an LFT dump has
// millions of lines).
func ScanLineBytes(r io.Reader, file string, line func(ln int, text []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), MaxLine)
	ln := 0
	for sc.Scan() {
		ln++
		text := bytes.TrimRight(sc.Bytes(), "\r")
		if ln == 1 {
			text = bytes.TrimPrefix(text, []byte("\ufeff")) // a byte order mark some editors write
		}
		if err := line(ln, text); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &ParseError{File: file, Line: ln + 1, Msg: fmt.Sprintf("line longer than %d bytes; is this a text file?", MaxLine)}
		}
		if pe := (*ParseError)(nil); errors.As(err, &pe) {
			return err // names the file already (parseerr.Capped)
		}
		return fmt.Errorf("reading %s: %w", file, err)
	}
	return nil
}

// MaxDescription bounds the files a reader keeps whole (fabric
// descriptions, node-name-maps): the largest fabric slimroute builds is a
// few tens of MiB in any format.
const MaxDescription = 256 << 20

// maxDescription is MaxDescription, lowered by tests.
var maxDescription int64 = MaxDescription

// readLines reads r into numbered lines (ScanLines); what names the kind
// of file for the error past MaxDescription.
func readLines(r io.Reader, file, what string) ([]string, error) {
	var lines []string
	err := ScanLines(parseerr.Capped(r, file, maxDescription, what), file, func(_ int, text string) error {
		lines = append(lines, text)
		return nil
	})
	return lines, err
}

// Clip shortens text quoted in an error message to n bytes and an ellipsis.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// quoted returns the first double-quoted string in s and the text after it.
func quoted(s string) (val, rest string, ok bool) {
	i := strings.IndexByte(s, '"')
	if i < 0 {
		return "", s, false
	}
	j := strings.IndexByte(s[i+1:], '"')
	if j < 0 {
		return "", s, false
	}
	return s[i+1 : i+1+j], s[i+1+j+1:], true
}

// bracketNum parses "[N]" at the start of s (after optional blanks) and
// returns N and the rest.
func bracketNum(s string) (n int, rest string, ok bool) {
	s = strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(s, "[") {
		return 0, s, false
	}
	j := strings.IndexByte(s, ']')
	if j < 0 {
		return 0, s, false
	}
	v, err := strconv.Atoi(strings.TrimSpace(s[1:j]))
	if err != nil {
		return 0, s, false
	}
	return v, s[j+1:], true
}

// headerPorts reads the port count of a record header from the text
// after its keyword ("Switch", "Hca", "Ca"): blanks, then a decimal count
// of 1..MaxPorts standing alone. A sign, fraction, unit or exponent is not
// a count (ibsim would read "8x" as 8 and "-12" as a huge number), so the
// token is returned for the error message.
func headerPorts(s string) (int, string, bool) {
	if s == "" || (s[0] != ' ' && s[0] != '\t') {
		return 0, "", false
	}
	fs := strings.Fields(s)
	if len(fs) == 0 {
		return 0, "", false
	}
	tok := fs[0]
	if strings.Trim(tok, "0123456789") != "" {
		return 0, tok, false
	}
	v, err := strconv.Atoi(tok)
	return v, tok, err == nil && v >= 1 && v <= MaxPorts
}

// portCountProblem says what is wrong with a header's port count tok, as
// the start of a message, or "" when the count was fine.
func portCountProblem(ok bool, tok string) string {
	if ok {
		return ""
	}
	if tok == "" {
		return "no port count; "
	}
	return fmt.Sprintf("port count %q is not a number of 1..%d; ", Clip(tok, 20), MaxPorts)
}

// parseUint parses an unsigned number in C notation (0x… hex, else decimal).
func parseUint(s string, bits int) (uint64, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return strconv.ParseUint(s[2:], 16, bits)
	}
	return strconv.ParseUint(s, 10, bits)
}
