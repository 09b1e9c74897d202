package transition

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
)

// tinyFabric makes a random connected fabric of n switches of 8 ports,
// with one or two HCAs of one port on each and a parallel cable at times.
func tinyFabric(t testing.TB, rng *rand.Rand, n int) *fabric.Fabric {
	var nodes []fabric.Node
	var links []fabric.Link
	used := make([]int, n)
	for i := range n {
		nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: fmt.Sprintf("sw-%d", i), GUID: fabric.GUID(0x100 + i), Ports: 8})
	}
	cable := func(a, b int) {
		used[a]++
		used[b]++
		links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(a), Port: used[a]}, B: fabric.PortRef{Node: fabric.NodeID(b), Port: used[b]}})
	}
	for i := 1; i < n; i++ {
		cable(rng.IntN(i), i)
	}
	for range n + rng.IntN(n) {
		if a, b := rng.IntN(n), rng.IntN(n); a != b && used[a] < 6 && used[b] < 6 {
			cable(a, b)
		}
	}
	for i := range n {
		for range 1 + rng.IntN(2) {
			h := len(nodes)
			nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: fmt.Sprintf("hca-%d", h), GUID: fabric.GUID(0x1000 + 16*h), Ports: 1})
			used[i]++
			links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(i), Port: used[i]}, B: fabric.PortRef{Node: fabric.NodeID(h), Port: 1}})
		}
	}
	f, err := fabric.New(nodes, links)
	must(t, err)
	return f
}

// randomTables routes every LID of f by a random tree toward its port
// (with rare random entries: drops, uncabled ports, wrong turns), random
// path SLs in 0..1 and random SL-to-VL tables over VLs 0..vls-1 (rarely 15).
func randomTables(t testing.TB, rng *rand.Rand, f *fabric.Fabric, lids *lft.LIDs, vls int, noisy bool) *lft.Tables {
	b := lft.NewBuilder(f, lids)
	owners := lidsOfPlan(lids)
	for _, l := range slices.Sorted(maps.Keys(owners)) { // (in LID order: the draws depend on it)
		randomTree(rng, f, b, l, owners[l], noisy)
	}
	for _, p := range lids.Ports() {
		if f.Kind(p.Port.Node) != fabric.HCA {
			continue
		}
		r, row := b.AddSLRow()
		for i := range row {
			row[i] = uint8(rng.IntN(2))
		}
		must(t, b.SetSLRow(p.Port, r))
		var ca [16]uint8
		if noisy && rng.IntN(10) == 0 {
			ca[rng.IntN(2)] = 15
		}
		must(t, b.SetCASL2VL(p.Port, ca))
	}
	for _, sw := range f.IDsOf(fabric.Switch) {
		for in := 0; in <= f.Ports(sw); in++ {
			vl := make([]uint8, (f.Ports(sw)+1)*16)
			for i := range vl {
				vl[i] = uint8(rng.IntN(vls))
				if noisy && rng.IntN(100) == 0 {
					vl[i] = 15
				}
			}
			must(t, b.SetSL2VL(sw, in, vl))
		}
	}
	return b.Tables()
}

// randomTree fills every switch's entry for lid: a random spanning tree
// grown from the owner's switch, then rarely a random entry elsewhere.
func randomTree(rng *rand.Rand, f *fabric.Fabric, b *lft.Builder, lid lft.LID, owner fabric.PortRef, noisy bool) {
	root := owner
	if f.Kind(owner.Node) == fabric.HCA {
		root, _ = f.Peer(owner)
	}
	b.LFT(root.Node)[lid] = uint8(root.Port)
	in := map[fabric.NodeID]bool{root.Node: true}
	frontier := []fabric.NodeID{root.Node}
	for len(frontier) > 0 {
		i := rng.IntN(len(frontier))
		at := frontier[i]
		frontier = append(frontier[:i], frontier[i+1:]...)
		for _, p := range rng.Perm(f.Ports(at)) {
			peer, ok := f.Peer(fabric.PortRef{Node: at, Port: p + 1})
			if ok && f.Kind(peer.Node) == fabric.Switch && !in[peer.Node] {
				in[peer.Node] = true
				b.LFT(peer.Node)[lid] = uint8(peer.Port)
				frontier = append(frontier, peer.Node)
			}
		}
	}
	for _, sw := range f.IDsOf(fabric.Switch) {
		if noisy && sw != root.Node && rng.IntN(10) == 0 {
			b.LFT(sw)[lid] = []uint8{lft.Drop, 8, uint8(1 + rng.IntN(3))}[rng.IntN(3)]
		}
	}
}

// TestCheckAgreesWithBruteForce judges random switch-overs of tiny fabrics
// and compares with bruteForce, which traces every packet under every mix:
// loop or not, credit loop or not, dead end or not, and (without a
// forwarding loop, where choosing per hop is choosing per switch) the very
// numbers of channels and dependencies.
func TestCheckAgreesWithBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var seen [2][2][2]int // loop, cycle, dead
	mixOnly := 0
	for i := range 120 {
		f := tinyFabric(t, rng, 3+rng.IntN(3))
		lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: rng.IntN(2)})
		must(t, err)
		noisy := i%4 == 0 // dead ends
		old := randomTables(t, rng, f, lids, 1+rng.IntN(3), noisy)
		new := randomTables(t, rng, f, lids, 1+rng.IntN(3), noisy)
		if rng.IntN(3) == 0 { // a small change rather than a new routing
			new = rebuild(t, old, edits{sl2vl: func(_ fabric.NodeID, _ int, vl []uint8) {
				vl[rng.IntN(len(vl))] = uint8(rng.IntN(2))
			}})
		}
		r, err := Check(old, new)
		must(t, err)
		ref, loop := bruteForce(old, new)
		cyc := ref.cyclic()
		seen[b2i(loop)][b2i(cyc)][b2i(ref.dead)]++
		a, b := newRefGraph(), newRefGraph()
		pure(a, old)
		pure(b, new)
		if cyc && !a.cyclic() && !b.cyclic() {
			mixOnly++
		}
		where := fmt.Sprintf("case %d:\n%s", i, r)
		if (r.Loop != nil) != loop || r.Unjudged != 0 {
			t.Fatalf("%s: brute force loop %v", where, loop)
		}
		if loop {
			if cyc && r.Cycle == nil || ref.dead && r.DeadEnds == 0 || r.Dependencies < len(ref.deps) {
				t.Fatalf("%s: brute force (%d deps) finds what Check misses: cycle %v, dead %v", where, len(ref.deps), cyc, ref.dead)
			}
			continue
		}
		if (r.Cycle != nil) != cyc || (r.DeadEnds > 0) != ref.dead || r.Dependencies != len(ref.deps) || r.Channels != len(ref.chans) {
			t.Fatalf("%s: brute force: cycle %v, dead %v, %d channels, %d dependencies", where, cyc, ref.dead, len(ref.chans), len(ref.deps))
		}
	}
	t.Logf("cases by [loop][credit loop][dead end]: %v; credit loops only a mix has: %d", seen, mixOnly)
	if mixOnly == 0 {
		t.Fatal("no case with a credit loop that only a mix has: draw others")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
