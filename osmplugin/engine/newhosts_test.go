package engine

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/lft"
	"slimroute/verify"
)

// TestPluginRoutesNewHostsWithoutARecompute: drawn Slim Flies (q = 3 and
// 5) whose first sweep lacks a few hosts (not yet booted), OpenSM's LIDs
// on the others; the next sweep finds some or all of them up, with the
// LIDs OpenSM gave them. The plugin repairs rather than recomputes: every
// entry toward the LIDs it routed stays, the new LIDs are forwarded, the
// tables pass the verifier. A cable failing after that is still a
// repair. Red with the hosts left to smallChange (a full recompute).
func TestPluginRoutesNewHostsWithoutARecompute(t *testing.T) {
	cfg := settings(t, "vls = 4\n")
	for seed := range uint64(6) {
		all, _ := slimFlySubnet(t, 3+2*int(seed%2), 2)
		before, after, back, err := failures.LateHosts(all, 4, seed)
		if err != nil {
			t.Fatal(err)
		}
		first, err := Compute(jsonOf(t, before), cfg, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		second, err := Compute(jsonOf(t, after), cfg, 2, first)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("seed %d, %d hosts up", seed, len(back))
		if want := fmt.Sprintf("HCAs new to the routing or recabled (%d)", len(back)); !strings.Contains(second.Summary(), "repaired the last routing") || !strings.Contains(second.Summary(), want) {
			t.Fatalf("%s: %s", name, second.Summary())
		}
		if rep, err := verify.Check(second.tables, 2); err != nil || !rep.Acyclic() {
			t.Fatalf("%s: the verifier: %v", name, err)
		}
		for _, id := range after.IDsOf(fabric.Switch) {
			now, _ := second.LFT(after.GUID(id))
			was, _ := first.LFT(after.GUID(id))
			for lid, port := range was {
				if _, _, routed := first.tables.LIDs().Owner(lft.LID(lid)); routed && now[lid] != port {
					t.Fatalf("%s: %s: the entry toward LID 0x%x, routed before, changed", name, after.Name(id), lid)
				}
			}
			for _, h := range back {
				a, _ := after.PortAttr(fabric.PortRef{Node: h, Port: 1})
				if int(a.LID) >= len(now) || now[a.LID] == 0xFF {
					t.Fatalf("%s: %s does not forward new %s's LID", name, after.Name(id), after.Name(h))
				}
			}
		}
		_, b := withoutACable(t, after)
		third, err := Compute(b.Bytes(), cfg, 2, second)
		if err != nil || !strings.Contains(third.Summary(), "repaired the last routing") {
			t.Fatalf("%s: a cable after: %v %s", name, err, third.Summary())
		}
		if _, err := verify.Check(third.tables, 2); err != nil {
			t.Fatalf("%s: a cable after: %v", name, err)
		}
	}
}

// jsonOf is f as the shim hands it over.
func jsonOf(t *testing.T, f *fabric.Fabric) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := fabric.WriteJSON(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestPluginRoutesAReplacedHCA: an HCA of the q=5 Slim Fly replaced (a new
// GUID on the same port, given a new LID), whether OpenSM swept while it
// was out or only once the new one was in. Either way the new HCA is a
// repair: named, the old HCA's LIDs dropped by every switch, every entry
// toward the other ports' LIDs as before, the tables verified. Red with
// a port cabled to an HCA the subnet lacks refused (a full recompute).
func TestPluginRoutesAReplacedHCA(t *testing.T) {
	cfg := settings(t, "vls = 4\n")
	all, js := slimFlySubnet(t, 5, 2)
	first, err := Compute(js, cfg, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := all.IDsOf(fabric.HCA)[7]
	oldLIDs, _ := first.tables.LIDs().Of(fabric.PortRef{Node: h, Port: 1})
	nodes := all.Nodes()
	nodes[h].GUID |= 0xf0 << 8
	nodes[h].Name += "-new"
	a := nodes[h].Attrs[1]
	a.LID = uint16(first.tables.LIDs().Top()+4) &^ 3 // the next free block, as OpenSM gives a new GUID
	nodes[h].Attrs[1] = a
	replaced, err := fabric.New(nodes, all.Links())
	if err != nil {
		t.Fatal(err)
	}
	for _, outFirst := range []bool{true, false} {
		last := first
		if outFirst {
			if last, err = Compute(jsonOf(t, without(t, all, h)), cfg, 2, first); err != nil || !strings.Contains(last.Summary(), "repaired the last routing") {
				t.Fatalf("the HCA out: %v %s", err, last.Summary())
			}
		}
		st, err := Compute(jsonOf(t, replaced), cfg, 2, last)
		if err != nil || !strings.Contains(st.Summary(), "repaired the last routing") || !strings.Contains(st.Summary(), "HCAs new to the routing or recabled (1): "+nodes[h].Name) {
			t.Fatalf("swept while out %v: %v %s", outFirst, err, st.Summary())
		}
		if rep, err := verify.Check(st.tables, 2); err != nil || !rep.Acyclic() {
			t.Fatalf("swept while out %v: the verifier: %v", outFirst, err)
		}
		for _, id := range all.IDsOf(fabric.Switch) {
			now, _ := st.LFT(all.GUID(id))
			was, _ := first.LFT(all.GUID(id))
			for lid, port := range was {
				l := lft.LID(lid)
				switch _, _, routed := first.tables.LIDs().Owner(l); {
				case l >= oldLIDs.Base && l <= oldLIDs.Top():
					if now[lid] != lft.Drop {
						t.Fatalf("swept while out %v: %s forwards the old HCA's LID 0x%x", outFirst, all.Name(id), lid)
					}
				case routed && now[lid] != port:
					t.Fatalf("swept while out %v: %s: the entry toward LID 0x%x changed", outFirst, all.Name(id), lid)
				}
			}
			if now[a.LID] == lft.Drop {
				t.Fatalf("swept while out %v: %s drops the new HCA's LID", outFirst, all.Name(id))
			}
		}
	}
}

// without is f without node id.
func without(t *testing.T, f *fabric.Fabric, id fabric.NodeID) *fabric.Fabric {
	t.Helper()
	g, err := f.Without([]fabric.NodeID{id}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPluginRoutesARecabledHost: a host unplugged (a sweep: repaired),
// then plugged into another switch's free port (the next sweep), on
// Slim Fly q = 3 and 5: a repair naming it, at the LID OpenSM kept for it,
// routed as an HCA that stays on its new switch, every entry toward the
// other LIDs as before, verified. Red with a host the base routing has
// elsewhere taken for one back where it was.
func TestPluginRoutesARecabledHost(t *testing.T) {
	cfg := settings(t, "vls = 4\n")
	for _, q := range []int{3, 5} {
		all, _ := slimFlySubnet(t, q, 2)
		hcas := all.IDsOf(fabric.HCA)
		a, b := hcas[0], hcas[len(hcas)-1] // on different switches
		first, err := Compute(jsonOf(t, without(t, all, b)), cfg, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		lessAB, err := all.Without([]fabric.NodeID{a, b}, nil)
		if err != nil {
			t.Fatal(err)
		}
		second, err := Compute(jsonOf(t, lessAB), cfg, 2, first)
		if err != nil || !strings.Contains(second.Summary(), "repaired the last routing") {
			t.Fatalf("q=%d, %s unplugged: %v %s", q, all.Name(a), err, second.Summary())
		}
		moved, err := failures.SwapHosts(all, a, b) // a on b's port, b on a's
		if err != nil {
			t.Fatal(err)
		}
		moved = without(t, moved, b)
		third, err := Compute(jsonOf(t, moved), cfg, 2, second)
		if err != nil || !strings.Contains(third.Summary(), "repaired the last routing") || !strings.Contains(third.Summary(), "HCAs new to the routing or recabled (1): "+all.Name(a)) {
			t.Fatalf("q=%d, %s plugged into another switch: %v %s", q, all.Name(a), err, third.Summary())
		}
		if rep, err := verify.Check(third.tables, 2); err != nil || !rep.Acyclic() {
			t.Fatalf("q=%d: the verifier: %v", q, err)
		}
		la, _ := first.tables.LIDs().Of(fabric.PortRef{Node: a, Port: 1})
		for _, id := range moved.IDsOf(fabric.Switch) {
			now, _ := third.LFT(moved.GUID(id))
			was, _ := first.LFT(moved.GUID(id))
			for lid, port := range was {
				l := lft.LID(lid)
				if _, _, routed := first.tables.LIDs().Owner(l); routed && (l < la.Base || l > la.Top()) && now[lid] != port {
					t.Fatalf("q=%d: %s: the entry toward LID 0x%x changed", q, moved.Name(id), lid)
				}
			}
		}
	}
}
