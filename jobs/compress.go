package jobs

import (
	"fmt"
	"strconv"
	"strings"
)

// CompressHostlist writes host names as a Slurm host list, the inverse of
// ExpandHostlist: ExpandHostlist(CompressHostlist(names)) gives names
// back in the same order. Neighbouring names that differ only in their
// last run of digits share a bracket ("node001", "node002", "node020" →
// "node[001-002,020]"); a run of consecutive numbers of one padding is a
// range. Names must not hold the list's own characters ([ ] , or white
// space; CheckHostName refuses them). O(total length of the names).
func CompressHostlist(names []string) string {
	var terms []string
	for i := 0; i < len(names); {
		pre, _, suf, ok := splitNumber(names[i])
		j := i + 1
		for ok && j < len(names) {
			p, _, s, ok2 := splitNumber(names[j])
			if !ok2 || p != pre || s != suf {
				break
			}
			j++
		}
		if j == i+1 {
			terms = append(terms, names[i])
		} else {
			terms = append(terms, pre+"["+ranges(names[i:j], len(pre), len(suf))+"]"+suf)
		}
		i = j
	}
	return strings.Join(terms, ",")
}

// splitNumber splits a name at its last run of digits: "gpu2-ib10" is
// "gpu2-ib", "10", "". ok is false for a name without digits or whose
// last run is too long for a host list's range (over 9 digits).
func splitNumber(name string) (prefix, digits, suffix string, ok bool) {
	end := len(name)
	for end > 0 && !isDigitByte(name[end-1]) {
		end--
	}
	start := end
	for start > 0 && isDigitByte(name[start-1]) {
		start--
	}
	if start == end || end-start > 9 {
		return "", "", "", false
	}
	return name[:start], name[start:end], name[end:], true
}

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }

// ranges writes the numbers of names (the digits between a prefix of
// length pre and a suffix of length suf) as comma-separated ranges: a run
// of consecutive values that each print with the run's first number's
// padding is lo-hi, as ExpandHostlist reads it back.
func ranges(names []string, pre, suf int) string {
	var parts []string
	for i := 0; i < len(names); {
		lo := names[i][pre : len(names[i])-suf]
		v, _ := strconv.Atoi(lo)
		j := i + 1
		for ; j < len(names); j++ {
			if names[j][pre:len(names[j])-suf] != fmt.Sprintf("%0*d", len(lo), v+j-i) {
				break
			}
		}
		if j == i+1 {
			parts = append(parts, lo)
		} else {
			parts = append(parts, lo+"-"+names[j-1][pre:len(names[j-1])-suf])
		}
		i = j
	}
	return strings.Join(parts, ",")
}

// CheckHostName says why name cannot be a node in a Slurm host list or
// configuration file, or returns nil: a name is letters, digits, '-',
// '_' and '.', and starts with a letter or digit.
func CheckHostName(name string) error {
	if name == "" {
		return fmt.Errorf("an empty name")
	}
	for i, r := range name {
		ok := r < 128 && (isDigitByte(byte(r)) || ('a' <= r|0x20 && r|0x20 <= 'z') || (i > 0 && strings.ContainsRune("-_.", r)))
		if !ok {
			return fmt.Errorf("%q: a host name is letters, digits, '-', '_' and '.', starting with a letter or digit", name)
		}
	}
	return nil
}
