package jobs

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"slimroute/internal/procstat"
)

func TestHostlistExamples(t *testing.T) {
	for in, want := range map[string]string{
		"node[001-003,020]":     "node001 node002 node003 node020",
		"login1":                "login1",
		"gpu[1-2]-ib[0-1],x7":   "gpu1-ib0 gpu1-ib1 gpu2-ib0 gpu2-ib1 x7",
		"n[8-10]":               "n8 n9 n10",
		"a[09-11]b":             "a09b a10b a11b",
		"rack[1,3]-node[01-02]": "rack1-node01 rack1-node02 rack3-node01 rack3-node02",
	} {
		got, err := ExpandHostlist(in)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("%s: %v %v, want %s", in, got, err, want)
		}
	}
}

// TestHostlistReadsWhatAListWrites: 500 drawn sets of host names, written
// as a Slurm list the simple way (runs of consecutive numbers as ranges,
// with their padding, terms in a drawn order), expand to the same names
// in the same order.
func TestHostlistReadsWhatAListWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for c := 0; c < 500; c++ {
		var want, terms []string
		for k := 0; k < 1+rng.IntN(4); k++ {
			prefix := []string{"node", "gpu", "cn-", "r1n"}[rng.IntN(4)]
			width := 1 + rng.IntN(4)
			start := rng.IntN(50)
			var parts []string
			for r := 0; r < 1+rng.IntN(3); r++ {
				lo := start
				hi := lo + rng.IntN(5)
				start = hi + 2 + rng.IntN(5)
				if hi == lo {
					parts = append(parts, fmt.Sprintf("%0*d", width, lo))
				} else {
					parts = append(parts, fmt.Sprintf("%0*d-%0*d", width, lo, width, hi))
				}
				for v := lo; v <= hi; v++ {
					want = append(want, fmt.Sprintf("%s%0*d", prefix, width, v))
				}
			}
			terms = append(terms, prefix+"["+strings.Join(parts, ",")+"]")
		}
		list := strings.Join(terms, ",")
		got, err := ExpandHostlist(list)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s: %v (%v), want %v", list, got, err, want)
		}
	}
}

// TestBadHostlistsAreRefusedBeforeExpansion: malformed lists and lists of
// more hosts than a subnet has are refused, within 64 KiB.
func TestBadHostlistsAreRefusedBeforeExpansion(t *testing.T) {
	for _, in := range []string{"node[", "node]", "node[3-1]", "node[a-b]", "n[1-2],,n3", "node[1-999999999]", "a[1-1000]b[1-1000]", "x[-1]", "n[1-2]]"} {
		var err error
		if n := procstat.Allocated(func() { _, err = ExpandHostlist(in) }); err == nil || n > 64<<10 {
			t.Errorf("%s: %v after %d bytes", in, err, n)
		}
	}
}
