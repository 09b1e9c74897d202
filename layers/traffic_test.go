package layers

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/slimfly"
)

// TestTrafficPassKeepsTheRules: generated fabrics (random ones mostly
// within two hops with dual-ported HCAs, Slim Fly q = 3 and 5, one with a
// cable avoided, two- and three-level Clos fabrics), each routed with and
// without drawn jobs' traffic (1 to 6 jobs of 2 to 30 HCA ports, rings,
// with drawn weights and compatibilities), judged by walking the tables
// through the exported view with this test's own breadth-first search:
// every route arrives without a loop, layer 0 (every layer of a fat tree)
// stays minimal, a route of layers ≥ 1 within its bounds stays within
// them, a pair that sends none of the jobs' traffic keeps its disjoint
// paths, at most 1 % of all pairs lose their three, a destination without the jobs' traffic keeps its tables,
// endpoints sharing trees (SharedWith) hold the same tables, the layer
// statistics are those of the tables, no job's contention factor (its
// busiest channel's load with everyone over its busiest alone) rises,
// and the tables are the same on one and two workers and whatever the
// order of the flows.
func TestTrafficPassKeepsTheRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 30))
	n := 40
	if testing.Short() {
		n = 10
	}
	moved := 0
	for i := 0; i < n; i++ {
		f, o := trafficFabric(t, rng, i)
		tr := drawTraffic(rng, f)
		t.Run(fmt.Sprintf("case=%d", i), func(t *testing.T) {
			r0, err := Compute(f, o)
			if err != nil {
				t.Fatal(err)
			}
			o.Traffic = tr
			r1, err := Compute(f, o)
			if err != nil {
				t.Fatal(err)
			}
			checkRouting(t, f, r1)
			judgeTraffic(t, r0, r1, tr)
			if got, want := lostPairs(r1.g, r0, r1), lostByEveryPair(r1.g, r0, r1); got != want {
				t.Fatalf("lostPairs says %d pairs lost their disjoint paths, a walk of every pair %d", got, want)
			}
			moved += r1.Traffic.Moves
			o.Workers = 2
			shuffled := *tr
			shuffled.Flows = slices.Clone(tr.Flows)
			rng.Shuffle(len(shuffled.Flows), func(a, b int) { shuffled.Flows[a], shuffled.Flows[b] = shuffled.Flows[b], shuffled.Flows[a] })
			o.Traffic = &shuffled
			r2, err := Compute(f, o)
			if err != nil {
				t.Fatal(err)
			}
			for k := range r1.next {
				if !slices.Equal(r1.next[k], r2.next[k]) {
					t.Fatalf("layer %d differs with 2 workers and the flows shuffled", k)
				}
			}
		})
	}
	if moved == 0 {
		t.Fatal("the pass moved nothing in any case")
	}
	t.Logf("%d moves over %d cases", moved, n)
}

// trafficFabric draws case i's fabric and options.
func trafficFabric(t *testing.T, rng *rand.Rand, i int) (*fabric.Fabric, Options) {
	t.Helper()
	o := Options{Layers: []int{2, 4, 4, 8}[rng.IntN(4)], Seed: uint64(i), Workers: 1}
	var f *fabric.Fabric
	var err error
	switch i % 5 {
	case 0, 1:
		f = denseFabric(t, rng, 6+rng.IntN(20), 0.3+0.4*rng.Float64())
		o.Trees = []int{-1, 0, 2}[rng.IntN(3)]
	case 2:
		f, err = slimfly.Build(slimfly.Params{Q: []int{3, 5}[rng.IntN(2)]})
		if rng.IntN(2) == 0 && err == nil {
			o.AvoidLinks = []int{rng.IntN(f.NumLinks())}
		}
	case 3:
		f, err = clos.Build(clos.Params{Levels: 2, Radix: 8})
	default:
		f, err = clos.Build(clos.Params{Levels: 3, Radix: 8, Pods: 2})
	}
	if err != nil {
		t.Fatal(err)
	}
	return f, o
}

// drawTraffic draws 1 to 6 jobs of 2 to 30 cabled HCA ports of f, each a
// ring with a drawn weight; two jobs are compatible with odds 1 in 3.
func drawTraffic(rng *rand.Rand, f *fabric.Fabric) *Traffic {
	var ports []fabric.PortRef
	for _, h := range f.IDsOf(fabric.HCA) {
		for p := 1; p <= f.Ports(h); p++ {
			if _, ok := f.Peer(fabric.PortRef{Node: h, Port: p}); ok {
				ports = append(ports, fabric.PortRef{Node: h, Port: p})
			}
		}
	}
	rng.Shuffle(len(ports), func(a, b int) { ports[a], ports[b] = ports[b], ports[a] })
	tr := &Traffic{Jobs: 1 + rng.IntN(6)}
	for j := 0; j < tr.Jobs && len(ports) >= 2; j++ {
		n := min(len(ports), 2+rng.IntN(29))
		w := int64(1+rng.IntN(3)) << 10
		for i := 0; i < n; i++ {
			tr.Flows = append(tr.Flows, Flow{From: ports[i], To: ports[(i+1)%n], Job: j, Weight: w})
		}
		ports = ports[n:]
	}
	compat := make([]bool, tr.Jobs*tr.Jobs)
	for a := 0; a < tr.Jobs; a++ {
		for b := a + 1; b < tr.Jobs; b++ {
			compat[a*tr.Jobs+b] = rng.IntN(3) == 0
			compat[b*tr.Jobs+a] = compat[a*tr.Jobs+b]
		}
	}
	tr.Compatible = func(a, b int) bool { return compat[a*tr.Jobs+b] }
	return tr
}

// judgeTraffic checks r1 (routed for tr) against r0 (the same without).
func judgeTraffic(t *testing.T, r0, r1 *Routing, tr *Traffic) {
	t.Helper()
	S, L := r1.NumSwitches(), r1.NumLayers()
	sends := map[[2]int]bool{} // (source switch, destination)
	dests := map[fabric.PortRef]int{}
	for d := 0; d < r1.NumEndpoints(); d++ {
		dests[r1.DestPort(d)] = d
	}
	for _, fl := range live(r1, tr) {
		sends[[2]int{sourceSwitch(r1, fl.From), dests[fl.To]}] = true
	}
	pairs, below := 0, 0 // (switch with hosts, destination elsewhere); those no longer with three disjoint routes
	for d := 0; d < r1.NumEndpoints(); d++ {
		dist := hopsTo(r1, r1.DestSwitch(d))
		received := false
		for s := 0; s < S; s++ {
			received = received || sends[[2]int{s, d}]
		}
		for s := 0; s < S && !received; s++ {
			for k := 0; k < L; k++ {
				if r0.entry(k, s, d) != r1.entry(k, s, d) {
					t.Fatalf("layer %d: %s's route to %s changed, which receives none of the jobs' traffic", k, r1.switchName(s), r1.DestName(d))
				}
			}
		}
		for s := 0; s < S; s++ {
			if s == r1.DestSwitch(d) || r1.Hosts(s) == 0 {
				continue
			}
			p0, p1 := layerRoutes(r0, s, d), layerRoutes(r1, s, d)
			for k := range p1 {
				lo, hi := r0.Bounds.of(int(dist[s]))
				switch {
				case (k == 0 || r1.fatTree) && len(p1[k]) != int(dist[s]):
					t.Fatalf("layer %d: %s to %s takes %d hops, the distance is %d", k, r1.switchName(s), r1.DestName(d), len(p1[k]), dist[s])
				case k > 0 && len(p0[k]) >= lo && len(p0[k]) <= hi && (len(p1[k]) < lo || len(p1[k]) > hi):
					t.Fatalf("layer %d: %s to %s now %d hops, out of [%d, %d]", k, r1.switchName(s), r1.DestName(d), len(p1[k]), lo, hi)
				}
			}
			if !sends[[2]int{s, d}] && disjointCount(p1) < disjointCount(p0) {
				t.Fatalf("%s to %s sends none of the jobs' traffic and lost disjoint paths: %d, before %d", r1.switchName(s), r1.DestName(d), disjointCount(p1), disjointCount(p0))
			}
			pairs++
			if disjointCount(p0) == 3 && disjointCount(p1) < 3 {
				below++
			}
		}
		if e := r1.SharedWith(d); e != d {
			for k := 1; k < L; k++ {
				for s := 0; s < S; s++ {
					if r1.entry(k, s, d) != r1.entry(k, s, e) {
						t.Fatalf("layer %d: %s shares %s's trees but routes otherwise", k, r1.DestName(d), r1.DestName(e))
					}
				}
			}
		}
	}
	if below > pairs/100 {
		t.Fatalf("%d of %d pairs lost their three disjoint paths: more than 1 %%", below, pairs)
	}
	checkStats(t, r1)
	for j, c := range jobContention(r1, tr) {
		b := jobContention(r0, tr)[j]
		if c[0] > 0 && b[0] > 0 && c[1]*b[0] > b[1]*c[0] {
			t.Fatalf("job %d: contention factor %d/%d, without the pass %d/%d", j, c[1], c[0], b[1], b[0])
		}
	}
}

// live lists the flows between destinations of r (an HCA port whose
// cable is avoided neither sends nor receives).
func live(r *Routing, tr *Traffic) []Flow {
	dests := map[fabric.PortRef]bool{}
	for d := 0; d < r.NumEndpoints(); d++ {
		dests[r.DestPort(d)] = true
	}
	var out []Flow
	for _, fl := range tr.Flows {
		if dests[fl.From] && dests[fl.To] {
			out = append(out, fl)
		}
	}
	return out
}

// sourceSwitch is the switch index HCA port p hangs off, -1 for none.
func sourceSwitch(r *Routing, p fabric.PortRef) int {
	peer, ok := r.Fabric.Peer(p)
	if !ok || r.Fabric.Kind(peer.Node) != fabric.Switch {
		return -1
	}
	return r.SwitchIndex(peer.Node)
}

// hopsTo is every switch's distance to switch t over the routing's
// channels, by this test's own breadth-first search.
func hopsTo(r *Routing, t int) []int32 {
	dist := make([]int32, r.NumSwitches())
	for i := range dist {
		dist[i] = -1
	}
	dist[t] = 0
	queue := []int{t}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for s := 0; s < r.NumSwitches(); s++ {
			for _, c := range r.Channels(s) {
				if c.Peer == x && dist[s] < 0 {
					dist[s] = dist[x] + 1
					queue = append(queue, s)
				}
			}
		}
	}
	return dist
}

// layerRoutes lists s's routes to d in every layer as channel ids.
func layerRoutes(r *Routing, s, d int) [][]int {
	var out [][]int
	for k := 0; k < r.NumLayers(); k++ {
		p, _ := r.PathChannels(k, s, d, nil)
		out = append(out, p)
	}
	return out
}

// disjointCount is the most routes of ps, at most 3, that share no
// channel, tried by brute force over the subsets.
func disjointCount(ps [][]int) int {
	best := 0
	for m := 1; m < 1<<len(ps); m++ {
		used := map[int]bool{}
		n, ok := 0, true
		for i, p := range ps {
			if m>>i&1 == 0 {
				continue
			}
			n++
			for _, c := range p {
				ok = ok && !used[c]
				used[c] = true
			}
		}
		if ok {
			best = max(best, n)
		}
	}
	return min(best, 3)
}

// checkStats requires the layer statistics to be those of the tables.
func checkStats(t *testing.T, r *Routing) {
	t.Helper()
	for k, st := range r.Stats {
		var want LayerStats
		want.Layer = k
		for d := 0; d < r.NumEndpoints(); d++ {
			dist := hopsTo(r, r.DestSwitch(d))
			for s := 0; s < r.NumSwitches(); s++ {
				if s == r.DestSwitch(d) || r.Hosts(s) == 0 {
					continue
				}
				p, _ := r.PathChannels(k, s, d, nil)
				lo, hi := r.Bounds.of(int(dist[s]))
				want.add(len(p), k == 0 || len(p) >= lo && len(p) <= hi)
			}
		}
		if st.Pairs != want.Pairs || st.InBounds != want.InBounds || !slices.Equal(st.Lengths, want.Lengths) {
			t.Fatalf("layer %d: statistics %+v, the tables give %+v", k, st, want)
		}
	}
}

// jobContention is, per job, its busiest channel alone and, among those
// it uses, with every job (in the flows' weights, over every layer).
func jobContention(r *Routing, tr *Traffic) [][2]int64 {
	load := make([]map[int]int64, tr.Jobs)
	total := map[int]int64{}
	for j := range load {
		load[j] = map[int]int64{}
	}
	dests := map[fabric.PortRef]int{}
	for d := 0; d < r.NumEndpoints(); d++ {
		dests[r.DestPort(d)] = d
	}
	for _, fl := range live(r, tr) {
		s, d := sourceSwitch(r, fl.From), dests[fl.To]
		for k := 0; k < r.NumLayers(); k++ {
			p, _ := r.PathChannels(k, s, d, nil)
			for _, c := range p {
				load[fl.Job][c] += fl.Weight
				total[c] += fl.Weight
			}
		}
	}
	out := make([][2]int64, tr.Jobs)
	for j, l := range load {
		for c, v := range l {
			out[j][0] = max(out[j][0], v)
			out[j][1] = max(out[j][1], total[c])
		}
	}
	return out
}

// lostByEveryPair is lostPairs by walking every pair, whatever its
// destination's tables.
func lostByEveryPair(g *graph, base, cur *Routing) int {
	lost := 0
	for d := 0; d < g.nEP; d++ {
		for s := range g.adj {
			if g.hosts[s] > 0 && s != g.dests[d].Switch && disjointRoutes(g.pairRoutes(base, s, d)) >= keepPaths && disjointRoutes(g.pairRoutes(cur, s, d)) < keepPaths {
				lost++
			}
		}
	}
	return lost
}
