package clos

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"slimroute/fabric"
)

// maxFlow computes the number of edge-disjoint paths from the HCAs in
// `from` to the HCAs in `to` (each HCA cable and each switch cable carrying
// one unit per direction), by Edmonds–Karp on the fabric's node graph.
func maxFlow(f *fabric.Fabric, from, to []fabric.NodeID) int {
	n := f.NumNodes() + 2
	src, dst := n-2, n-1
	cap := make([]map[int]int, n)
	for i := range cap {
		cap[i] = map[int]int{}
	}
	for _, l := range f.Links() {
		a, b := int(l.A.Node), int(l.B.Node)
		cap[a][b]++
		cap[b][a]++
	}
	for _, h := range from {
		cap[src][int(h)] = 1
	}
	for _, h := range to {
		cap[int(h)][dst] = 1
	}
	flow := 0
	for {
		prev := make([]int, n)
		for i := range prev {
			prev[i] = -1
		}
		prev[src] = src
		queue := []int{src}
		for len(queue) > 0 && prev[dst] < 0 {
			u := queue[0]
			queue = queue[1:]
			for v, c := range cap[u] {
				if c > 0 && prev[v] < 0 {
					prev[v] = u
					queue = append(queue, v)
				}
			}
		}
		if prev[dst] < 0 {
			return flow
		}
		for v := dst; v != src; v = prev[v] {
			u := prev[v]
			cap[u][v]--
			cap[v][u]++
		}
		flow++
	}
}

func halves(f *fabric.Fabric) ([]fabric.NodeID, []fabric.NodeID) {
	h := f.IDsOf(fabric.HCA)
	return h[:len(h)/2], h[len(h)/2:]
}

func leafDistances(t *testing.T, f *fabric.Fabric) map[[2]string]int {
	t.Helper()
	v := f.SwitchView()
	out := map[[2]string]int{}
	dist, queue := make([]int, v.NumSwitches()), make([]int, 0, v.NumSwitches())
	for s := range v.IDs {
		if len(v.Endpoints[s]) == 0 {
			continue
		}
		v.Distances(s, dist, queue)
		for t2 := range v.IDs {
			if t2 != s && len(v.Endpoints[t2]) > 0 {
				out[[2]string{f.Node(v.IDs[s]).Name, f.Node(v.IDs[t2]).Name}] = dist[t2]
			}
		}
	}
	return out
}

func TestTwoLevelNonBlocking(t *testing.T) {
	f, err := Build(Params{Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	st := fabric.ComputeStats(f)
	if st.Switches != 12 || st.HCAs != 32 || st.SwitchLinks != 32 {
		t.Fatalf("stats %+v; want 8 leaves + 4 spines, 32 hosts, 32 up-links", st)
	}
	a, b := halves(f)
	if got := maxFlow(f, a, b); got != len(a) {
		t.Errorf("bisection flow %d, want %d (full bisection)", got, len(a))
	}
	for pair, d := range leafDistances(t, f) {
		if d != 2 {
			t.Errorf("leaves %v at distance %d, want 2", pair, d)
		}
	}
}

func TestThreeLevelNonBlocking(t *testing.T) {
	f, err := Build(Params{Levels: 3, Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	st := fabric.ComputeStats(f)
	// the classic fat tree of radix k: k³/4 hosts, 5k²/4 switches
	if st.HCAs != 128 || st.Switches != 80 {
		t.Fatalf("stats %+v; want 128 hosts and 80 switches", st)
	}
	a, b := halves(f)
	if got := maxFlow(f, a, b); got != len(a) {
		t.Errorf("bisection flow %d, want %d (full bisection)", got, len(a))
	}
	for pair, d := range leafDistances(t, f) {
		samePod := strings.Split(pair[0], "-")[1] == strings.Split(pair[1], "-")[1]
		want := 4
		if samePod {
			want = 2
		}
		if d != want {
			t.Errorf("leaves %v at distance %d, want %d", pair, d, want)
		}
	}
}

func TestOversubscribedHasLessBisection(t *testing.T) {
	f, err := Build(Params{Radix: 8, Oversubscription: "3:1"})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := Resolve(Params{Radix: 8, Oversubscription: "3:1"})
	if d.HostsPerLeaf != 6 || d.LeafUplinks != 2 || d.LeafOversub != 3 {
		t.Fatalf("derived %+v", d)
	}
	a, b := halves(f)
	if got := maxFlow(f, a, b); got >= len(a) {
		t.Errorf("bisection flow %d with 3:1 oversubscription, want < %d", got, len(a))
	}
}

func TestParallelLinks(t *testing.T) {
	f, err := Build(Params{Radix: 8, Spines: 2})
	if err != nil {
		t.Fatal(err)
	}
	st := fabric.ComputeStats(f)
	// 4 leaves (8 down-ports / 2 cables each), 2 spines, 2 cables per pair
	if st.Switches != 6 || st.SwitchLinks != 16 || st.ParallelLinks != 8 {
		t.Fatalf("stats %+v", st)
	}
	a, b := halves(f)
	if got := maxFlow(f, a, b); got != len(a) {
		t.Errorf("bisection flow %d, want %d", got, len(a))
	}
}

func TestKAryNTreeCounts(t *testing.T) {
	for _, c := range []struct{ k, n int }{{2, 2}, {2, 3}, {3, 3}, {4, 2}, {2, 4}} {
		f, err := KAryNTree(c.k, c.n)
		if err != nil {
			t.Fatal(err)
		}
		st := fabric.ComputeStats(f)
		pow := func(b, e int) int {
			r := 1
			for i := 0; i < e; i++ {
				r *= b
			}
			return r
		}
		if st.Switches != c.n*pow(c.k, c.n-1) || st.HCAs != pow(c.k, c.n) || st.Diameter != 2*(c.n-1) {
			t.Errorf("k=%d n=%d: %+v", c.k, c.n, st)
		}
		a, b := halves(f)
		if got := maxFlow(f, a, b); got != len(a) {
			t.Errorf("k=%d n=%d: bisection flow %d, want %d", c.k, c.n, got, len(a))
		}
	}
}

func TestKAryThreeTreeIsTheThreeLevelForm(t *testing.T) {
	k := 4
	a, err := KAryNTree(k, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(Params{Levels: 3, Radix: 2 * k, Pods: k, Cores: k * k})
	if err != nil {
		t.Fatal(err)
	}
	sa, sb := fabric.ComputeStats(a), fabric.ComputeStats(b)
	if fmt.Sprintf("%+v", sa) != fmt.Sprintf("%+v", sb) {
		t.Errorf("k-ary 3-tree %+v\n3-level Clos  %+v", sa, sb)
	}
}

func TestImpossibleCombinations(t *testing.T) {
	for _, c := range []struct {
		p    Params
		want string
	}{
		{Params{}, "radix=0"},
		{Params{Radix: 8, Levels: 4}, "levels=4"},
		{Params{Radix: 8, HostsPerLeaf: 6, LeafUplinks: 4}, "10 ports, but radix is 8"},
		{Params{Radix: 8, LeafUplinks: 4, HostsPerLeaf: 4, Spines: 3}, "spread evenly over 3 spines"},
		{Params{Radix: 8, Leaves: 9}, "9 leaves"},
		{Params{Radix: 8, Oversubscription: "2:1"}, "does not split radix 8"},
		{Params{Radix: 8, Oversubscription: "x"}, "want hosts:uplinks"},
		{Params{Radix: 8, Pods: 2}, "apply to 3-level"},
		{Params{Levels: 3, Radix: 8, Cores: 6}, "multiple of spines"},
		{Params{Levels: 3, Radix: 8, Pods: 9}, "pods=9: want 1..8"},
		{Params{Levels: 3, Radix: 16, Pods: -4}, "pods=-4: a count is never negative"},
		{Params{Levels: 3, Radix: 16, SpineUplinks: 100}, "spine_uplinks=100: want 1..15"},
		{Params{Levels: 3, Radix: 8, SpineUplinks: 8}, "spine_uplinks=8: want 1..7"},
		{Params{Levels: 3, Radix: 8, Leaves: 4, SpineUplinks: 5}, "spine_uplinks=5: want 1..4"},
		{Params{Levels: 3, Radix: 8, Leaves: 8}, "leaves=8: want 1..7"},
	} {
		_, err := Build(c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.p, err, c.want)
		}
	}
}

// A 3-level fat tree with fewer pods than core ports gets as few cores as
// take every spine up-link: each core's ports are all used whenever the
// pods' cables can fill them evenly (radix 16, 4 pods: 16 cores with 4
// cables from each pod, not 64 cores with 4 of 16 ports used).
func TestDefaultCoresUseTheirPorts(t *testing.T) {
	for radix := 4; radix <= 64; radix += 2 {
		for pods := 1; pods <= radix; pods++ {
			d, err := Resolve(Params{Levels: 3, Radix: radix, Pods: pods})
			if err != nil && strings.Contains(err.Error(), "an InfiniBand subnet has") {
				continue // beyond one subnet's LIDs, refused as such (TestClosParametersCheckedBeforeAllocation)
			}
			if err != nil {
				t.Fatalf("radix %d, %d pods: %v", radix, pods, err)
			}
			plane := d.Cores / d.Spines
			if plane*d.SpineParallel != d.SpineUplinks || pods*d.SpineParallel > radix {
				t.Fatalf("radix %d, %d pods: %d cores per plane × %d cables for %d up-links", radix, pods, plane, d.SpineParallel, d.SpineUplinks)
			}
			if radix%pods == 0 && d.SpineUplinks%(radix/pods) == 0 && pods*d.SpineParallel != radix {
				t.Errorf("radix %d, %d pods: a core uses %d of %d ports", radix, pods, pods*d.SpineParallel, radix)
			}
		}
	}
}

var wantRange = regexp.MustCompile(`^want 1\.\.(\d+):`)

// A refused parameter names its key and the range that fits: over drawn
// 3-level shapes, every value of the advised range builds with the other
// parameters as they were, and one more does not.
func TestRefusedParameterAdvisesARangeThatBuilds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	set := func(p *Params, key string, v int) {
		switch key {
		case "pods":
			p.Pods = v
		case "spine_uplinks":
			p.SpineUplinks = v
		case "leaves":
			p.Leaves = v
		default:
			t.Fatalf("advice for unexpected key %q", key)
		}
	}
	checked := 0
	for i := 0; i < 400; i++ {
		p := Params{Levels: 3, Radix: 4 + 2*rng.IntN(8)}
		switch rng.IntN(3) {
		case 0:
			p.Pods = 1 + rng.IntN(3*p.Radix)
		case 1:
			p.SpineUplinks = 1 + rng.IntN(3*p.Radix)
		case 2:
			p.Leaves = 1 + rng.IntN(2*p.Radix)
		}
		_, err := Resolve(p)
		var pe *ParamError
		if !errors.As(err, &pe) {
			continue
		}
		m := wantRange.FindStringSubmatch(pe.Want)
		if m == nil {
			t.Errorf("%+v: %v: no range advised", p, err)
			continue
		}
		most, _ := strconv.Atoi(m[1])
		for _, v := range []int{1, most} {
			q := p
			set(&q, pe.Key, v)
			if _, err := Resolve(q); err != nil {
				t.Errorf("%+v: %v; following it with %s=%d: %v", p, pe, pe.Key, v, err)
			}
		}
		q := p
		set(&q, pe.Key, most+1)
		if _, err := Resolve(q); err == nil {
			t.Errorf("%+v: %v; but %s=%d builds too", p, pe, pe.Key, most+1)
		}
		checked++
	}
	if checked < 50 {
		t.Fatalf("only %d refusals checked", checked)
	}
}
