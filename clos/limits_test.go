package clos

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/procstat"
)

// count draws a parameter: mostly small, sometimes zero (the default),
// negative or huge.
func count(rng *rand.Rand, small int) int {
	switch rng.IntN(8) {
	case 0:
		return 0
	case 1:
		return -rng.IntN(1 << uint(rng.IntN(63)))
	case 2:
		return rng.IntN(1 << uint(rng.IntN(63)))
	default:
		return rng.IntN(small + 1)
	}
}

var adviceMost = regexp.MustCompile(`set (pods|leaves) to at most (\d+)`)

// TestClosParametersCheckedBeforeAllocation builds Clos fabrics from 2000
// seeded random parameter sets (radix mostly up to 41, sometimes -20..279, every count
// also zero, negative or huge) and requires: a refusal allocates under
// 64 KiB, a built fabric fits one subnet's LIDs, and the advice of a
// "need more LIDs" refusal (set pods or leaves to at most N) builds while
// N+1 does not.
func TestClosParametersCheckedBeforeAllocation(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 7))
	built := 0
	for i := 0; i < 2000; i++ {
		p := Params{Levels: 2 + rng.IntN(2), Radix: 2 + rng.IntN(40)}
		if rng.IntN(8) == 0 {
			p.Radix = rng.IntN(300) - 20
		}
		if rng.IntN(3) == 0 {
			p.HostsPerLeaf, p.LeafUplinks = count(rng, 128), count(rng, 128)
		}
		if rng.IntN(2) == 0 {
			p.Leaves, p.Spines, p.Pods, p.SpineUplinks, p.Cores = count(rng, 64), count(rng, 32), count(rng, 64), count(rng, 32), count(rng, 64)
			if p.Levels == 2 {
				p.Pods, p.SpineUplinks, p.Cores = 0, 0, 0
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
		if n > 64<<10 {
			t.Errorf("%+v: refused after allocating %d KiB: %v", p, n>>10, err)
		}
		if m := adviceMost.FindStringSubmatch(err.Error()); m != nil {
			most, _ := strconv.Atoi(m[2])
			for _, k := range []int{most, most + 1} {
				fixed := p
				if m[1] == "pods" {
					fixed.Pods = k
				} else {
					fixed.Leaves = k
				}
				if _, err2 := Build(fixed); (err2 == nil) != (k == most) {
					t.Errorf("%+v: %v\n  with %s = %d: %v", p, err, m[1], k, err2)
				}
			}
		}
	}
	if built < 100 {
		t.Errorf("only %d of 2000 parameter sets built; the generator misses the valid range", built)
	}
	t.Logf("2000 parameter sets, %d built", built)
}

// TestKAryParametersCheckedBeforeAllocation tries every k in -2..40 and
// some up to the port limit, with n in -1..9: a refusal allocates under 64 KiB, a built tree fits one
// subnet's LIDs, and the advice "use n ≤ N" builds.
func TestKAryParametersCheckedBeforeAllocation(t *testing.T) {
	adviceN := regexp.MustCompile(`use n ≤ (\d+)`)
	ks := []int{63, 64, 100, 126, 127, 128}
	for k := -2; k <= 40; k++ {
		ks = append(ks, k)
	}
	for _, k := range ks {
		for n := -1; n <= 9; n++ {
			var f *fabric.Fabric
			var err error
			bytes := procstat.Allocated(func() { f, err = KAryNTree(k, n) })
			if err == nil {
				if f.NumNodes() > fabric.MaxLIDs {
					t.Fatalf("k=%d n=%d: %d nodes", k, n, f.NumNodes())
				}
				continue
			}
			if bytes > 64<<10 {
				t.Errorf("k=%d n=%d: refused after allocating %d KiB: %v", k, n, bytes>>10, err)
			}
			if m := adviceN.FindStringSubmatch(err.Error()); m != nil {
				fewer, _ := strconv.Atoi(m[1])
				if _, err2 := KAryNTree(k, fewer); err2 != nil {
					t.Errorf("k=%d n=%d: %v\n  with n=%d: %v", k, n, err, fewer, err2)
				}
			}
		}
	}
}

// TestHugeCountsDoNotOverflow gives counts whose products overflow an int.
func TestHugeCountsDoNotOverflow(t *testing.T) {
	for _, p := range []Params{
		{Radix: 8, HostsPerLeaf: 3, LeafUplinks: 4, Spines: 1, Leaves: 1 << 62}, // 4 × 2^62 wraps to 0
		{Levels: 3, Radix: 8, Pods: 1 << 62},
		{Levels: 3, Radix: 8, Cores: 1 << 62},
		{Radix: 8, HostsPerLeaf: 1 << 62, LeafUplinks: 1},
	} {
		var err error
		if n := procstat.Allocated(func() { _, err = Build(p) }); err == nil || n > 64<<10 {
			t.Errorf("%+v: %v after %d bytes", p, err, n)
		}
	}
}
