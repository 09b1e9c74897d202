package dragonflyplus_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"testing"

	"slimroute/dragonflyplus"
	"slimroute/internal/designcheck"
	"slimroute/internal/refusal"
)

// TestEveryDragonflyPlusIsOne: 150 drawn shapes (1 to 4 leaves, spines,
// global cables per spine and endpoints, groups drawn among those that
// spread the global cables evenly) and the balanced defaults of radix 4
// to 12 build fabrics the independent judge accepts: complete bipartite
// groups, global cables per spine and per pair of groups, HCAs on leaves,
// leaf-to-leaf distances and names.
func TestEveryDragonflyPlusIsOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var cases []dragonflyplus.Params
	for r := 4; r <= 12; r += 2 {
		cases = append(cases, dragonflyplus.Params{Radix: r})
	}
	for len(cases) < 155 {
		p := dragonflyplus.Params{Leaves: 1 + rng.IntN(4), Spines: 1 + rng.IntN(4), Global: 1 + rng.IntN(4), Endpoints: 1 + rng.IntN(4)}
		var groups []int
		for d := 1; d <= p.Spines*p.Global; d++ {
			if p.Spines*p.Global%d == 0 {
				groups = append(groups, d+1)
			}
		}
		p.Groups = groups[rng.IntN(len(groups))]
		cases = append(cases, p)
	}
	for _, p := range cases {
		t.Run(fmt.Sprintf("%+v", p), func(t *testing.T) {
			f, err := dragonflyplus.Build(p)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := dragonflyplus.Resolve(p)
			if err := designcheck.DragonflyPlus(f, s.Groups, s.Leaves, s.Spines, s.Global, s.Endpoints); err != nil {
				t.Fatal(err)
			}
		})
	}
}

var adviceGroups = regexp.MustCompile(`use groups=(\d+)`)

// TestShapesThatDoNotFitAreRefusedBeforeAllocation: ports, group counts
// that cannot share the global cables evenly, and fabrics beyond one
// subnet's LIDs are refused within 64 KiB; an advised group count builds.
func TestShapesThatDoNotFitAreRefusedBeforeAllocation(t *testing.T) {
	cases := []dragonflyplus.Params{{}, {Radix: 300}, {Radix: 8, Groups: 6}, {Radix: 40}, {Radix: 8, Leaves: 9}, {Leaves: 1 << 40, Spines: 1, Global: 1, Endpoints: 1},
		{Radix: 8, Groups: 1}, {Radix: 8, Endpoints: -2}}
	refusal.Check(t, cases, func(p dragonflyplus.Params) error { _, err := dragonflyplus.Build(p); return err },
		refusal.Advice[dragonflyplus.Params]{Pattern: adviceGroups, Follow: func(p dragonflyplus.Params, n int) dragonflyplus.Params { p.Groups = n; return p }})
}
