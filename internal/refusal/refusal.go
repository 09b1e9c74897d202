// Package refusal checks, for the tests of the fabric builders, that
// parameters which do not fit are refused before anything is allocated,
// and that advice in the refusal builds when followed.
package refusal

import (
	"regexp"
	"strconv"
	"testing"

	"slimroute/internal/procstat"
)

// maxBytes is what a refusal may allocate: the error and its advice.
const maxBytes = 64 << 10

// Advice is a number an error advises and how to follow it: the
// parameters with that number put in.
type Advice[P any] struct {
	Pattern *regexp.Regexp // its first group is the number
	Follow  func(p P, n int) P
}

// Check requires build to refuse each of cases allocating at most
// maxBytes, and, where the error matches an advice, build to accept the
// parameters with the advised number put in. It logs each error.
func Check[P any](t *testing.T, cases []P, build func(P) error, advice ...Advice[P]) {
	t.Helper()
	for _, p := range cases {
		var err error
		if n := procstat.Allocated(func() { err = build(p) }); err == nil || n > maxBytes {
			t.Fatalf("%+v: %v after %d bytes", p, err, n)
		}
		for _, a := range advice {
			m := a.Pattern.FindStringSubmatch(err.Error())
			if m == nil {
				continue
			}
			n, _ := strconv.Atoi(m[1])
			if err2 := build(a.Follow(p, n)); err2 != nil {
				t.Errorf("%v\n  advised %s, which fails: %v", err, m[0], err2)
			}
		}
		t.Log(err)
	}
}
