package layers

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/slimfly"
)

// checkRouting asserts the properties every routing must have: in every
// layer every switch reaches every destination without a loop along real
// cables, so each layer is an in-tree per destination; layer 0 is minimal;
// paths of layers ≥ 1 counted in bounds respect the bounds; the
// statistics add up.
func checkRouting(t *testing.T, f *fabric.Fabric, r *Routing) {
	t.Helper()
	S := r.NumSwitches()
	dist := make([]int32, S)
	order := make([]int32, 0, S)
	for d, dest := range r.Dests() {
		order = r.g.bfs(dest.Switch, dist, order)
		layers := r.NumLayers()
		if d >= r.NumEndpoints() {
			layers = 1
		}
		for k := 0; k < layers; k++ {
			for s := 0; s < S; s++ {
				path, err := r.Path(k, s, d)
				if err != nil {
					t.Fatalf("layer %d: %v", k, err)
				}
				if path[len(path)-1] != dest.Switch {
					t.Fatalf("layer %d: path from %d ends at %d, not at %d", k, s, path[len(path)-1], dest.Switch)
				}
				// every hop leaves through a cabled port toward the peer
				for i := 0; i+1 < len(path); i++ {
					c, local := r.Hop(k, path[i], d)
					if local || c.Peer != path[i+1] {
						t.Fatalf("layer %d: hop %d of %v inconsistent", k, i, path)
					}
					peer, ok := f.Peer(fabric.PortRef{Node: r.SwitchID(path[i]), Port: c.Port})
					if !ok || peer.Node != r.SwitchID(path[i+1]) || peer.Port != c.PeerPort {
						t.Fatalf("layer %d: port %d of %s does not lead to %s", k, c.Port, f.Node(r.SwitchID(path[i])).Name, f.Node(r.SwitchID(path[i+1])).Name)
					}
				}
				hops := len(path) - 1
				if _, hi := r.Bounds.of(int(dist[s])); hops > max(hi, int(dist[s]))+dfSpineSlack(r, s, k) {
					t.Fatalf("layer %d: path from %d to %s has %d hops, above the bound %d", k, s, r.DestName(d), hops, max(hi, int(dist[s])))
				}
				if k == 0 && hops != int(dist[s]) {
					t.Fatalf("layer 0: path from %d to %s has %d hops, distance is %d", s, r.DestName(d), hops, dist[s])
				}
			}
			// the destination's own switch delivers on the right port
			if p := r.NextPort(k, dest.Switch, d); p != dest.SwitchPort {
				t.Fatalf("layer %d: %s delivers %s on port %d, want %d", k, f.Node(r.SwitchID(dest.Switch)).Name, r.DestName(d), p, dest.SwitchPort)
			}
		}
	}
	for k, st := range r.Stats {
		if st.InBounds+st.Fallback != st.Pairs {
			t.Errorf("layer %d stats do not add up: %+v", k, st)
		}
		sum := 0
		for _, n := range st.Lengths {
			sum += n
		}
		if sum != st.Pairs {
			t.Errorf("layer %d: length histogram counts %d pairs, not %d", k, sum, st.Pairs)
		}
	}
	// recount in-bounds pairs from the tables
	for k := 1; k < r.NumLayers(); k++ {
		in := 0
		for d := 0; d < r.NumEndpoints(); d++ {
			order = r.g.bfs(r.Dests()[d].Switch, dist, order)
			for s := 0; s < S; s++ {
				if s == r.Dests()[d].Switch || r.Hosts(s) == 0 {
					continue
				}
				path, _ := r.Path(k, s, d)
				lo, hi := r.Bounds.of(int(dist[s]))
				if h := len(path) - 1; h >= lo && h <= hi {
					in++
				}
			}
		}
		if in != r.Stats[k].InBounds {
			t.Errorf("layer %d: %d pairs in bounds by the tables, stats say %d", k, in, r.Stats[k].InBounds)
		}
	}
}

func TestSlimFlyLayersAreForwardingTreesPerDestination(t *testing.T) {
	for _, q := range []int{3, 4, 5, 7} {
		t.Run(fmt.Sprintf("q=%d", q), func(t *testing.T) {
			f, err := slimfly.Build(slimfly.Params{Q: q})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Compute(f, Options{Layers: 4, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if r.Bounds != (Bounds{Min: 2, Max: 3}) {
				t.Errorf("bounds %v, want 2..3 on a diameter-2 Slim Fly", r.Bounds)
			}
			checkRouting(t, f, r)
			for k := 1; k < 4; k++ {
				if r.Stats[k].Lengths[3] == 0 {
					t.Errorf("layer %d has no 3-hop paths: %+v", k, r.Stats[k])
				}
			}
		})
	}
}

// TestSameTablesOnAnyNumberOfCores routes with one core and with several:
// the batches of destination groups are fixed, so the tables are too.
func TestSameTablesOnAnyNumberOfCores(t *testing.T) {
	f, _ := slimfly.Build(slimfly.Params{Q: 7})
	prev := runtime.GOMAXPROCS(1)
	one, err := Compute(f, Options{Layers: 4, Seed: 3})
	runtime.GOMAXPROCS(max(prev, 2))
	many, err2 := Compute(f, Options{Layers: 4, Seed: 3})
	runtime.GOMAXPROCS(prev)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	for k := range one.next {
		if !slices.Equal(one.next[k], many.next[k]) {
			t.Fatalf("layer %d differs between one core and %d", k, max(prev, 2))
		}
	}
	if fmt.Sprint(one.Stats) != fmt.Sprint(many.Stats) {
		t.Fatalf("stats differ: %v against %v", one.Stats, many.Stats)
	}
}

func TestSameSeedSameTables(t *testing.T) {
	f, _ := slimfly.Build(slimfly.Params{Q: 5})
	a, _ := Compute(f, Options{Layers: 4, Seed: 7})
	b, _ := Compute(f, Options{Layers: 4, Seed: 7})
	for k := range a.next {
		if !slices.Equal(a.next[k], b.next[k]) {
			t.Fatalf("layer %d differs between two runs with the same seed", k)
		}
	}
	c, _ := Compute(f, Options{Layers: 4, Seed: 8})
	same := true
	for k := 1; k < 4; k++ {
		same = same && slices.Equal(a.next[k], c.next[k])
	}
	if same {
		t.Error("another seed gave the same layers; the seed is not used")
	}
}

// TestTreesPerSwitch checks how a destination switch's endpoints share the
// trees of layers ≥ 1: Trees groups, dealt round-robin in port order, the
// members of a group with identical next hops, different groups (and, with
// -1, different endpoints) free to differ; layer 0 stays per endpoint.
func TestTreesPerSwitch(t *testing.T) {
	f, _ := slimfly.Build(slimfly.Params{Q: 5}) // 4 endpoints per switch
	for _, trees := range []int{1, 2, 3, -1} {
		t.Run(fmt.Sprintf("trees=%d", trees), func(t *testing.T) {
			r, err := Compute(f, Options{Layers: 4, Seed: 1, Trees: trees})
			if err != nil {
				t.Fatal(err)
			}
			checkRouting(t, f, r)
			S := r.NumSwitches()
			col := func(k, d int) []uint8 { return r.next[k][d*S : (d+1)*S] }
			differ := 0
			for d := 0; d < r.NumEndpoints(); d++ {
				j := 0 // d's position among its switch's endpoints
				for d-j > 0 && r.Dests()[d-j-1].Switch == r.Dests()[d].Switch {
					j++
				}
				if j > 0 && r.Dests()[d-1].SwitchPort > r.Dests()[d].SwitchPort {
					t.Fatalf("endpoints of a switch not in port order")
				}
				for i := 0; i < j; i++ {
					e := d - j + i // an earlier endpoint of the same switch
					shared := trees > 0 && i%trees == j%trees
					for k := 1; k < 4; k++ {
						same := slices.Equal(col(k, d), col(k, e))
						if shared && !same {
							t.Fatalf("layer %d: endpoints %d and %d should share a tree", k, j, i)
						}
						if !shared && !same {
							differ++
						}
					}
				}
			}
			if (trees == 1) != (differ == 0) {
				t.Errorf("%d layer columns differ between endpoints of one switch in different groups", differ)
			}
		})
	}
}

// randomFabric builds a connected random switch graph with parallel cables,
// switches without endpoints and dual-ported HCAs cabled to two switches.
func randomFabric(t *testing.T, rng *rand.Rand, S int) *fabric.Fabric {
	t.Helper()
	var nodes []fabric.Node
	var links []fabric.Link
	next := make([]int, 0)
	const ports = 40
	for s := 0; s < S; s++ {
		nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: fmt.Sprintf("s%d", s), GUID: fabric.GUID(0x1000 + s), Ports: ports})
		next = append(next, 1)
	}
	cable := func(a, b int) {
		if next[a] > ports || next[b] > ports {
			return
		}
		links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(a), Port: next[a]}, B: fabric.PortRef{Node: fabric.NodeID(b), Port: next[b]}})
		next[a]++
		next[b]++
	}
	for s := 1; s < S; s++ {
		cable(s, rng.IntN(s)) // spanning tree
	}
	for i := 0; i < S; i++ {
		a, b := rng.IntN(S), rng.IntN(S)
		if a != b {
			cable(a, b) // may repeat a pair: parallel cables
		}
	}
	for s := 0; s < S; s++ {
		for h := rng.IntN(3) + btoi(s == 0); h > 0; h-- {
			id := len(nodes)
			nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: fmt.Sprintf("h%d", id), GUID: fabric.GUID(0x100000 + id*16), Ports: 2})
			next = append(next, 1)
			cable(s, id)
			if rng.IntN(4) == 0 || id == S {
				cable(rng.IntN(S), id) // second port, maybe to another switch
			}
		}
	}
	f, err := fabric.New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Random connected fabrics of 1 to 31 switches, with the default bounds and with bounds of
// 2..3 hops (which plan the entries into every destination switch, as on
// a Slim Fly: entry.go), in 1, 2, 4 and 8 layers, on one and two workers;
// 4 layers regrown on two fabrics in three (unless Options.NoRegrow: one switch,
// no channel, panicked).
func TestRandomConnectedFabrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 0))
	n := 300
	if testing.Short() {
		n = 40
	}
	for i := 0; i < n; i++ {
		S := 1 + rng.IntN(31)
		if i == 0 {
			S = 1 // one switch: no channel at all
		}
		f := randomFabric(t, rng, S)
		for _, L := range []int{1, 2, 4, 8} {
			for _, b := range [][2]int{{0, 0}, {2, 3}} {
				o := Options{Layers: L, Seed: uint64(i), MinLen: b[0], MaxLen: b[1], Workers: 1 + i%2, NoRegrow: L != 4 || i%3 == 2}
				r, err := Compute(f, o)
				if err != nil {
					t.Fatalf("fabric %d, %+v: %v", i, o, err)
				}
				checkRouting(t, f, r)
			}
		}
	}
}

func TestFailuresKeepRoutingComplete(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	sf, _ := slimfly.Build(slimfly.Params{Q: 5})
	ft, _ := clos.Build(clos.Params{Levels: 3, Radix: 8})
	for _, f := range []*fabric.Fabric{sf, ft} {
		for trial := 0; trial < 4; trial++ {
			// fail 5% of the inter-switch cables, and one switch
			var avoid []int
			for i, l := range f.Links() {
				if f.Node(l.A.Node).Kind == fabric.Switch && f.Node(l.B.Node).Kind == fabric.Switch && rng.IntN(20) == 0 {
					avoid = append(avoid, i)
				}
			}
			sw := f.IDsOf(fabric.Switch)
			g, err := f.Without([]fabric.NodeID{sw[rng.IntN(len(sw))]}, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Compute(f, Options{Layers: 4, AvoidLinks: avoid, Seed: uint64(trial)})
			var ue *UnreachableError
			if errors.As(err, &ue) {
				continue // an unlucky draw split the fabric; covered below
			}
			if err != nil {
				t.Fatal(err)
			}
			checkRouting(t, f, r)
			for k := 0; k < r.NumLayers(); k++ {
				for d := 0; d < r.NumEndpoints(); d++ {
					for s := 0; s < r.NumSwitches(); s++ {
						chans, _ := r.PathChannels(k, s, d, nil)
						for _, ch := range chans {
							_, c := r.ChannelAt(ch)
							if slices.Contains(avoid, c.Link) {
								t.Fatalf("layer %d uses avoided link %d", k, c.Link)
							}
						}
					}
				}
			}
			r2, err := Compute(g, Options{Layers: 4, Seed: 1})
			if err != nil && !errors.As(err, &ue) {
				t.Fatal(err)
			}
			if err == nil {
				checkRouting(t, g, r2)
			}
		}
	}
}

func TestDisconnectedFabricIsReported(t *testing.T) {
	f, _ := clos.Build(clos.Params{Radix: 4}) // 4 leaves, 2 spines
	var avoid []int
	for i, l := range f.Links() {
		if f.Node(l.A.Node).Name == "leaf-3" && f.Node(l.B.Node).Kind == fabric.Switch {
			avoid = append(avoid, i)
		}
	}
	_, err := Compute(f, Options{Layers: 2, AvoidLinks: avoid})
	var ue *UnreachableError
	if !errors.As(err, &ue) || len(ue.Groups) != 2 || ue.Groups[1][0] != "leaf-3" {
		t.Fatalf("error %v; want leaf-3 reported cut off", err)
	}
}

func TestParallelCablesAndDualPortHCAs(t *testing.T) {
	f, _ := clos.Build(clos.Params{Radix: 8, Spines: 2}) // two cables per leaf-spine pair
	r, err := Compute(f, Options{Layers: 4})
	if err != nil {
		t.Fatal(err)
	}
	checkRouting(t, f, r)
	used := make([]int, r.NumChannels())
	for k := 0; k < 4; k++ {
		for d := 0; d < r.NumEndpoints(); d++ {
			for s := 0; s < r.NumSwitches(); s++ {
				chans, _ := r.PathChannels(k, s, d, nil)
				for _, ch := range chans {
					used[ch]++
				}
			}
		}
	}
	for ch, n := range used {
		if n == 0 {
			s, c := r.ChannelAt(ch)
			t.Errorf("channel %s port %d never used: parallel cables must all carry routes", f.Node(r.SwitchID(s)).Name, c.Port)
		}
	}
	// a dual-ported HCA cabled to two switches is two destinations
	rf := randomFabric(t, rand.New(rand.NewPCG(9, 9)), 12)
	r2, err := Compute(rf, Options{Layers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ports := map[fabric.NodeID]int{}
	for _, d := range r2.Dests()[:r2.NumEndpoints()] {
		ports[d.Port.Node]++
	}
	two := 0
	for _, n := range ports {
		if n == 2 {
			two++
		}
	}
	if two == 0 {
		t.Fatal("no dual-ported HCA among the destinations; the test fabric should have some")
	}
}

func TestBadOptions(t *testing.T) {
	f, _ := slimfly.Build(slimfly.Params{Q: 3})
	for _, o := range []Options{{Layers: 3}, {Layers: 256}, {Layers: 4, MinLen: 2}, {Layers: 4, MinLen: 3, MaxLen: 2}, {Layers: 4, MinLen: 1, MaxLen: 9}, {AvoidLinks: []int{99999}}, {Trees: -2}} {
		if _, err := Compute(f, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestBipartiteFabricsKeepParity: Clos fabrics are bipartite, so every
// path between two switches has the parity of their distance and the
// search may skip the other lengths; Slim Fly is not.
func TestBipartiteFabricsKeepParity(t *testing.T) {
	two, _ := clos.Build(clos.Params{Radix: 8})
	three, _ := clos.Build(clos.Params{Levels: 3, Radix: 8})
	sf, _ := slimfly.Build(slimfly.Params{Q: 5})
	for _, c := range []struct {
		name string
		f    *fabric.Fabric
		want bool
	}{{"clos2", two, true}, {"clos3", three, true}, {"slimfly5", sf, false}} {
		g, err := newGraph(c.f, nil)
		if err != nil {
			t.Fatal(err)
		}
		if g.bipartite != c.want {
			t.Errorf("%s: bipartite %v, want %v", c.name, g.bipartite, c.want)
		}
		r, err := Compute(c.f, Options{Layers: 4, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		checkRouting(t, c.f, r)
	}
}

// dfSpineSlack is the hops a route of layer k from switch s may take
// beyond the bounds: on a Dragonfly+, a spine without hosts whose group
// goes through a third group in layer k may have to go down into a leaf
// of its group and on along the leaf's route, one hop more
// (dfSpineRows); nothing elsewhere.
func dfSpineSlack(r *Routing, s, k int) int {
	if r.dfGroup != nil && k > 0 && r.g.hosts[s] == 0 {
		return 1
	}
	return 0
}
