package deadlock_test

import (
	"fmt"
	"strings"
	"testing"

	"slimroute/clos"
	"slimroute/deadlock"
	"slimroute/fabric"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/slimfly"
)

// ring builds n switches in a ring, each with one HCA.
func ring(t *testing.T, n int) *fabric.Fabric {
	t.Helper()
	var nodes []fabric.Node
	var links []fabric.Link
	for i := 0; i < n; i++ {
		nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: fmt.Sprintf("s%d", i), GUID: fabric.GUID(0x100 + i), Ports: 3})
	}
	for i := 0; i < n; i++ {
		links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(i), Port: 2}, B: fabric.PortRef{Node: fabric.NodeID((i + 1) % n), Port: 3}})
		h := fabric.NodeID(len(nodes))
		nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: fmt.Sprintf("h%d", i), GUID: fabric.GUID(0x10000 + i*16), Ports: 1})
		links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(i), Port: 1}, B: fabric.PortRef{Node: h, Port: 1}})
	}
	f, err := fabric.New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// verify programs the routing with the assignment and runs the verifier.
func verify(t *testing.T, r *layers.Routing, a *deadlock.Assignment) *deadlock.Report {
	t.Helper()
	lids, err := lft.AssignLIDs(r.Fabric, lft.LIDOptions{LMC: layers.LMC(r.NumLayers())})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := lft.Build(r, a, lids)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := deadlock.Verify(tab.Program())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestRingNeedsTwoVLs(t *testing.T) {
	f := ring(t, 6)
	r, err := layers.Compute(f, layers.Options{Layers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep := verify(t, r, deadlock.None(r)); rep.Acyclic() {
		t.Fatal("a ring routed on one VL has no cycle?")
	} else if !strings.Contains(rep.CycleString(), "VL0") {
		t.Errorf("cycle %q", rep.CycleString())
	}
	a, err := deadlock.AssignDFSSSP(r, deadlock.Options{VLs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if a.Needed != 2 {
		t.Errorf("DFSSSP needed %d VLs on a ring, want 2", a.Needed)
	}
	if rep := verify(t, r, a); !rep.Acyclic() {
		t.Errorf("DFSSSP on a ring: cycle %s", rep.CycleString())
	}
	if _, err := deadlock.AssignDFSSSP(r, deadlock.Options{VLs: 1}); err == nil || !strings.Contains(err.Error(), "needs 2 VLs on this routing, 1 allowed") {
		t.Errorf("one VL on a ring: %v", err)
	}
	be, err := deadlock.AssignDFSSSP(r, deadlock.Options{VLs: 1, BestEffort: true})
	if err != nil || be.RoutesOnCycle == 0 || len(be.OnCycle) == 0 || !strings.Contains(be.OnCycle[0], "->") {
		t.Errorf("best effort: %v %+v", err, be)
	}
	h, err := deadlock.AssignHops(r, deadlock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep := verify(t, r, h); !rep.Acyclic() || h.VLs != 3 {
		t.Errorf("hops on a ring: %d VLs, cycle %s", h.VLs, rep.CycleString())
	}
}

func TestVerifierCatchesABrokenAssignment(t *testing.T) {
	f, _ := slimfly.Build(slimfly.Params{Q: 5})
	r, _ := layers.Compute(f, layers.Options{Layers: 4, Seed: 1})
	a, err := deadlock.AssignDFSSSP(r, deadlock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lids, _ := lft.AssignLIDs(f, lft.LIDOptions{LMC: 2})
	tab, _ := lft.Build(r, a, lids)
	p := tab.Program()
	if rep, err := deadlock.Verify(p); err != nil || !rep.Acyclic() {
		t.Fatalf("the real assignment: %v %s", err, rep.CycleString())
	}
	p.SL = func(fabric.PortRef, uint16, uint16) uint8 { return 0 } // break it
	rep, err := deadlock.Verify(p)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Acyclic() || len(rep.Cycle) < 2 {
		t.Fatal("all routes on SL 0: the verifier found no cycle")
	}
	t.Logf("cycle: %s", rep.CycleString())
	// and a hole in a table is named
	sw := f.IDsOf(fabric.Switch)[3]
	p.LFT = func(s fabric.NodeID, lid uint16) uint8 {
		if s == sw && lid == uint16(lids.Ports[60].Base) {
			return 0xFF
		}
		return tab.Port(s, lft.LID(lid))
	}
	if _, err := deadlock.Verify(p); err == nil || !strings.Contains(err.Error(), f.Node(sw).Name+" has no route to LID") {
		t.Errorf("hole in an LFT: %v", err)
	}
}

func TestSlimFlyBothSchemesVerified(t *testing.T) {
	for _, c := range []struct{ q, trees int }{{5, 0}, {7, 0}, {5, 1}, {7, 2}} {
		q := c.q
		t.Run(fmt.Sprintf("q=%d,trees=%d", q, c.trees), func(t *testing.T) {
			f, _ := slimfly.Build(slimfly.Params{Q: q})
			r, err := layers.Compute(f, layers.Options{Layers: 4, Seed: 1, Trees: c.trees})
			if err != nil {
				t.Fatal(err)
			}
			d, err := deadlock.AssignDFSSSP(r, deadlock.Options{})
			if err != nil {
				t.Fatal(err)
			}
			h, err := deadlock.AssignHops(r, deadlock.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range []*deadlock.Assignment{d, h} {
				rep := verify(t, r, a)
				if !rep.Acyclic() {
					t.Fatalf("%s: cycle %s", a.Scheme, rep.CycleString())
				}
				if rep.VLs > a.VLs {
					t.Errorf("%s: %d VLs in use, assignment says %d", a.Scheme, rep.VLs, a.VLs)
				}
				t.Logf("q=%d %s: needs %d VLs, uses %d VLs and %d SLs (%s); verifier: %d walks, %d channels, %d dependencies",
					q, a.Scheme, a.Needed, a.VLs, a.SLs, a.Packing, rep.Walks, rep.Channels, rep.Dependencies)
			}
			// endpoints that share trees share their SLs
			for _, a := range []*deadlock.Assignment{d, h} {
				for k := 1; k < 4; k++ {
					for e := 0; e < r.NumEndpoints(); e++ {
						for s := 0; s < r.NumSwitches(); s++ {
							if like := r.SharedWith(e); a.SL(k, s, e) != a.SL(k, s, like) {
								t.Fatalf("%s layer %d: endpoint %d shares %d's trees but not its SL from switch %d", a.Scheme, k, e, like, s)
							}
						}
					}
				}
			}
			if h.VLs != 3 || h.SLs > 16 {
				t.Errorf("hops: %d VLs %d SLs", h.VLs, h.SLs)
			}
			if rep := verify(t, r, deadlock.None(r)); rep.Acyclic() {
				t.Error("4 layers on one VL are acyclic? the verifier must see the cycles")
			}
		})
	}
}

func TestClosNeedsOneVL(t *testing.T) {
	two, _ := clos.Build(clos.Params{Radix: 8})
	three, _ := clos.Build(clos.Params{Levels: 3, Radix: 8})
	for _, f := range []*fabric.Fabric{two, three} {
		r, err := layers.Compute(f, layers.Options{Layers: 4})
		if err != nil {
			t.Fatal(err)
		}
		if rep := verify(t, r, deadlock.None(r)); !rep.Acyclic() || rep.VLs != 1 {
			t.Errorf("Clos on one VL: %d VLs, cycle %s", rep.VLs, rep.CycleString())
		}
		a, err := deadlock.AssignDFSSSP(r, deadlock.Options{})
		if err != nil || a.Needed != 1 {
			t.Errorf("DFSSSP on a Clos needs %d VLs (%v), want 1", a.Needed, err)
		}
	}
}

func TestHopsSchemeRejectsLongRoutes(t *testing.T) {
	f := ring(t, 10) // routes of up to 5 hops
	r, _ := layers.Compute(f, layers.Options{Layers: 1})
	_, err := deadlock.AssignHops(r, deadlock.Options{})
	if err == nil || !strings.Contains(err.Error(), "at most 3 switch-to-switch hops") {
		t.Fatalf("error %v", err)
	}
	f6 := ring(t, 6)
	r6, _ := layers.Compute(f6, layers.Options{Layers: 1})
	if _, err := deadlock.AssignHops(r6, deadlock.Options{VLs: 2}); err == nil || !strings.Contains(err.Error(), "needs 3 VLs") {
		t.Fatalf("two VLs: %v", err)
	}
}

// TestGroupedVerifyEqualsPerSource runs the verifier with and without the
// tables' SLKey: following one port per group must find the same channels,
// dependencies and VLs as following every port; and a key that lumps
// together ports whose SLs differ is refused.
func TestGroupedVerifyEqualsPerSource(t *testing.T) {
	f, _ := slimfly.Build(slimfly.Params{Q: 5})
	r, _ := layers.Compute(f, layers.Options{Layers: 4, Seed: 1, Trees: -1})
	for _, assign := range []func(*layers.Routing, deadlock.Options) (*deadlock.Assignment, error){deadlock.AssignHops, deadlock.AssignDFSSSP} {
		a, err := assign(r, deadlock.Options{})
		if err != nil {
			t.Fatal(err)
		}
		lids, _ := lft.AssignLIDs(f, lft.LIDOptions{LMC: 2})
		tab, _ := lft.Build(r, a, lids)
		p := tab.Program()
		if p.SLKey == nil {
			t.Fatal("the tables give no SLKey")
		}
		grouped, err := deadlock.Verify(p)
		if err != nil {
			t.Fatal(err)
		}
		p.SLKey = nil
		each, err := deadlock.Verify(p)
		if err != nil {
			t.Fatal(err)
		}
		if grouped.Channels != each.Channels || grouped.Dependencies != each.Dependencies || grouped.VLs != each.VLs || grouped.Acyclic() != each.Acyclic() || grouped.Sources != each.Sources {
			t.Errorf("%s: grouped %+v, per source %+v", a.Scheme, grouped, each)
		}
		if grouped.Walks*3 > each.Walks {
			t.Errorf("%s: grouping saved little: %d walks against %d", a.Scheme, grouped.Walks, each.Walks)
		}
		// a key that lies: every port in one group, SLs per port
		p.SLKey = func(fabric.PortRef) int { return 0 }
		p.SL = func(src fabric.PortRef, slid, dlid uint16) uint8 { return uint8(src.Node) % 2 }
		if _, err := deadlock.Verify(p); err == nil || !strings.Contains(err.Error(), "SLKey puts") {
			t.Errorf("a lying SLKey: %v", err)
		}
	}
}
