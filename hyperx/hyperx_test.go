package hyperx_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"testing"

	"slimroute/hyperx"
	"slimroute/internal/designcheck"
	"slimroute/internal/refusal"
)

// TestEveryHyperXIsAHammingGraph: 200 drawn shapes (1 to 3 dimensions of
// 2 to 8 switches, trunking 1 to 3, the default or a drawn endpoint
// count) build fabrics the independent judge accepts: the cables between
// every pair of switches by their coordinates, degrees, diameter, HCAs
// and names.
func TestEveryHyperXIsAHammingGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 200; i++ {
		p := hyperx.Params{Dims: make([]int, 1+rng.IntN(3)), Trunk: rng.IntN(4)}
		for d := range p.Dims {
			p.Dims[d] = 2 + rng.IntN(7)
		}
		if rng.IntN(2) == 0 {
			p.Endpoints = 1 + rng.IntN(5)
		}
		t.Run(fmt.Sprintf("%v", p), func(t *testing.T) {
			f, err := hyperx.Build(p)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := hyperx.Resolve(p)
			if err := designcheck.HyperX(f, p.Dims, s.Trunk, s.Endpoints); err != nil {
				t.Fatal(err)
			}
		})
	}
}

var adviceEndpoints = regexp.MustCompile(`at most (\d+) endpoints`)

// TestShapesThatDoNotFitAreRefusedBeforeAllocation: too many dimensions,
// switches, ports or LIDs are refused within 64 KiB, and advised endpoint
// counts build.
func TestShapesThatDoNotFitAreRefusedBeforeAllocation(t *testing.T) {
	cases := []hyperx.Params{{}, {Dims: []int{2, 2, 2, 2, 2, 2, 2}}, {Dims: []int{1 << 40, 2}}, {Dims: []int{200, 200}}, {Dims: []int{1, 4}},
		{Dims: []int{100, 100, 100}}, {Dims: []int{150, 150}, Trunk: 1, Endpoints: 3}, {Dims: []int{12, 8}, Radix: 20}, {Dims: []int{4}, Trunk: -1}}
	refusal.Check(t, cases, func(p hyperx.Params) error { _, err := hyperx.Build(p); return err },
		refusal.Advice[hyperx.Params]{Pattern: adviceEndpoints, Follow: func(p hyperx.Params, n int) hyperx.Params { p.Endpoints = n; return p }})
}
