package transition

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
)

// hopAt is one switch of a packet's route: in port and out port.
type hopAt struct {
	sw      fabric.NodeID
	in, out int
}

// routeOf follows the packet from HCA port src to lid through tab.
func routeOf(tab *lft.Tables, src fabric.PortRef, lid lft.LID) []hopAt {
	f := tab.Fabric()
	at, _ := f.Peer(src)
	var out []hopAt
	for range len(tab.Switches()) {
		p := int(tab.Port(at.Node, lid))
		peer, ok := f.Peer(fabric.PortRef{Node: at.Node, Port: p})
		if p == 0 || p == lft.Drop || !ok {
			break
		}
		out = append(out, hopAt{at.Node, at.Port, p})
		if f.Kind(peer.Node) != fabric.Switch {
			break
		}
		at = peer
	}
	return out
}

// aChange draws one change of tab: an SL-to-VL entry some packet uses
// after its first switch, set to another of VLs 0..2;
// or one path SL of a class toward one LID; or one LFT entry of a switch
// toward a random switch neighbour. It names it for the log.
func aChange(rng *rand.Rand, tab *lft.Tables, kind int) (string, edits) {
	srcs, f := sources(tab), tab.Fabric()
	src, ps := srcs[rng.IntN(len(srcs))], tab.LIDs().Ports()
	lid := ps[rng.IntN(len(ps))].Base
	for len(routeOf(tab, src, lid)) < 2 {
		src, lid = srcs[rng.IntN(len(srcs))], ps[rng.IntN(len(ps))].Base
	}
	r, sl := routeOf(tab, src, lid), tab.PathSL(src, lid)
	h := r[1+rng.IntN(len(r)-1)]
	switch kind {
	case 0:
		vl := (tab.SL2VL(h.sw, h.in, h.out, sl) + 1 + uint8(rng.IntN(2))) % 3
		return fmt.Sprintf("SL2VL %s in %d out %d SL %d → VL %d", f.Name(h.sw), h.in, h.out, sl, vl),
			edits{sl2vl: func(sw fabric.NodeID, in int, t []uint8) {
				if sw == h.sw && in == h.in {
					t[h.out*16+int(sl)] = vl
				}
			}}
	case 1:
		c, to := tab.SLClass(src), uint8((int(sl)+1+rng.IntN(3))%4)
		return fmt.Sprintf("path SL of %s's class to %#04x → %d", f.PortString(src), uint16(lid), to),
			edits{sl: func(class int, row []uint8) {
				if class == c {
					row[lid] = to
				}
			}}
	}
	p := 1 + rng.IntN(f.Ports(h.sw))
	for peer, ok := f.Peer(fabric.PortRef{Node: h.sw, Port: p}); !ok || f.Kind(peer.Node) != fabric.Switch; peer, ok = f.Peer(fabric.PortRef{Node: h.sw, Port: p}) {
		p = 1 + rng.IntN(f.Ports(h.sw))
	}
	return fmt.Sprintf("LFT %s %#04x → port %d", f.Name(h.sw), uint16(lid), p),
		edits{lft: func(sw fabric.NodeID, row []uint8) {
			if sw == h.sw {
				row[lid] = uint8(p)
			}
		}}
}

// union returns a graph with the channels and dependencies of a and b.
func union(a, b *refGraph) *refGraph {
	u := newRefGraph()
	for _, g := range []*refGraph{a, b} {
		for c := range g.chans {
			u.chans[c] = true
		}
		for d := range g.deps {
			u.deps[d] = true
		}
		u.dead = u.dead || g.dead
	}
	return u
}

// TestOneChangeAgreesWithTracingBothStates: a switch-over that changes
// one entry (an SL2VL entry lowered, a path SL, an LFT entry) leaves
// every packet a choice at one place at most, so the union of the traces
// of the old and the new state is every mix's graph: Check must find a
// credit loop exactly when that union has one, with the same numbers of
// channels and dependencies.
func TestOneChangeAgreesWithTracingBothStates(t *testing.T) {
	old := route(t, slimFly(t, 5), 1)
	base := newRefGraph()
	pure(base, old)
	if base.cyclic() || base.dead {
		t.Fatal("the old routing alone has a credit loop or a dead end")
	}
	rng := rand.New(rand.NewPCG(5, 9))
	caught, mixOnly := 0, 0
	for i := range 24 {
		what, e := aChange(rng, old, i%3)
		new := rebuild(t, old, e)
		r, err := Check(old, new)
		must(t, err)
		alone := newRefGraph()
		pure(alone, new)
		u := union(base, alone)
		if r.Loop != nil {
			t.Logf("%s: forwarding loop %s", what, r.Loop)
			continue
		}
		if (r.Cycle != nil) != u.cyclic() || r.Dependencies != len(u.deps) || r.Channels != len(u.chans) || (r.DeadEnds > 0) != u.dead {
			t.Fatalf("%s:\n%s: traces: cycle %v, %d channels, %d dependencies, dead %v", what, r, u.cyclic(), len(u.chans), len(u.deps), u.dead)
		}
		if r.Cycle != nil {
			caught++
			if !alone.cyclic() {
				mixOnly++
			}
			t.Logf("%s: credit loop of %d channels (new state alone: %v)", what, len(r.Cycle), alone.cyclic())
		}
	}
	t.Logf("%d changes closed a credit loop, %d of them only in a mix", caught, mixOnly)
}

// TestLoweredVLsAreCaught: the new state maps every SL to VL 0 on every
// other switch, so mixed paths go down in VL there; where the traces of
// the two states close a credit loop, Check must report one. Packets meet
// changed tables at several switches, so mixes make more dependencies than
// the two states: at least as many.
func TestLoweredVLsAreCaught(t *testing.T) {
	old := route(t, slimFly(t, 5), 2)
	sws := switchIndex(old)
	new := rebuild(t, old, edits{sl2vl: func(sw fabric.NodeID, _ int, tab []uint8) {
		if sws[sw]%2 == 0 {
			clear(tab)
		}
	}})
	a, b := newRefGraph(), newRefGraph()
	pure(a, old)
	pure(b, new)
	u := union(a, b)
	r, err := Check(old, new)
	must(t, err)
	if !u.cyclic() || r.Cycle == nil || r.Dependencies < len(u.deps) {
		t.Fatalf("traces: cycle %v, %d dependencies:\n%s", u.cyclic(), len(u.deps), r)
	}
	t.Logf("new state alone cyclic: %v\n%s", b.cyclic(), r)
}
