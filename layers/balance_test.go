package layers

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"slimroute/fabric"
	"slimroute/slimfly"
)

// TestBalanceKeepsItsPromises routes generated fabrics — Slim Flies with
// failed cables, random graphs with 2..3-hop and per-pair bounds, 2 to 8
// layers, shared and own trees — with and without the balancing and
// mending passes, and judges the balanced routing against the unbalanced
// one by walking both (nothing of balance.go or mend.go is used):
//   - every layer's busiest channel carries no more, and no channel more
//     over all layers than the unbalanced routing's busiest;
//   - a path in bounds stays in bounds, and none grows past the longer of
//     its upper bound and its distance;
//   - no (source switch, destination endpoint) pair gets fewer than
//     min(its disjoint paths before, 3) disjoint counted paths.
func TestBalanceKeepsItsPromises(t *testing.T) {
	moved := 0
	forBalanceCases(t, 7, 40, 12, func(i int, f *fabric.Fabric, o Options) {
		t.Run(fmt.Sprintf("case=%d", i), func(t *testing.T) {
			u := o
			u.Unbalanced = true
			r0, err := Compute(f, u)
			if err != nil {
				t.Skipf("%v", err) // a draw that split the fabric
			}
			r1, err := Compute(f, o)
			if err != nil {
				t.Fatal(err)
			}
			checkRouting(t, f, r1)
			moved += judgeBalance(t, r0, r1)
		})
	})
	if moved == 0 {
		t.Fatal("no case moved a route: the generator does not exercise the pass")
	}
}

// forBalanceCases calls fn with n generated fabrics and options (short
// of them with -short), drawn from seed.
func forBalanceCases(t *testing.T, seed uint64, n, short int, fn func(i int, f *fabric.Fabric, o Options)) {
	rng := rand.New(rand.NewPCG(seed, 0))
	if testing.Short() {
		n = short
	}
	for i := 0; i < n; i++ {
		f, o := balanceCase(t, rng, i)
		fn(i, f, o)
	}
}

// balanceCase draws fabric and options number i.
func balanceCase(t *testing.T, rng *rand.Rand, i int) (*fabric.Fabric, Options) {
	o := Options{Layers: []int{2, 4, 4, 8}[rng.IntN(4)], Seed: uint64(i), Trees: []int{-1, 3, 4}[rng.IntN(3)], Workers: 1 + i%2, NoRegrow: true}
	if i%2 == 0 {
		f, err := slimfly.Build(slimfly.Params{Q: []int{4, 5, 5, 7}[rng.IntN(4)]})
		if err != nil {
			t.Fatal(err)
		}
		for j, l := range f.Links() {
			if f.Node(l.A.Node).Kind == fabric.Switch && f.Node(l.B.Node).Kind == fabric.Switch && rng.IntN(40) == 0 {
				o.AvoidLinks = append(o.AvoidLinks, j)
			}
		}
		return f, o
	}
	if rng.IntN(2) == 0 {
		o.MinLen, o.MaxLen = 2, 3
	}
	return randomFabric(t, rng, 4+rng.IntN(30)), o
}

// judgeBalance checks r1 against r0 and returns how many routes differ.
func judgeBalance(t *testing.T, r0, r1 *Routing) int {
	t.Helper()
	L, S, E := r0.NumLayers(), r0.NumSwitches(), r0.NumEndpoints()
	C := r0.NumChannels()
	diff := 0
	tot0, tot1 := make([]int, C), make([]int, C)
	for k := 0; k < L; k++ {
		l0, l1 := make([]int, C), make([]int, C)
		for d := 0; d < E; d++ {
			for s := 0; s < S; s++ {
				if s == r0.DestSwitch(d) || r0.Hosts(s) == 0 {
					continue
				}
				p0, _ := r0.PathChannels(k, s, d, nil)
				p1, _ := r1.PathChannels(k, s, d, nil)
				if !slices.Equal(p0, p1) {
					diff++
				}
				for _, c := range p0 {
					l0[c] += r0.Hosts(s)
					tot0[c] += r0.Hosts(s)
				}
				for _, c := range p1 {
					l1[c] += r0.Hosts(s)
					tot1[c] += r0.Hosts(s)
				}
			}
		}
		if slices.Max(l1) > slices.Max(l0) {
			t.Errorf("layer %d: busiest channel %d routes, %d unbalanced", k, slices.Max(l1), slices.Max(l0))
		}
	}
	if slices.Max(tot1) > slices.Max(tot0) {
		t.Errorf("all layers: busiest channel %d routes, %d unbalanced", slices.Max(tot1), slices.Max(tot0))
	}
	for d := 0; d < E; d++ {
		for s := 0; s < S; s++ {
			if s != r0.DestSwitch(d) && r0.Hosts(s) > 0 {
				judgePair(t, r0, r1, s, d)
			}
		}
	}
	return diff
}

// judgePair checks the lengths and disjoint paths of pair (s, d).
func judgePair(t *testing.T, r0, r1 *Routing, s, d int) {
	t.Helper()
	var p0, p1 [][]int
	for k := 0; k < r0.NumLayers(); k++ {
		a, _ := r0.PathChannels(k, s, d, nil)
		b, _ := r1.PathChannels(k, s, d, nil)
		p0, p1 = append(p0, a), append(p1, b)
	}
	dist := len(p0[0]) // layer 0 is minimal
	lo, hi := r0.Bounds.Min, r0.Bounds.Max
	if r0.Bounds.PerPair {
		lo, hi = dist, min(dist+1, MaxSearchLen)
	}
	in := func(k, n int) bool { return k == 0 || (n >= lo && n <= hi) }
	for k := 1; k < len(p0); k++ {
		a, b := len(p0[k]), len(p1[k])
		if in(k, a) && !in(k, b) || b > max(a, hi, dist) {
			t.Errorf("pair (%d, %d) layer %d: %d hops unbalanced, %d balanced (bounds %d..%d, distance %d)", s, d, k, a, b, lo, hi, dist)
		}
	}
	if a, b := mostDisjoint(p0, in), mostDisjoint(p1, in); b < min(a, 3) {
		t.Errorf("pair (%d, %d): %d disjoint paths unbalanced, %d balanced", s, d, a, b)
	}
}

// mostDisjoint returns the most pairwise channel-disjoint paths among
// paths (one per layer) whose lengths in(layer, hops) accepts.
func mostDisjoint(paths [][]int, in func(k, n int) bool) int {
	best := 0
	for set := 1; set < 1<<len(paths); set++ {
		var used []int
		n, ok := 0, true
		for k := range paths {
			if set&(1<<k) == 0 {
				continue
			}
			if !in(k, len(paths[k])) {
				ok = false
				break
			}
			for _, c := range paths[k] {
				if slices.Contains(used, c) {
					ok = false
				}
				used = append(used, c)
			}
			n++
		}
		if ok {
			best = max(best, n)
		}
	}
	return best
}

// TestKeptTreesChangeNothing balances the generated fabrics of
// TestBalanceKeepsItsPromises with and without keeping the trees relieve
// visits (balancer.visit): a kept tree, brought up to date by its moves,
// must judge every later move as a tree read afresh does, so the tables
// are the same.
func TestKeptTreesChangeNothing(t *testing.T) {
	defer func(v int) { keptTreesMax = v }(keptTreesMax)
	forBalanceCases(t, 11, 24, 8, func(i int, f *fabric.Fabric, o Options) {
		keptTreesMax = 0
		r0, err := Compute(f, o)
		if err != nil {
			return // a draw that split the fabric
		}
		keptTreesMax = 1 << 40
		r1, err := Compute(f, o)
		if err != nil {
			t.Fatal(err)
		}
		for k := range r0.next {
			if !slices.Equal(r0.next[k], r1.next[k]) {
				t.Errorf("case %d, layer %d: the tables differ with the trees kept", i, k)
			}
		}
	})
}
