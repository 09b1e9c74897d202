package layers

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/slimfly"
)

// closCase is one generated fat tree: its fabric, the cables to avoid, and
// whether it is full and non-blocking (every shift at link load 1 owed).
type closCase struct {
	name     string
	f        *fabric.Fabric
	avoid    []int
	fullRate bool
}

// randomClos draws a fat tree: two or three levels of Clos, or a k-ary
// n-tree; sometimes oversubscribed, with fewer leaves or spines than the
// ports allow, with HCAs missing, or with one to three failed
// inter-switch cables (routed by the construction where every switch with
// HCAs keeps a minimal up/down route, else by the general algorithm).
func randomClos(t *testing.T, rng *rand.Rand) closCase {
	t.Helper()
	var f *fabric.Fabric
	var err error
	full := true
	name := ""
	switch rng.IntN(3) {
	case 0:
		radix := 2 * (2 + rng.IntN(8)) // 4..18
		p := clos.Params{Radix: radix}
		if rng.IntN(3) == 0 {
			p.HostsPerLeaf = 1 + rng.IntN(radix-1)
			p.LeafUplinks = radix - p.HostsPerLeaf
			if rng.IntN(2) == 0 && p.LeafUplinks%2 == 0 {
				p.Spines = p.LeafUplinks / 2
			}
		}
		d, rerr := clos.Resolve(p)
		if rerr != nil {
			return randomClos(t, rng)
		}
		if rng.IntN(3) == 0 && d.Leaves > 3 {
			p.Leaves = 3 + rng.IntN(d.Leaves-3)
		}
		full = d.LeafOversub <= 1
		name = fmt.Sprintf("2-level radix %d hosts %d up %d spines %d leaves %d", radix, d.HostsPerLeaf, d.LeafUplinks, d.Spines, max(p.Leaves, d.Leaves))
		f, err = clos.Build(p)
	case 1:
		radix := 2 * (2 + rng.IntN(3)) // 4, 6, 8
		p := clos.Params{Levels: 3, Radix: radix, Pods: 2 + rng.IntN(radix-1)}
		if rng.IntN(3) == 0 {
			p.Oversubscription = "3:1"
			if radix%4 != 0 {
				p.Oversubscription = "2:1"
			}
		}
		d, rerr := clos.Resolve(p)
		if rerr != nil {
			return randomClos(t, rng)
		}
		full = d.LeafOversub <= 1 && d.SpineOversub <= 1
		name = fmt.Sprintf("3-level radix %d pods %d oversubscription %q", radix, d.Pods, p.Oversubscription)
		f, err = clos.Build(p)
	default:
		k, n := 2+rng.IntN(3), 2+rng.IntN(2)
		name = fmt.Sprintf("%d-ary %d-tree", k, n)
		f, err = clos.KAryNTree(k, n)
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := closCase{name: name, f: f, fullRate: full}
	switch rng.IntN(4) {
	case 0: // some HCAs missing (never all of a leaf's: see plan)
		hcas := f.IDsOf(fabric.HCA)
		var drop []fabric.NodeID
		for i, id := range hcas {
			if i%3 != 0 && rng.IntN(4) == 0 {
				drop = append(drop, id)
			}
		}
		if c.f, err = f.Without(drop, nil); err != nil {
			t.Fatal(err)
		}
		c.name += fmt.Sprintf(", %d HCAs missing", len(drop))
		c.fullRate = false
	case 1: // one to three failed cables between switches
		var inter []int
		for i, l := range f.Links() {
			if f.Kind(l.A.Node) == fabric.Switch && f.Kind(l.B.Node) == fabric.Switch {
				inter = append(inter, i)
			}
		}
		rng.Shuffle(len(inter), func(a, b int) { inter[a], inter[b] = inter[b], inter[a] })
		avoid := inter[:min(len(inter), 1+rng.IntN(3))]
		if _, err := newGraph(f, avoid); err != nil {
			break // a tree without those cables' redundancy: nothing to route
		}
		c.avoid = avoid
		c.name += fmt.Sprintf(", links %v failed", c.avoid)
		c.fullRate = false
	}
	return c
}

// TestFatTreeLayersAreMinimalUpDownTrees routes generated fat trees: every
// layer is a loop-free tree per destination reaching every LID; where the
// fat-tree construction applies, every route is minimal and up/down (never
// down then up, by levels the test derives itself), failed cables move
// only the routes that crossed them, and on full non-blocking shapes every
// layer carries every shift permutation at link load 1.
func TestFatTreeLayersAreMinimalUpDownTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	cases, constructed, shifted, damaged, fallback := 300, 0, 0, 0, 0
	if testing.Short() {
		cases = 60
	}
	for i := 0; i < cases; i++ {
		c := randomClos(t, rng)
		L := 1 << rng.IntN(4)
		r, err := Compute(c.f, Options{Layers: L, AvoidLinks: c.avoid})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkRouting(t, c.f, r)
		if !r.fatTree {
			if len(c.avoid) == 0 {
				t.Fatalf("%s: not routed as a fat tree", c.name)
			}
			fallback++
			continue
		}
		constructed++
		checkUpDownMinimal(t, c.name, r)
		if len(c.avoid) > 0 {
			damaged++
		}
		if len(c.avoid) == 1 {
			// more failures may split a group of siblings, and move
			// their slots
			checkOnlyCrossingFlowsMove(t, c, r)
		}
		if c.fullRate {
			shifted++
			if k, s, load := worstShift(r); load > 1 {
				t.Fatalf("%s, %d layers: layer %d carries shift %d at link load %d", c.name, L, k, s, load)
			}
		}
	}
	if constructed < cases/2 || shifted < cases/4 || damaged < cases/20 || fallback == 0 {
		t.Fatalf("only %d of %d cases routed as fat trees, %d checked for shifts, %d with failed cables, %d fell back: the generator drifted", constructed, cases, shifted, damaged, fallback)
	}
	t.Logf("%d of %d cases routed as fat trees (%d checked for shifts, %d with failed cables); %d fell back", constructed, cases, shifted, damaged, fallback)
}

// levelsFromLeaves numbers the switches 1 (with endpoints), 2, … by hop
// distance from the nearest switch with endpoints.
func levelsFromLeaves(r *Routing) []int {
	S := r.NumSwitches()
	level := make([]int, S)
	var queue []int
	for s := 0; s < S; s++ {
		if r.Hosts(s) > 0 {
			level[s] = 1
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, c := range r.Channels(s) {
			if level[c.Peer] == 0 {
				level[c.Peer] = level[s] + 1
				queue = append(queue, c.Peer)
			}
		}
	}
	return level
}

// checkUpDownMinimal asserts that every endpoint route of every layer has
// the length of the shortest path, and climbs before it descends where
// HCAs send from (a switch without HCAs that a failed cable cut off from
// the destination's subtree may turn up again: only its own management
// traffic takes that route).
func checkUpDownMinimal(t *testing.T, name string, r *Routing) {
	t.Helper()
	level := levelsFromLeaves(r)
	S := r.NumSwitches()
	dist := make([]int32, S)
	for d := 0; d < r.NumEndpoints(); d++ {
		r.g.bfs(r.DestSwitch(d), dist, nil)
		for k := 0; k < r.NumLayers(); k++ {
			for s := 0; s < S; s++ {
				path, err := r.Path(k, s, d)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(path)-1 != int(dist[s]) {
					t.Fatalf("%s: layer %d route %v to %s has %d hops, shortest %d", name, k, path, r.DestName(d), len(path)-1, dist[s])
				}
				for i := 2; i < len(path) && r.Hosts(s) > 0; i++ {
					if level[path[i-1]] < level[path[i-2]] && level[path[i]] > level[path[i-1]] {
						t.Fatalf("%s: layer %d route %v to %s goes down, then up", name, k, path, r.DestName(d))
					}
				}
			}
		}
	}
}

// checkOnlyCrossingFlowsMove compares a routing with a failed cable to the
// routing of the intact fabric: every route from a switch with HCAs that
// did not cross it keeps its switches (not always its ports: with one of
// several parallel cables gone, which of the rest was which is unknown).
func checkOnlyCrossingFlowsMove(t *testing.T, c closCase, r *Routing) {
	t.Helper()
	intact, err := Compute(c.f, Options{Layers: r.NumLayers()})
	if err != nil || !intact.fatTree {
		t.Fatalf("%s: intact fabric not routed as a fat tree (%v)", c.name, err)
	}
	crosses := func(ports []fabric.PortRef) bool {
		for _, i := range c.avoid {
			if l := c.f.Link(i); slices.Contains(ports, l.A) || slices.Contains(ports, l.B) {
				return true
			}
		}
		return false
	}
	for k := 0; k < r.NumLayers(); k++ {
		for d := 0; d < r.NumEndpoints(); d++ {
			for s := 0; s < r.NumSwitches(); s++ {
				if r.Hosts(s) == 0 {
					continue
				}
				before, after := egressPorts(intact, k, s, d), egressPorts(r, k, s, d)
				if !crosses(before) && !slices.EqualFunc(before, after, func(a, b fabric.PortRef) bool { return a.Node == b.Node }) {
					t.Fatalf("%s: layer %d route from %d to %s moved from %v to %v without crossing the failed cable", c.name, k, s, r.DestName(d), before, after)
				}
			}
		}
	}
}

// egressPorts lists the switch ports a route leaves by.
func egressPorts(r *Routing, k, s, d int) []fabric.PortRef {
	var out []fabric.PortRef
	path, _ := r.Path(k, s, d)
	for _, x := range path[:len(path)-1] {
		c, _ := r.Hop(k, x, d)
		out = append(out, fabric.PortRef{Node: r.SwitchID(x), Port: c.Port})
	}
	return out
}

// worstShift measures every shift permutation (rank i sends to rank i+s
// over the endpoints by HCA node and port) in every layer alone, counting
// flows per directed cable, and returns the worst layer, shift and load.
func worstShift(r *Routing) (layer, shift, load int) {
	N := r.NumEndpoints()
	byRank := make([]int, N)
	for d := range byRank {
		byRank[d] = d
	}
	sort.Slice(byRank, func(a, b int) bool {
		x, y := r.DestPort(byRank[a]), r.DestPort(byRank[b])
		return x.Node < y.Node || x.Node == y.Node && x.Port < y.Port
	})
	count := make([]int, r.NumChannels())
	var buf []int
	for k := 0; k < r.NumLayers(); k++ {
		for s := 1; s < N; s++ {
			clear(count)
			for i, src := range byRank {
				dst := byRank[(i+s)%N]
				buf, _ = r.PathChannels(k, r.DestSwitch(src), dst, buf)
				for _, ch := range buf {
					count[ch]++
					if count[ch] > load {
						layer, shift, load = k, s, count[ch]
					}
				}
			}
		}
	}
	return layer, shift, load
}

// TestFatTreeLayersSpreadOverABlock checks the multipath side: on a
// radix-24 Clos each leaf up-link collects, over the four layers, four
// distinct destination residues, always from one block of four.
func TestFatTreeLayersSpreadOverABlock(t *testing.T) {
	f, _ := clos.Build(clos.Params{Radix: 24})
	r, err := Compute(f, Options{Layers: 4})
	if err != nil || !r.fatTree {
		t.Fatal("radix-24 Clos not routed as a fat tree", err)
	}
	ranks := endpointRanks(r.g)
	leaf := r.DestSwitch(0)
	for _, c := range r.Channels(leaf) {
		residues := map[int]bool{}
		for d := 0; d < r.NumEndpoints(); d++ {
			if r.DestSwitch(d) == leaf {
				continue
			}
			for k := 0; k < 4; k++ {
				if hop, _ := r.Hop(k, leaf, d); hop.Port == c.Port {
					residues[ranks[d]%12] = true
				}
			}
		}
		var got []int
		for x := range residues {
			got = append(got, x)
		}
		slices.Sort(got)
		if len(got) != 4 || got[0]/4 != got[3]/4 {
			t.Fatalf("up-link port %d carries residues %v, want one block of four", c.Port, got)
		}
	}
}

// TestOtherFabricsAreNotFatTrees: Slim Flies and random graphs keep the
// general algorithm (their outputs are unchanged by the fat-tree
// construction).
func TestOtherFabricsAreNotFatTrees(t *testing.T) {
	for _, q := range []int{5, 7} {
		f, _ := slimfly.Build(slimfly.Params{Q: q})
		g, err := newGraph(f, nil)
		if err != nil || detectFatTree(g, 4) != nil {
			t.Fatalf("q=%d: Slim Fly taken for a fat tree (%v)", q, err)
		}
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for i := 0; i < 20; i++ {
		f := randomFabric(t, rng, 6+rng.IntN(20))
		g, err := newGraph(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		if detectFatTree(g, 4) != nil {
			t.Fatalf("random fabric %d taken for a fat tree", i)
		}
	}
}

// TestFatTreeSameTablesOnAnyNumberOfCores: the construction is a function
// of the fabric alone.
func TestFatTreeSameTablesOnAnyNumberOfCores(t *testing.T) {
	f, _ := clos.Build(clos.Params{Levels: 3, Radix: 8})
	prev := runtime.GOMAXPROCS(1)
	one, err := Compute(f, Options{Workers: 1})
	runtime.GOMAXPROCS(8)
	many, err2 := Compute(f, Options{Workers: 8})
	runtime.GOMAXPROCS(prev)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	for k := range one.next {
		if !slices.Equal(one.next[k], many.next[k]) {
			t.Fatalf("layer %d differs between 1 and 8 cores", k)
		}
	}
}

// TestFailedCablesMoveOnlyTheirRoutes fails, one at a time, every cable
// between switches of small fat trees with parallel cables (two levels,
// two cables per leaf and spine; three levels, three per spine and core):
// the routing stays a fat-tree routing and only routes that crossed the
// cable change switches.
func TestFailedCablesMoveOnlyTheirRoutes(t *testing.T) {
	for _, p := range []clos.Params{{Radix: 8, Spines: 2}, {Radix: 12, Spines: 3}, {Levels: 3, Radix: 6, Pods: 2}} {
		f, err := clos.Build(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range f.Links() {
			if f.Kind(l.A.Node) != fabric.Switch || f.Kind(l.B.Node) != fabric.Switch {
				continue
			}
			c := closCase{name: fmt.Sprintf("%+v, link %d failed", p, i), f: f, avoid: []int{i}}
			r, err := Compute(f, Options{Layers: 4, AvoidLinks: c.avoid})
			if err != nil || !r.fatTree {
				t.Fatalf("%s: not routed as a fat tree (%v)", c.name, err)
			}
			checkOnlyCrossingFlowsMove(t, c, r)
		}
	}
}
