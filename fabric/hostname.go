package fabric

import "strings"

// HostName is the host an HCA's node description names: the description
// up to its first space ("node017" of "node017 mlx5_0", the form a host's
// operating system sets: its host name, a space, the device), or the
// whole description when it has no space (a built or planned fabric names
// its HCAs so). device is the rest ("mlx5_0"), "" without one.
func HostName(desc string) (host, device string) {
	host, device, _ = strings.Cut(desc, " ")
	return host, device
}

// NaturalLess compares names piece by piece, runs of digits by their
// value ("node9" before "node10"); names equal that way ("a01", "a1")
// fall back to byte order, so the order is total.
func NaturalLess(a, b string) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			ei, ej := digitsEnd(a, i), digitsEnd(b, j)
			x, y := strings.TrimLeft(a[i:ei], "0"), strings.TrimLeft(b[j:ej], "0")
			if len(x) != len(y) {
				return len(x) < len(y)
			}
			if x != y {
				return x < y
			}
			i, j = ei, ej
			continue
		}
		if a[i] != b[j] {
			return a[i] < b[j]
		}
		i, j = i+1, j+1
	}
	if len(a)-i != len(b)-j {
		return len(a)-i < len(b)-j
	}
	return a < b
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}
