package transition

import (
	"strings"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/pipeline"
)

// TestARoutingIsASafeSwitchOverToItself: Check(t, t) finds nothing on
// pipeline routings of Slim Flies and a Clos, nor on a copy of t made
// through lft.Builder.
func TestARoutingIsASafeSwitchOverToItself(t *testing.T) {
	c, err := clos.Build(clos.Params{Radix: 8})
	must(t, err)
	for i, f := range []*fabric.Fabric{slimFly(t, 4), slimFly(t, 5), c} {
		tab := route(t, f, uint64(i+1))
		for _, other := range []*lft.Tables{tab, rebuild(t, tab, edits{})} {
			r, err := Check(tab, other)
			must(t, err)
			if !r.Safe() || r.Changed != (Changes{}) || r.Unjudged != 0 || r.Dependencies == 0 {
				t.Fatalf("fabric %d:\n%s", i, r)
			}
		}
	}
}

// nextSwitch returns the switch sw forwards lid to, and the port.
func nextSwitch(tab *lft.Tables, sw fabric.NodeID, lid lft.LID) (fabric.NodeID, int, bool) {
	out := int(tab.Port(sw, lid))
	peer, ok := tab.Fabric().Peer(fabric.PortRef{Node: sw, Port: out})
	if out == 0 || out == lft.Drop || !ok || tab.Fabric().Kind(peer.Node) != fabric.Switch {
		return 0, 0, false
	}
	return peer.Node, out, true
}

// portTo returns a port of sw cabled to switch to, other than not.
func portTo(f *fabric.Fabric, sw, to fabric.NodeID) (int, bool) {
	for p := 1; p <= f.Ports(sw); p++ {
		if peer, ok := f.Peer(fabric.PortRef{Node: sw, Port: p}); ok && peer.Node == to {
			return p, true
		}
	}
	return 0, false
}

// avoids reports whether the next hops toward lid lead from c to d
// without passing a or b.
func avoids(tab *lft.Tables, lid lft.LID, c, d, a, b fabric.NodeID) bool {
	for range len(tab.Switches()) {
		if c == d {
			return true
		}
		if c == a || c == b {
			return false
		}
		next, _, ok := nextSwitch(tab, c, lid)
		if !ok {
			return false
		}
		c = next
	}
	return false
}

// unionLoop finds, for a base LID of an HCA, switches b → a → d (d the
// HCA's switch) and a neighbour c of b whose route avoids a and b, and
// returns the change a → b, b → c: loop-free alone, with the old b → a a
// loop.
func unionLoop(t *testing.T, tab *lft.Tables) (lft.LID, fabric.NodeID, fabric.NodeID, edits) {
	f := tab.Fabric()
	for _, p := range tab.LIDs().Ports() {
		d, _ := f.Peer(p.Port)
		if f.Kind(p.Port.Node) != fabric.HCA {
			continue
		}
		for _, b := range tab.Switches() {
			a, _, ok := nextSwitch(tab, b, p.Base)
			if next, _, ok2 := nextSwitch(tab, a, p.Base); !ok || !ok2 || next != d.Node || b == d.Node {
				continue
			}
			for pc := 1; pc <= f.Ports(b); pc++ {
				c, ok := f.Peer(fabric.PortRef{Node: b, Port: pc})
				if !ok || f.Kind(c.Node) != fabric.Switch || !avoids(tab, p.Base, c.Node, d.Node, a, b) {
					continue
				}
				pa, _ := portTo(f, a, b)
				lid, sa, sb := p.Base, a, b
				return lid, a, b, edits{lft: func(sw fabric.NodeID, row []uint8) {
					switch sw {
					case sa:
						row[lid] = uint8(pa)
					case sb:
						row[lid] = uint8(pc)
					}
				}}
			}
		}
	}
	t.Fatal("no b → a → d with a second way b → c → … → d")
	return 0, 0, 0, edits{}
}

// TestALoopOfTheUnionIsCaught: two switches' next hops changed so that
// neither state loops alone but a mix does (old b → a, new a → b).
func TestALoopOfTheUnionIsCaught(t *testing.T) {
	old := route(t, slimFly(t, 5), 1)
	lid, a, b, e := unionLoop(t, old)
	new := rebuild(t, old, e)
	for _, alone := range []*lft.Tables{old, new} {
		if r, err := Check(alone, alone); err != nil || !r.Safe() {
			t.Fatalf("a state alone: %v\n%s", err, r)
		}
	}
	r, err := Check(old, new)
	must(t, err)
	f := old.Fabric()
	want := []LoopHop{{f.Name(a), int(new.Port(a, lid)), "new"}, {f.Name(b), int(old.Port(b, lid)), "old"}}
	if r.Loops != 1 || r.Loop.LID != lid || len(r.Loop.Hops) != 2 || r.Loop.Hops[0] != want[0] && r.Loop.Hops[0] != want[1] {
		t.Fatalf("want the loop %v of LID %#04x:\n%s", want, uint16(lid), r)
	}
	t.Logf("%s", r.Loop)
}

// TestTablesThatCannotBeComparedAreAnError: other fabrics, other LMCs.
func TestTablesThatCannotBeComparedAreAnError(t *testing.T) {
	f := slimFly(t, 4)
	a := route(t, f, 1)
	res, err := pipeline.Run(f, pipeline.Config{Layers: 1, Deadlock: "auto", VLs: 4, Seed: 1, LMC: 0, Workers: 2})
	must(t, err)
	for _, c := range []struct {
		other *lft.Tables
		want  string
	}{{route(t, slimFly(t, 5), 1), "different fabrics: 128 nodes in the old tables' fabric, 250 in the new"}, {res.Tables, "different LID plans: LMC 2 in the old tables, 0 in the new"}} {
		if _, err := Check(a, c.other); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// TestTheReportIsDeterministic: the same switch-over, its tables copied
// through lft.Builder (other class numbers), gives the same report.
func TestTheReportIsDeterministic(t *testing.T) {
	f := slimFly(t, 5)
	a, b := route(t, f, 3), route(t, f, 4)
	r1, err := Check(a, b)
	must(t, err)
	r2, err := Check(rebuild(t, a, edits{}), rebuild(t, b, edits{}))
	must(t, err)
	if r1.String() != r2.String() || r1.Loop == nil || r1.Cycle == nil {
		t.Fatalf("%s\n%s", r1, r2)
	}
}
