package jobs

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestCompressHostlistExamples(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"node001 node002 node003 node020", "node[001-003,020]"},
		{"n9 n10 n11", "n[9-11]"},
		{"a09b a10b a11b x", "a[09-11]b,x"},
		{"gpu1-ib0 gpu1-ib1 gpu2-ib0", "gpu1-ib[0-1],gpu2-ib0"},
		{"login", "login"},
		{"n1 n01 n2", "n[1,01,2]"},
	} {
		if got := CompressHostlist(strings.Fields(c.in)); got != c.want {
			t.Errorf("%s: %s, want %s", c.in, got, c.want)
		}
	}
}

// TestCompressedHostlistsExpandToTheNames: 5,000 drawn lists of host
// names — prefixes with and without digits, suffixes, paddings, runs,
// gaps, repeats, names without digits and with digit runs too long for a
// range, in drawn order — compress to a list ExpandHostlist reads back as
// the same names in the same order; sorted lists of one prefix compress
// to a single term.
func TestCompressedHostlistsExpandToTheNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	for c := 0; c < 5000; c++ {
		names := drawNames(rng)
		list := CompressHostlist(names)
		got, err := ExpandHostlist(list)
		if err != nil || !slices.Equal(got, names) {
			t.Fatalf("%q compressed to %s, which expands to %q (%v)", names, list, got, err)
		}
	}
	for c := 0; c < 500; c++ {
		var names []string
		for v := rng.IntN(50); len(names) < 1+rng.IntN(40); v += 1 + rng.IntN(3) {
			names = append(names, fmt.Sprintf("cn%03d", v))
		}
		if list := CompressHostlist(names); strings.Count(list, "cn") != 1 || (len(names) > 1 && !strings.HasPrefix(list, "cn[")) {
			t.Fatalf("%q compressed to %s, want one term", names, list)
		}
	}
}

// drawNames draws 1 to 60 host names.
func drawNames(rng *rand.Rand) []string {
	prefixes := []string{"node", "gpu1-ib", "r2n", "cn-", "", "a.b", "x_"}
	suffixes := []string{"", "", "-ib", "b"}
	var names []string
	for len(names) < 1+rng.IntN(60) {
		pre, suf := prefixes[rng.IntN(len(prefixes))], suffixes[rng.IntN(len(suffixes))]
		switch rng.IntN(10) {
		case 0:
			names = append(names, "login"+suf)
			continue
		case 1:
			names = append(names, fmt.Sprintf("big%d", 1000000000+rng.IntN(1000)))
			continue
		}
		width, v := 1+rng.IntN(4), rng.IntN(120)
		for k := 0; k < 1+rng.IntN(8); k++ {
			if pre == "" && suf == "" {
				pre = "h"
			}
			names = append(names, fmt.Sprintf("%s%0*d%s", pre, width, v, suf))
			v += 1 + rng.IntN(2)*rng.IntN(3) - rng.IntN(2)*rng.IntN(2)*2
			v = max(v, 0)
		}
	}
	return names
}
