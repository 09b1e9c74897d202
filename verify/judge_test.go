package verify_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/verify"
)

// TestVerdictMatchesAWalkOfEveryPath checks Check against a judge that
// shares none of its shortcuts: it follows every HCA port to every
// destination LID hop by hop and collects the CDG — (switch, out port,
// VL) nodes and their dependencies — in maps. The cases are generated:
// random connected switch graphs with HCAs on some switches, LMC 0 or 1,
// every destination routed along a random spanning tree toward its
// switch (so no loop, any path length), random path SLs and random
// SL-to-VL tables per in port on 1 to 4 VLs, so that one channel is
// entered on several VLs toward the same LID. Check must count the same
// (channel, VL) pairs and dependencies, and find a cycle exactly when
// the judge does, one made of the judge's dependencies.
func TestVerdictMatchesAWalkOfEveryPath(t *testing.T) {
	cycles := 0
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 77))
		tab := randomTables(t, rng)
		want := walkEveryPath(t, tab)
		rep, err := verify.Check(tab, 1+int(seed%3))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if rep.Channels != len(want.nodes) || rep.Dependencies != len(want.edges) {
			t.Errorf("seed %d: %d channels and %d dependencies, the judge finds %d and %d", seed, rep.Channels, rep.Dependencies, len(want.nodes), len(want.edges))
		}
		if rep.Acyclic() != !want.cyclic() {
			t.Errorf("seed %d: acyclic %v, the judge finds a cycle: %v", seed, rep.Acyclic(), want.cyclic())
		}
		if !rep.Acyclic() {
			cycles++
			checkCycleIn(t, seed, tab.Fabric(), rep.Cycle, want.edges)
		}
	}
	t.Logf("%d of 400 cases have a credit loop", cycles)
	if cycles < 40 || cycles > 360 {
		t.Errorf("%d of 400 cases have a credit loop: the generator should give both verdicts often", cycles)
	}
}

// cdgNode is a (switch, out port, VL) channel of the judge's CDG.
type cdgNode struct {
	sw  fabric.NodeID
	out int
	vl  uint8
}

type judgedCDG struct {
	nodes map[cdgNode]bool
	edges map[[2]cdgNode]bool
}

// walkEveryPath follows every LID-holding HCA port to every LID of
// another port, recording channels and dependencies.
func walkEveryPath(t *testing.T, tab *lft.Tables) judgedCDG {
	f := tab.Fabric()
	g := judgedCDG{nodes: map[cdgNode]bool{}, edges: map[[2]cdgNode]bool{}}
	ports := tab.LIDs().Ports()
	for _, src := range ports {
		if src.Port.Port == 0 {
			continue // switches send no data that takes VLs
		}
		for _, dst := range ports {
			for lid := dst.Base; lid <= dst.Top() && dst.Port != src.Port; lid++ {
				sl := tab.PathSL(src.Port, lid)
				at, _ := f.Peer(src.Port)
				var prev *cdgNode
				for steps := 0; ; steps++ {
					if steps > f.NumNodes() {
						t.Fatalf("the generator made a loop toward LID %d", lid)
					}
					out := int(tab.Port(at.Node, lid))
					if out == 0 {
						break // the switch owns the LID
					}
					next, ok := f.Peer(fabric.PortRef{Node: at.Node, Port: out})
					if !ok {
						t.Fatalf("the generator routed LID %d into port %d of %s, which has no cable", lid, out, f.Name(at.Node))
					}
					if f.Kind(next.Node) != fabric.Switch {
						break // delivered
					}
					n := cdgNode{at.Node, out, tab.SL2VL(at.Node, at.Port, out, sl)}
					g.nodes[n] = true
					if prev != nil {
						g.edges[[2]cdgNode{*prev, n}] = true
					}
					prev, at = &n, next
				}
			}
		}
	}
	return g
}

// cyclic says whether the judge's CDG has a cycle (depth-first search).
func (g judgedCDG) cyclic() bool {
	succ := map[cdgNode][]cdgNode{}
	for e := range g.edges {
		succ[e[0]] = append(succ[e[0]], e[1])
	}
	state := map[cdgNode]int{} // 1 on the stack, 2 done
	var visit func(n cdgNode) bool
	visit = func(n cdgNode) bool {
		state[n] = 1
		for _, m := range succ[n] {
			if state[m] == 1 || (state[m] == 0 && visit(m)) {
				return true
			}
		}
		state[n] = 2
		return false
	}
	for n := range g.nodes {
		if state[n] == 0 && visit(n) {
			return true
		}
	}
	return false
}

// checkCycleIn checks that the reported cycle closes and that each of its
// steps is a dependency the judge found.
func checkCycleIn(t *testing.T, seed uint64, f *fabric.Fabric, cycle []verify.CycleHop, edges map[[2]cdgNode]bool) {
	t.Helper()
	node := func(h verify.CycleHop) cdgNode {
		id, ok := f.NodeByName(h.Switch)
		if !ok {
			t.Fatalf("seed %d: the cycle names %q, no switch of the fabric", seed, h.Switch)
		}
		return cdgNode{id, h.Port, h.VL}
	}
	if len(cycle) < 2 {
		t.Fatalf("seed %d: a cycle of %d hops", seed, len(cycle))
	}
	for i, h := range cycle {
		a, b := node(h), node(cycle[(i+1)%len(cycle)])
		if !edges[[2]cdgNode{a, b}] {
			t.Errorf("seed %d: the cycle's step %v → %v is no dependency of any path", seed, a, b)
		}
	}
}

// randomTables makes a random fabric and tables for it (see
// TestVerdictMatchesAWalkOfEveryPath).
func randomTables(t *testing.T, rng *rand.Rand) *lft.Tables {
	t.Helper()
	S := 3 + rng.IntN(5)
	var nodes []fabric.Node
	var links []fabric.Link
	used := make([]int, S) // ports in use per switch
	const radix = 12
	for s := range S {
		nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: fmt.Sprintf("sw%d", s), GUID: fabric.GUID(0x1000 + 16*s), Ports: radix})
	}
	cable := func(a, b int) {
		used[a]++
		used[b]++
		links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(a), Port: used[a]}, B: fabric.PortRef{Node: fabric.NodeID(b), Port: used[b]}})
	}
	for s := 1; s < S; s++ { // a random tree, then chords
		cable(s, rng.IntN(s))
	}
	for range rng.IntN(S + 1) {
		a, b := rng.IntN(S), rng.IntN(S)
		if a != b && used[a] < radix-3 && used[b] < radix-3 {
			cable(a, b)
		}
	}
	for s := range S {
		for range rng.IntN(3) {
			h := len(nodes)
			nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: fmt.Sprintf("h%d", h), GUID: fabric.GUID(0x100000 + 16*h), Ports: 1})
			used[s]++
			links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(s), Port: used[s]}, B: fabric.PortRef{Node: fabric.NodeID(h), Port: 1}})
		}
	}
	f, err := fabric.New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: rng.IntN(2)})
	if err != nil {
		t.Fatal(err)
	}
	b := lft.NewBuilder(f, lids)
	for _, pl := range lids.Ports() {
		home := pl.Port.Node
		if pl.Port.Port != 0 {
			at, _ := f.Peer(pl.Port)
			home = at.Node
		}
		for lid := pl.Base; lid <= pl.Top(); lid++ {
			routeAlongARandomTree(f, b, home, pl.Port, lid, rng)
		}
	}
	for _, pl := range lids.Ports() {
		if pl.Port.Port == 0 {
			continue
		}
		row, sls := b.AddSLRow()
		for i := range sls {
			sls[i] = uint8(rng.IntN(3))
		}
		if err := b.SetSLRow(pl.Port, row); err != nil {
			t.Fatal(err)
		}
	}
	vls := 1 + rng.IntN(4)
	for s := range S {
		for in := 0; in <= radix; in++ {
			table := make([]uint8, (radix+1)*16)
			for i := range table {
				table[i] = uint8(rng.IntN(vls))
			}
			if err := b.SetSL2VL(fabric.NodeID(s), in, table); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b.Tables()
}

// routeAlongARandomTree fills every switch's entry for lid, owned by port
// dst behind switch home: a random spanning tree of the switches grown
// from home, each switch forwarding to its parent.
func routeAlongARandomTree(f *fabric.Fabric, b *lft.Builder, home fabric.NodeID, dst fabric.PortRef, lid lft.LID, rng *rand.Rand) {
	if dst.Port == 0 {
		b.LFT(home)[lid] = 0
	} else {
		at, _ := f.Peer(dst)
		b.LFT(home)[lid] = uint8(at.Port)
	}
	in := map[fabric.NodeID]bool{home: true}
	frontier := []fabric.PortRef{} // switch ports of tree switches whose cable leads out of the tree
	grow := func(sw fabric.NodeID) {
		for p := 1; p <= f.Ports(sw); p++ {
			if q, ok := f.Peer(fabric.PortRef{Node: sw, Port: p}); ok && f.Kind(q.Node) == fabric.Switch {
				frontier = append(frontier, q)
			}
		}
	}
	grow(home)
	for len(frontier) > 0 {
		i := rng.IntN(len(frontier))
		q := frontier[i]
		frontier[i] = frontier[len(frontier)-1]
		frontier = frontier[:len(frontier)-1]
		if in[q.Node] {
			continue
		}
		in[q.Node] = true
		b.LFT(q.Node)[lid] = uint8(q.Port) // toward the parent
		grow(q.Node)
	}
}
