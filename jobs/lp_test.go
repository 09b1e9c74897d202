package jobs_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"slimroute/fabric"
	"slimroute/jobs"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

// TestLPBoundAgainstTheExactLP judges Analyze's LP bound with an exact
// solution of the same linear program, built here from the tables alone
// and solved by gonum's simplex: on Slim Fly q = 3 routed with the
// defaults, drawn mixes of 2 or 3 small jobs of every pattern. Each
// flow's share on each LID (the analysis splits a flow evenly over them)
// may take any path no longer than the tables' route for that LID; the
// LP's least busiest channel lies between the bound and the busiest
// channel the routing gives, and the bound is within 10 % of it.
func TestLPBoundAgainstTheExactLP(t *testing.T) {
	f, err := slimfly.Build(slimfly.Params{Q: 3})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(f, pipeline.Config{Layers: 4, Deadlock: "auto", Seed: 1, LMC: -1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	hosts := hostNames(f)
	rng := rand.New(rand.NewPCG(30, 3))
	worst := 1.0
	for c := 0; c < 12; c++ {
		var js []jobs.Job
		free := rng.Perm(len(hosts))
		for k := 0; k < 2+rng.IntN(2); k++ {
			n := 3 + rng.IntN(5)
			j := jobs.Job{ID: fmt.Sprint(k), Pattern: []string{"ring", "tree", "all-to-all", "neighbours"}[rng.IntN(4)], Weight: float64(1 + rng.IntN(3))}
			for _, h := range free[:n] {
				j.Hosts = append(j.Hosts, hosts[h])
			}
			free = free[n:]
			js = append(js, j)
		}
		rep, err := jobs.Analyze(res.Tables, js, "jobs")
		if err != nil || rep.LPNote != "" {
			t.Fatalf("mix %d: %v %s", c, err, rep.LPNote)
		}
		exact := exactLP(t, res.Tables, js)
		if rep.LPBound > exact*(1+1e-6) || exact > rep.Busiest*(1+1e-6) || rep.LPBound < 0.9*exact {
			t.Errorf("mix %d: bound %.4f, exact LP %.4f, busiest %.4f", c, rep.LPBound, exact, rep.Busiest)
		}
		worst = min(worst, rep.LPBound/exact)
	}
	t.Logf("the bound is at least %.3f × the exact LP", worst)
}

// exactLP solves the min-congestion LP of the jobs' traffic over the
// switch paths no longer than tab's route of each LID: variables x_p per
// path of each commodity (source switch, destination switch, most hops),
// the busiest load z and a slack per channel; Σ x_p = demand per
// commodity, Σ_{p ∋ e} x_p − z + s_e = 0 per channel; minimise z.
func exactLP(t *testing.T, tab *lft.Tables, js []jobs.Job) float64 {
	t.Helper()
	f := tab.Fabric()
	type key struct {
		a, b fabric.NodeID
		hops int
	}
	demand := map[key]float64{}
	port := map[string]fabric.PortRef{}
	for _, h := range f.IDsOf(fabric.HCA) {
		port[strings.Fields(f.Name(h))[0]] = fabric.PortRef{Node: h, Port: 1}
	}
	for _, j := range js {
		for _, fl := range j.Flows() {
			src, dst := port[j.Hosts[fl.From]], port[j.Hosts[fl.To]]
			first, _ := f.Peer(src)
			last, _ := f.Peer(dst)
			pl, _ := tab.LIDs().Of(dst)
			n := 1 << pl.LMC
			for k := 0; k < n && first.Node != last.Node; k++ {
				sw, hops := first.Node, 0
				for sw != last.Node {
					next, _ := f.Peer(fabric.PortRef{Node: sw, Port: int(tab.LFT(sw)[int(pl.Base)+k])})
					sw, hops = next.Node, hops+1
				}
				demand[key{first.Node, last.Node, hops}] += fl.Weight / float64(n)
			}
		}
	}
	var keys []key
	for k := range demand {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		return a.a < b.a || a.a == b.a && (a.b < b.b || a.b == b.b && a.hops < b.hops)
	})
	channel := map[fabric.PortRef]int{}
	for _, s := range f.IDsOf(fabric.Switch) {
		for p := 1; p <= f.Ports(s); p++ {
			if peer, ok := f.Peer(fabric.PortRef{Node: s, Port: p}); ok && f.Kind(peer.Node) == fabric.Switch {
				channel[fabric.PortRef{Node: s, Port: p}] = len(channel)
			}
		}
	}
	var cols [][]int // per path: its commodity row, then its channels' rows
	first := make([]int, len(keys))
	for i, k := range keys {
		first[i] = len(cols)
		for _, p := range switchPaths(f, k.a, k.b, k.hops) {
			col := []int{i}
			for _, c := range p {
				col = append(col, len(keys)+channel[c])
			}
			cols = append(cols, col)
		}
	}
	rows, paths := len(keys)+len(channel), len(cols)
	A := mat.NewDense(rows, paths+1+len(channel), nil) // paths, z, slacks
	b, cost := make([]float64, rows), make([]float64, paths+1+len(channel))
	load := make([]float64, len(channel))
	for i, col := range cols {
		for _, r := range col {
			A.Set(r, i, 1)
		}
	}
	for i, k := range keys {
		b[i] = demand[k]
		for _, r := range cols[first[i]][1:] { // the first path carries it all at the start
			load[r-len(keys)] += demand[k]
		}
	}
	busiest := 0
	for e := range load {
		A.Set(len(keys)+e, paths, -1)
		A.Set(len(keys)+e, paths+1+e, 1)
		if load[e] > load[busiest] {
			busiest = e
		}
	}
	cost[paths] = 1
	basis := append([]int(nil), first...)
	basis = append(basis, paths)
	for e := range load {
		if e != busiest {
			basis = append(basis, paths+1+e)
		}
	}
	z, _, err := lp.Simplex(cost, A, b, 1e-10, basis)
	if err != nil {
		t.Fatalf("simplex: %v", err)
	}
	return z
}

// switchPaths lists the simple paths of at most max hops from switch a to
// switch b, as the channels (switch, out port) they take.
func switchPaths(f *fabric.Fabric, a, b fabric.NodeID, max int) [][]fabric.PortRef {
	var out [][]fabric.PortRef
	var path []fabric.PortRef
	on := map[fabric.NodeID]bool{a: true}
	var walk func(u fabric.NodeID)
	walk = func(u fabric.NodeID) {
		if u == b {
			out = append(out, append([]fabric.PortRef(nil), path...))
			return
		}
		if len(path) == max {
			return
		}
		for p := 1; p <= f.Ports(u); p++ {
			v, ok := f.Peer(fabric.PortRef{Node: u, Port: p})
			if !ok || f.Kind(v.Node) != fabric.Switch || on[v.Node] {
				continue
			}
			on[v.Node], path = true, append(path, fabric.PortRef{Node: u, Port: p})
			walk(v.Node)
			on[v.Node], path = false, path[:len(path)-1]
		}
	}
	walk(a)
	return out
}
