package slimfly

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"

	"slimroute/fabric"
)

func TestAdmissibleQs(t *testing.T) {
	want := "[3 4 5 7 8 9 11 13 16 17 19 23 25 27 29 31 32]"
	if got := fmt.Sprint(Admissible(32)); got != want {
		t.Fatalf("Admissible(32) = %s, want %s", got, want)
	}
}

// TestSlimFlyIsMMSGraphForEveryAdmissibleQ checks, for every admissible
// q ≤ 32, the properties that define the topology: 2q² switches, every
// switch of network degree (3q−δ)/2, a simple graph (no self-loops, no
// parallel cables), diameter 2, the default endpoint count (or, for q=32,
// as many as one subnet's LIDs hold), and that the fabric validates.
func TestSlimFlyIsMMSGraphForEveryAdmissibleQ(t *testing.T) {
	for _, q := range Admissible(32) {
		q := q
		t.Run(fmt.Sprintf("q=%d", q), func(t *testing.T) {
			t.Parallel()
			d, err := NewDesign(q)
			if err != nil {
				t.Fatal(err)
			}
			kp := (3*q - d.Delta) / 2
			p := (kp + 1) / 2
			if 2*q*q*(1+p) > fabric.MaxLIDs {
				p = fabric.MaxLIDs/(2*q*q) - 1 // as many as one subnet holds
			}
			f, err := Build(Params{Q: q, Endpoints: p})
			if err != nil {
				t.Fatal(err)
			}
			st := fabric.ComputeStats(f)
			if st.Switches != 2*q*q {
				t.Errorf("switches = %d, want %d", st.Switches, 2*q*q)
			}
			if st.MinDegree != kp || st.MaxDegree != kp {
				t.Errorf("degree in [%d,%d], want %d", st.MinDegree, st.MaxDegree, kp)
			}
			if st.ParallelLinks != 0 {
				t.Errorf("%d parallel links; an MMS graph is simple", st.ParallelLinks)
			}
			if st.Diameter != 2 {
				t.Errorf("diameter = %d, want 2", st.Diameter)
			}
			if st.MinEndpoints != p || st.MaxEndpoints != p || st.HCAs != p*2*q*q {
				t.Errorf("endpoints per switch in [%d,%d], HCAs %d; want %d per switch", st.MinEndpoints, st.MaxEndpoints, st.HCAs, p)
			}
			v := f.SwitchView()
			for s := range v.Adj {
				seen := map[int]bool{}
				for _, c := range v.Adj[s] {
					if c.Peer == s {
						t.Fatalf("%s has a self-loop", f.Node(v.IDs[s]).Name)
					}
					seen[c.Peer] = true
				}
				if len(seen) != len(v.Adj[s]) {
					t.Fatalf("%s has parallel cables", f.Node(v.IDs[s]).Name)
				}
			}
		})
	}
}

// TestDiameterAgreesWithGonum cross-checks our BFS against gonum's
// Floyd–Warshall on the q=5 fabric.
func TestDiameterAgreesWithGonum(t *testing.T) {
	f, err := Build(Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	g := simple.NewUndirectedGraph()
	for _, id := range f.IDsOf(fabric.Switch) {
		g.AddNode(simple.Node(id))
	}
	for _, l := range f.Links() {
		a, b := simple.Node(l.A.Node), simple.Node(l.B.Node)
		if f.Kind(l.A.Node) == fabric.Switch && f.Kind(l.B.Node) == fabric.Switch && !g.HasEdgeBetween(a.ID(), b.ID()) {
			g.SetEdge(simple.Edge{F: a, T: b})
		}
	}
	all, _ := path.FloydWarshall(g)
	max := 0.0
	nodes := g.Nodes()
	var ids []int64
	for nodes.Next() {
		ids = append(ids, nodes.Node().ID())
	}
	for _, a := range ids {
		for _, b := range ids {
			if w := all.Weight(a, b); w > max {
				max = w
			}
		}
	}
	if max != 2 || fabric.ComputeStats(f).Diameter != 2 {
		t.Fatalf("gonum diameter %v, ours %d", max, fabric.ComputeStats(f).Diameter)
	}
}

func TestPaperDeploymentQ5(t *testing.T) {
	f, err := Build(Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	st := fabric.ComputeStats(f)
	// NSDI'24: 50 switches, 200 endpoints, 5 racks, k′ = 7, p = 4.
	if st.Switches != 50 || st.HCAs != 200 || st.MaxDegree != 7 || st.SwitchLinks != 175 {
		t.Fatalf("stats %+v", st)
	}
	racks := map[int]int{}
	for _, id := range f.IDsOf(fabric.Switch) {
		racks[f.Node(id).Place.Rack]++
	}
	if len(racks) != 5 {
		t.Fatalf("racks %v", racks)
	}
	for r, n := range racks {
		if n != 10 {
			t.Errorf("rack %d holds %d switches, want 2q = 10", r, n)
		}
	}
	// Hosts on the low ports, network links above them.
	id, _ := f.NodeByName("sw-0-2-4")
	for p := 1; p <= 4; p++ {
		peer, ok := f.Peer(fabric.PortRef{Node: id, Port: p})
		if !ok || f.Node(peer.Node).Kind != fabric.HCA {
			t.Errorf("port %d of sw-0-2-4 does not carry an HCA", p)
		}
	}
	for p := 5; p <= 11; p++ {
		peer, ok := f.Peer(fabric.PortRef{Node: id, Port: p})
		if !ok || f.Node(peer.Node).Kind != fabric.Switch {
			t.Errorf("port %d of sw-0-2-4 does not carry a switch link", p)
		}
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	const q = 7
	var nets [2]strings.Builder
	for i := range nets {
		f, err := Build(Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		if err := fabric.WriteIBSimNet(&nets[i], f); err != nil {
			t.Fatal(err)
		}
	}
	// a Slim Fly has 2q² switches: the text compared must hold them all
	if n := strings.Count(nets[0].String(), "\nSwitch"); n != 2*q*q {
		t.Fatalf("the net file has %d switch records, want 2q² = %d", n, 2*q*q)
	}
	if nets[0].String() != nets[1].String() {
		t.Fatal("two builds of q=7 differ")
	}
}

func TestBadParametersAreClearErrors(t *testing.T) {
	for _, c := range []struct {
		p    Params
		want string
	}{
		{Params{Q: 6}, "q=6 has no Slim Fly"},
		{Params{Q: 2}, "q=2 has no Slim Fly"},
		{Params{Q: 10}, "try q in"},
		{Params{Q: 5, Radix: 8}, "needs 11 ports per switch (7 network + 4 endpoints), but radix is 8"},
		{Params{Q: 5, Endpoints: -1}, "endpoints=-1"},
		{Params{Q: 5, Radix: 300}, "at most 254"},
	} {
		_, err := Build(c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.p, err, c.want)
		}
	}
}
