package pipeline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"slimroute/analysis"
	"slimroute/dragonflyplus"
	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/internal/hcavl"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/verify"
)

// TestDragonflyPlusInServiceRoutesAsItsDesign: drawn Dragonfly+ shapes
// (2 to 4 leaves and spines per group, 1 or 2 global cables per spine, one
// or two global cables between two groups) lose, in turn, a global cable,
// a leaf–spine cable or every host of a leaf, up to 3 hosts more, and
// 1 % of their switch-to-switch cables when that is more (so does the
// builder's radix-8 Dragonfly+, 17 groups, each way); they are listed
// in a random order. Those the layers cannot route group pair by group
// pair as they are (a group pair left without a cable, a leaf short of a
// spine or of hosts) are routed as their design and repaired: on 4 VLs,
// verified, HCA SL-to-VL tables agreeing with their switches', with the
// fabric's LIDs, the same bytes in another order, and at least as many
// pairs with three disjoint paths of 2 to 6 hops as routing the damaged
// fabric as it is. The others (two groups left with one cable of two) are
// routed as they are.
func TestDragonflyPlusInServiceRoutesAsItsDesign(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 7))
	draws := 9
	if testing.Short() {
		draws = 3
	}
	completions := 0
	for i := range draws + 3 {
		p := dragonflyplus.Params{Leaves: 2 + rng.IntN(3), Spines: 2 + rng.IntN(3), Global: 1 + rng.IntN(2), Endpoints: 2 + rng.IntN(3)}
		perPair := 1 + rng.IntN(2)
		if p.Spines*p.Global%perPair != 0 || p.Spines*p.Global/perPair < 2 {
			perPair = 1
		}
		p.Groups = p.Spines*p.Global/perPair + 1
		p.Radix = max(p.Endpoints+p.Spines, p.Leaves+p.Global) + 2
		if i >= draws { // and the builder's radix 8: 17 groups, 272 HCAs
			p = dragonflyplus.Params{Radix: 8, Groups: 17, Leaves: 4, Spines: 4, Global: 4, Endpoints: 4}
		}
		whole, err := dragonflyplus.Build(p)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		damage, what := dragonflyPlusDamage(t, whole, i%3, rng)
		hosts := rng.IntN(4)
		cables := len(failures.InterSwitch(whole))/100 - len(damage.links)
		name := fmt.Sprintf("%d groups of %d leaves × %d hosts and %d spines × %d global, less %s, %d hosts and %d cables more", p.Groups, p.Leaves, p.Endpoints, p.Spines, p.Global, what, hosts, max(0, cables))
		build := func(order uint64) *fabric.Fabric {
			f, err := whole.Without(damage.nodes, damage.links)
			if err != nil {
				t.Fatal(err)
			}
			if cables > 0 {
				if f, err = failures.Draw(f, cables, 0, uint64(i)); err != nil {
					t.Fatal(err)
				}
			}
			return lessHostsListedOtherwise(t, f, hosts, order)
		}
		f := build(1)
		cfg := Config{Layers: 4, VLs: 4, Seed: 1, LMC: -1, Workers: 2}
		res, err := Run(f, cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rep, err := verify.Check(res.Tables, 1); err != nil || !rep.Acyclic() || rep.VLs > 4 {
			t.Fatalf("%s: verifier %v", name, err)
		}
		if m := hcavl.Mismatch(res.Tables, 4); m != "" {
			t.Fatalf("%s: %s", name, m)
		}
		if layers.IsDragonflyPlus(f.SwitchView()) {
			if res.Completed != nil {
				t.Fatalf("%s: routed as its design (%v), but the layers route it group pair by group pair as it is", name, res.Completed)
			}
			continue
		}
		completions++
		if res.Completed == nil || !strings.Contains(res.Completed.Design, "Dragonfly+") {
			t.Fatalf("%s: completed %+v", name, res.Completed)
		}
		if _, _, ok := res.Routing.DragonflyPlus(); !ok {
			t.Fatalf("%s: the design is not routed group pair by group pair", name)
		}
		want := checkLIDsAndOrder(t, name, f, res, build(2), cfg)
		full, err := route(f, want, cfg, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		a, b := disjoint3Within(t, res.Tables, layers.DragonflyPlusBounds), disjoint3Within(t, full.Tables, layers.DragonflyPlusBounds)
		t.Logf("%s: as the design %.2f %%, as it is %.2f %% of pairs with ≥ 3 disjoint paths of 2 to 6 hops", name, a, b)
		if a < b {
			t.Errorf("%s: %.2f %% against %.2f %%", name, a, b)
		}
	}
	if completions == 0 {
		t.Error("no draw was routed as its design")
	}
}

// parts of a fabric to take out
type taken struct {
	nodes []fabric.NodeID
	links []int
}

// dragonflyPlusDamage picks what to take out of the Dragonfly+ f: kind 0
// a global cable, 1 a leaf–spine cable, 2 every HCA of a leaf.
func dragonflyPlusDamage(t *testing.T, f *fabric.Fabric, kind int, rng *rand.Rand) (taken, string) {
	t.Helper()
	hosts := func(s fabric.NodeID) []fabric.NodeID {
		var out []fabric.NodeID
		for p := 1; p <= f.Ports(s); p++ {
			if peer, ok := f.Peer(fabric.PortRef{Node: s, Port: p}); ok && f.Kind(peer.Node) == fabric.HCA {
				out = append(out, peer.Node)
			}
		}
		return out
	}
	var global, up []int
	for _, i := range failures.InterSwitch(f) {
		l := f.Links()[i]
		if len(hosts(l.A.Node)) == 0 && len(hosts(l.B.Node)) == 0 {
			global = append(global, i)
		} else {
			up = append(up, i)
		}
	}
	switch kind {
	case 0:
		return taken{links: []int{global[rng.IntN(len(global))]}}, "a global cable"
	case 1:
		return taken{links: []int{up[rng.IntN(len(up))]}}, "a leaf–spine cable"
	}
	l := f.Links()[up[rng.IntN(len(up))]]
	leaf := l.A.Node
	if len(hosts(leaf)) == 0 {
		leaf = l.B.Node
	}
	return taken{nodes: hosts(leaf)}, "a leaf's hosts"
}

// disjoint3Within returns the share of pairs with three disjoint paths
// within bounds b.
func disjoint3Within(t *testing.T, tab *lft.Tables, b layers.Bounds) float64 {
	t.Helper()
	rep, err := analysis.Analyze(tab, analysis.Options{Permutations: 1, Seed: 1, Workers: 2, Bounds: b})
	if err != nil {
		t.Fatal(err)
	}
	return 100 * float64(rep.Disjoint[3]) / float64(rep.Pairs)
}
