package slimfly

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/gf"
	"slimroute/internal/procstat"
)

var (
	adviceEndpoints = regexp.MustCompile(`at most (\d+) endpoints per switch`)
	adviceQ         = regexp.MustCompile(`q ≤ (\d+) with the default endpoints`)
	adviceUpTo      = regexp.MustCompile(`up to (\d+) with fewer endpoints per switch`)
	adviceTryQ      = regexp.MustCompile(`try q in \{([\d, ]+)\}`)
	adviceRadix     = regexp.MustCompile(`at least (\d+) ports`)
)

// TestParametersCheckedBeforeAllocation builds Slim Flies from 1200 seeded
// random parameter sets — q anywhere in the int range, near the largest
// q, and in range with random endpoint and radix counts — and requires:
// a refusal allocates under 64 KiB (the parameters are checked before any
// allocation that depends on them), names the parameter, and its advice
// (at most N endpoints, q ≤ M) builds; a fabric that is built fits one
// subnet's LIDs.
func TestParametersCheckedBeforeAllocation(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 5))
	built := 0
	followed := map[string]bool{}
	for i := 0; i < 1200; i++ {
		var p Params
		switch i % 3 {
		case 0:
			a, b := rng.Int64(), rng.Int64()
			p.Q = int(a) - int(b)
		case 1:
			p.Q = MaxQ() - 20 + rng.IntN(1<<uint(rng.IntN(24)))
		case 2:
			p.Q = 3 + rng.IntN(40)
			p.Endpoints = rng.IntN(64) - 2
			if rng.IntN(4) == 0 {
				p.Endpoints = int(rng.Int64())
			}
			if rng.IntN(3) == 0 {
				p.Radix = rng.IntN(300) - 10
			}
		}
		var f *fabric.Fabric
		var err error
		n := procstat.Allocated(func() { f, err = Build(p) })
		if err == nil {
			built++
			if f.NumNodes() > fabric.MaxLIDs {
				t.Fatalf("%+v: built %d nodes, more than one subnet's %d LIDs", p, f.NumNodes(), fabric.MaxLIDs)
			}
			continue
		}
		msg := err.Error()
		if n > 64<<10 {
			t.Errorf("%+v: refused after allocating %d KiB: %s", p, n>>10, msg)
		}
		if !strings.Contains(msg, "q="+strconv.Itoa(p.Q)) && !strings.Contains(msg, "endpoints=") && !strings.Contains(msg, "radix") {
			t.Errorf("%+v: %q names no parameter", p, msg)
		}
		checkLIDAdvice(t, p, msg, followed)
		checkShapeAdvice(t, p, msg, followed)
	}
	if built < 50 {
		t.Errorf("only %d of 1200 parameter sets built; the generator misses the valid range", built)
	}
	t.Logf("1200 parameter sets, %d built", built)
}

// checkShapeAdvice follows the advice of a refusal for the shape: every q
// of "try q in {…}" builds with the defaults; with "at least N ports" or
// "at most E endpoints" the ports no longer fall short (a LID limit, with
// advice of its own, may still apply).
func checkShapeAdvice(t *testing.T, p Params, msg string, followed map[string]bool) {
	t.Helper()
	if m := adviceTryQ.FindStringSubmatch(msg); m != nil {
		for _, v := range strings.Split(m[1], ", ") {
			q, _ := strconv.Atoi(v)
			if !followed["q"+v] {
				followed["q"+v] = true
				if _, err := Build(Params{Q: q}); err != nil {
					t.Errorf("%+v: %s\n  advised q=%d, which fails: %v", p, msg, q, err)
				}
			}
		}
	}
	if !strings.Contains(msg, "but radix is") {
		return
	}
	fixes := []Params{p, p}
	if m := adviceRadix.FindStringSubmatch(msg); m != nil {
		fixes[0].Radix, _ = strconv.Atoi(m[1])
	}
	if m := adviceEndpoints.FindStringSubmatch(msg); m != nil {
		fixes[1].Endpoints, _ = strconv.Atoi(m[1])
	}
	for _, fixed := range fixes {
		if fixed == p {
			continue
		}
		if _, err := Build(fixed); err != nil && strings.Contains(err.Error(), "but radix is") {
			t.Errorf("%+v: %s\n  followed as %+v, still short of ports: %v", p, msg, fixed, err)
		}
	}
}

// checkLIDAdvice follows the advice of a refusal for size: q up to M
// with one endpoint, or N endpoints per switch, or q = M with defaults
// build, N+1 endpoints do not. followed holds the q advice already built.
func checkLIDAdvice(t *testing.T, p Params, msg string, followed map[string]bool) {
	t.Helper()
	if m := adviceUpTo.FindStringSubmatch(msg); m != nil && !followed[m[0]] {
		followed[m[0]] = true // the same advice for every q too large: build it once
		q, _ := strconv.Atoi(m[1])
		if _, err := Build(Params{Q: q, Endpoints: 1}); err != nil {
			t.Errorf("%+v: %s\n  advised q up to %d with fewer endpoints, but one fails: %v", p, msg, q, err)
		}
	}
	if !strings.Contains(msg, "LIDs") {
		return
	}
	if m := adviceEndpoints.FindStringSubmatch(msg); m != nil {
		most, _ := strconv.Atoi(m[1])
		fixed := p
		fixed.Endpoints = most
		if _, err := Build(fixed); err != nil {
			t.Errorf("%+v: %s\n  advised %s, which fails: %v", p, msg, m[0], err)
		}
		fixed.Endpoints++
		if _, err := Build(fixed); err == nil {
			t.Errorf("%+v: %s\n  advised %s, but %d fit", p, msg, m[0], most+1)
		}
	}
	if m := adviceQ.FindStringSubmatch(msg); m != nil && !followed[m[0]] {
		followed[m[0]] = true
		q, _ := strconv.Atoi(m[1])
		if _, err := Build(Params{Q: q}); err != nil {
			t.Errorf("%+v: %s\n  advised %s, which fails: %v", p, msg, m[0], err)
		}
	}
}

func TestHugeQIsRefusedAtOnce(t *testing.T) {
	for _, q := range []int{4294967291, 1000003, math.MaxInt, MaxQ() + 1} {
		var err error
		if n := procstat.Allocated(func() { _, err = Build(Params{Q: q}) }); err == nil || n > 64<<10 {
			t.Errorf("q=%d: %v after %d bytes", q, err, n)
		}
		if _, err := gf.New(q); err == nil {
			t.Errorf("gf.New(%d) accepted", q)
		}
	}
	if _, err := Build(Params{Q: MaxQ(), Endpoints: 1}); err != nil {
		t.Errorf("the largest q with one endpoint per switch: %v", err)
	}
}
