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

// leadingInt parses the first run of decimal digits in s.
func leadingInt(s string) (int, bool) {
	i := strings.IndexAny(s, "0123456789")
	if i < 0 {
		return 0, false
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j-i > 9 {
		return 0, false
	}
	v, err := strconv.Atoi(s[i:j])
	return v, err == nil
}

// parseUint parses an unsigned number in C notation (0x… hex, else decimal).
func parseUint(s string, bits int) (uint64, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return strconv.ParseUint(s[2:], 16, bits)
	}
	return strconv.ParseUint(s, 10, bits)
}
