package jobs

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxHosts bounds the hosts of one job (one subnet's LIDs): a host list
// that expands to more is refused before it is expanded.
const MaxHosts = 49151

// ExpandHostlist expands a Slurm host list — "node[001-016,020]",
// "gpu[1-2]-ib[0-1],login1" — into host names in the order Slurm lists
// them: terms left to right, each bracket's ranges in order, the last
// bracket fastest. A range keeps the zero padding of its first number.
func ExpandHostlist(s string) ([]string, error) {
	var out []string
	for _, term := range splitTop(s) {
		if term == "" {
			return nil, fmt.Errorf("host list %q: an empty name between commas", s)
		}
		n, err := count(term)
		if err != nil {
			return nil, fmt.Errorf("host list %q: %v", s, err)
		}
		if n > MaxHosts-len(out) {
			return nil, fmt.Errorf("host list %q: more than %d hosts", s, MaxHosts)
		}
		out = expand(term, out)
	}
	return out, nil
}

// splitTop splits s at the commas outside brackets.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// count checks a term's brackets and returns how many names it expands
// to, without expanding it.
func count(term string) (int, error) {
	n := 1
	for rest := term; ; {
		open := strings.IndexByte(rest, '[')
		if open < 0 {
			if strings.ContainsAny(rest, "]") {
				return 0, fmt.Errorf("%q: a ] without [", term)
			}
			return n, nil
		}
		end := strings.IndexByte(rest[open:], ']')
		if end < 0 || strings.ContainsAny(rest[:open], "]") {
			return 0, fmt.Errorf("%q: unbalanced brackets", term)
		}
		ranges, err := parseRanges(rest[open+1 : open+end])
		if err != nil {
			return 0, fmt.Errorf("%q: %v", term, err)
		}
		k := 0
		for _, r := range ranges {
			k += r.hi - r.lo + 1
		}
		if n *= k; n > MaxHosts {
			return n, nil
		}
		rest = rest[open+end+1:]
	}
}

type numRange struct{ lo, hi, width int }

// parseRanges reads "001-016,020".
func parseRanges(s string) ([]numRange, error) {
	var out []numRange
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a < 0 || b < a || b-a >= MaxHosts || len(lo) > 9 || len(hi) > 9 {
			return nil, fmt.Errorf("[%s]: want numbers and ranges such as 001-016,020", s)
		}
		out = append(out, numRange{a, b, len(lo)})
	}
	return out, nil
}

// expand appends the names of a checked term to out.
func expand(term string, out []string) []string {
	open := strings.IndexByte(term, '[')
	if open < 0 {
		return append(out, term)
	}
	end := open + strings.IndexByte(term[open:], ']')
	ranges, _ := parseRanges(term[open+1 : end])
	for _, r := range ranges {
		for v := r.lo; v <= r.hi; v++ {
			out = expand(fmt.Sprintf("%s%0*d%s", term[:open], r.width, v, term[end+1:]), out)
		}
	}
	return out
}
