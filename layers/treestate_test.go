package layers

import (
	"math/rand/v2"
	"slices"
	"testing"

	"slimroute/fabric"
)

// TestTreeStateMoveMatchesARebuild moves random switches of the trees of
// generated fabrics to random next hops (any that keep the tree a tree,
// lengths unchecked) and compares the state move keeps with one read
// afresh from the changed table after every move: next switches,
// lengths, last switches, route counts, children in order, and the slack
// up and down. The tree (tree.go) is the one regrowing moves too.
func TestTreeStateMoveMatchesARebuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 0))
	moves := 0
	forBalanceCases(t, 11, 16, 6, func(i int, f *fabric.Fabric, o Options) {
		o.Unbalanced = true
		r, err := Compute(f, o)
		if err != nil {
			return // a draw that split the fabric
		}
		g := r.g
		S := len(g.adj)
		b := newBalancer(g, r)
		fresh := newTreeState(S)
		for try := 0; try < 20; try++ {
			k, d := 1+rng.IntN(r.layers-1), r.share[rng.IntN(g.nEP)]
			b.build(k, d)
			b.tree.measure(b)
			ts := b.tree
			for m := 0; m < 30; m++ {
				v := rng.IntN(S)
				if v == ts.t {
					continue
				}
				j := rng.IntN(len(g.adj[v]))
				if ts.inSubtree(int(g.peer[g.chOff[v]+j]), v) {
					continue // a loop
				}
				ts.move(b, v, j)
				moves++
				fresh.build(g, slices.Clone(ts.tab), ts.t, int64(len(b.members[d])))
				fresh.measure(b)
				for s := 0; s < S; s++ {
					if fresh.hops[s] != ts.hops[s] || fresh.sub[s] != ts.sub[s] || fresh.up[s] != ts.up[s] || fresh.down[s] != ts.down[s] ||
						fresh.par[s] != ts.par[s] || fresh.ent[s] != ts.ent[s] {
						t.Fatalf("case %d, layer %d tree %d, after moving switch %d: switch %d has next %d hops %d last %d sub %d up %d down %d, a rebuild %d %d %d %d %d %d",
							i, k, d, v, s, ts.par[s], ts.hops[s], ts.ent[s], ts.sub[s], ts.up[s], ts.down[s], fresh.par[s], fresh.hops[s], fresh.ent[s], fresh.sub[s], fresh.up[s], fresh.down[s])
					}
					if !slices.Equal(ts.subtree(int32(s), nil), fresh.subtree(int32(s), nil)) {
						t.Fatalf("case %d, layer %d tree %d, after moving switch %d: switch %d's subtree %v, a rebuild %v", i, k, d, v, s, ts.subtree(int32(s), nil), fresh.subtree(int32(s), nil))
					}
				}
			}
		}
	})
	if moves == 0 {
		t.Fatal("no move made")
	}
}
