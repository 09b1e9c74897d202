package deadlock

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomRoutes draws n routes of 2..5 distinct channels out of C: dense
// enough that first fit needs several VLs.
func randomRoutes(rng *rand.Rand, n, C int) (off, chans []int32) {
	off = []int32{0}
	for i := 0; i < n; i++ {
		l := 2 + rng.IntN(4)
		perm := rng.Perm(C)[:l]
		for _, c := range perm {
			chans = append(chans, int32(c))
		}
		off = append(off, int32(len(chans)))
	}
	return off, chans
}

// acyclic reports whether the dependencies of the routes rs (consecutive
// channels of each) form an acyclic graph over C channels, by Kahn's
// algorithm (nothing of dag.go is used).
func acyclic(rs []int, off, chans []int32, C int) bool {
	succ := make([]map[int32]bool, C)
	in := make([]int, C)
	for _, r := range rs {
		c := chans[off[r]:off[r+1]]
		for j := 0; j+1 < len(c); j++ {
			if succ[c[j]] == nil {
				succ[c[j]] = map[int32]bool{}
			}
			if !succ[c[j]][c[j+1]] {
				succ[c[j]][c[j+1]] = true
				in[c[j+1]]++
			}
		}
	}
	var queue []int32
	for x := range in {
		if in[x] == 0 {
			queue = append(queue, int32(x))
		}
	}
	seen := 0
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		seen++
		for y := range succ[x] {
			if in[y]--; in[y] == 0 {
				queue = append(queue, y)
			}
		}
	}
	return seen == C
}

// dagEdges returns g's edges, sorted, and checks that pred mirrors succ.
func dagEdges(t *testing.T, g *dag) [][2]int32 {
	t.Helper()
	var out [][2]int32
	for a, bs := range g.succ {
		for _, b := range bs {
			out = append(out, [2]int32{int32(a), b})
			if !slices.Contains(g.pred[b], int32(a)) {
				t.Fatalf("edge %d→%d missing from pred", a, b)
			}
		}
	}
	slices.SortFunc(out, func(x, y [2]int32) int { return int(edgeKey(x[0], x[1]) - edgeKey(y[0], y[1])) })
	return out
}

// unionEdges returns the distinct dependencies of the routes rs, sorted.
func unionEdges(rs []int, off, chans []int32) [][2]int32 {
	var out [][2]int32
	for _, r := range rs {
		c := chans[off[r]:off[r+1]]
		for j := 0; j+1 < len(c); j++ {
			if e := [2]int32{c[j], c[j+1]}; !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	slices.SortFunc(out, func(x, y [2]int32) int { return int(edgeKey(x[0], x[1]) - edgeKey(y[0], y[1])) })
	return out
}

// TestDAGAddAndRemoveRoutes adds and removes generated routes at random:
// tryAdd must accept a route exactly when the routes present plus it stay
// acyclic (judged by Kahn's algorithm), the graph must hold exactly the
// dependencies of the routes present, and blockers must leave it as it
// was and come back empty only for a route that fits.
func TestDAGAddAndRemoveRoutes(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		C := 6 + rng.IntN(20)
		off, chans := randomRoutes(rng, 60, C)
		g := newDAG(C)
		var present []int
		for step := 0; step < 200; step++ {
			r := rng.IntN(len(off) - 1)
			c := chans[off[r]:off[r+1]]
			if i := slices.Index(present, r); i >= 0 && rng.IntN(2) == 0 {
				g.remove(c)
				present = slices.Delete(present, i, i+1)
			} else if i < 0 {
				want := acyclic(append(slices.Clone(present), r), off, chans, C)
				before := dagEdges(t, g)
				block := g.blockers(c)
				if !slices.Equal(dagEdges(t, g), before) {
					t.Fatalf("seed %d step %d: blockers changed the graph", seed, step)
				}
				if got := g.tryAdd(c); got != want {
					t.Fatalf("seed %d step %d: tryAdd(%v) = %v, want %v", seed, step, c, got, want)
				} else if got {
					present = append(present, r)
				}
				if (len(block) == 0) != want {
					t.Fatalf("seed %d step %d: %d blockers for a route that fits: %v", seed, step, len(block), want)
				}
			}
			if got, want := dagEdges(t, g), unionEdges(present, off, chans); !slices.Equal(got, want) {
				t.Fatalf("seed %d step %d: graph %v, routes present %v", seed, step, got, want)
			}
		}
	}
}

// TestReseatTopKeepsEveryVLAcyclic packs generated route sets first fit
// and reseats the top VL: every VL's routes must stay acyclic (Kahn),
// each VL's graph must hold exactly its routes' dependencies, no more VLs
// may be used than before, and over the cases some must need fewer.
func TestReseatTopKeepsEveryVLAcyclic(t *testing.T) {
	fewer := 0
	for seed := uint64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 2))
		C := 10 + rng.IntN(30)
		off, chans := randomRoutes(rng, 40+rng.IntN(200), C)
		routes := make([]route, len(off)-1)
		vl, failed, dags := packFirstFitDAGs(routes, off, chans, C, MaxVLs)
		if len(failed) > 0 {
			continue
		}
		before := vlsUsed(vl)
		reseatTop(off, chans, vl, dags)
		after := vlsUsed(vl)
		if after > before {
			t.Fatalf("seed %d: %d VLs after reseating, %d before", seed, after, before)
		}
		if after < before {
			fewer++
		}
		for v := 0; v < MaxVLs; v++ {
			var on []int
			for r, w := range vl {
				if int(w) == v {
					on = append(on, r)
				}
			}
			if !acyclic(on, off, chans, C) {
				t.Fatalf("seed %d: VL %d has a cycle", seed, v)
			}
			if dags[v] == nil {
				if len(on) > 0 {
					t.Fatalf("seed %d: VL %d has routes and no graph", seed, v)
				}
				continue
			}
			if got, want := dagEdges(t, dags[v]), unionEdges(on, off, chans); !slices.Equal(got, want) {
				t.Fatalf("seed %d: VL %d graph %v, its routes' dependencies %v", seed, v, got, want)
			}
		}
	}
	t.Logf("%d of 200 packings need fewer VLs after reseating", fewer)
	if fewer == 0 {
		t.Fatal("no packing needed fewer VLs after reseating: the generator does not exercise it")
	}
}
