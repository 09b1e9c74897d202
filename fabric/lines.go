package fabric

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxLine bounds one input line; longer lines are an error, not a crash.
const maxLine = 1 << 20

// readLines reads r into numbered lines with trailing CR/LF removed.
func readLines(r io.Reader, file string) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, &ParseError{File: file, Line: len(lines) + 1, Msg: fmt.Sprintf("line longer than %d bytes; is this a text file?", maxLine)}
		}
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return lines, nil
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
	return fmt.Sprintf("port count %q is not a number of 1..%d; ", truncate(tok, 20), MaxPorts)
}

// parseUint parses an unsigned number in C notation (0x… hex, else decimal).
func parseUint(s string, bits int) (uint64, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return strconv.ParseUint(s[2:], 16, bits)
	}
	return strconv.ParseUint(s, 10, bits)
}
