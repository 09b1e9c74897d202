package verify_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"slimroute/clos"
	"slimroute/deadlock"
	"slimroute/fabric"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/slimfly"
	"slimroute/verify"
)

// generatedTables routes and programs fabric number i of a small set —
// Slim Flies, two- and three-level Clos fabrics, 1 or 4 layers, both VL
// schemes — for the corruption tests below.
func generatedTables(t *testing.T, i int) *lft.Tables {
	t.Helper()
	var f *fabric.Fabric
	var err error
	switch i % 4 {
	case 0:
		f, err = slimfly.Build(slimfly.Params{Q: 4})
	case 1:
		f, err = slimfly.Build(slimfly.Params{Q: 5})
	case 2:
		f, err = clos.Build(clos.Params{Radix: 8})
	default:
		f, err = clos.Build(clos.Params{Levels: 3, Radix: 8})
	}
	if err != nil {
		t.Fatal(err)
	}
	L := []int{1, 4}[i/4%2]
	r, err := layers.Compute(f, layers.Options{Layers: L, Seed: uint64(i)})
	if err != nil {
		t.Fatal(err)
	}
	scheme := deadlock.AssignHops
	if i/8%2 == 1 {
		scheme = deadlock.AssignDFSSSP
	}
	a, err := scheme(r, deadlock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lmc := layers.LMC(L)
	lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: lmc})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := lft.Build(f, lids, r, a, lmc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.Check(tab, 2); err != nil {
		t.Fatalf("fabric %d: the real tables: %v", i, err)
	}
	return tab
}

// TestEveryBrokenSwitchEntryIsCaught draws a switch and a LID it does not
// own, takes the switch's entry for it out of the LFT dump or points it at
// port 0, and expects the verifier to name the switch and the LID: every
// switch must reach every LID — its own traffic is routed by its table,
// and OpenSM gives it an entry for every LID — whether or not an HCA's
// path crosses it.
func TestEveryBrokenSwitchEntryIsCaught(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 0))
	draws := 0
	for i := 0; i < 16; i++ {
		tab := generatedTables(t, i)
		f := tab.Fabric()
		for range 12 {
			sw := tab.SortedSwitches()[rng.IntN(len(tab.Switches()))]
			ports := tab.LIDs().Ports()
			pl := ports[rng.IntN(len(ports))]
			if pl.Port.Node == sw {
				continue // its own LID
			}
			lid := pl.Base + lft.LID(rng.IntN(int(pl.Top()-pl.Base)+1))
			drop := rng.IntN(2) == 0
			broken := edited(t, tab, func(lfts, _, _ *string) { breakEntry(t, lfts, f.Node(sw).GUID, lid, drop) })
			draws++
			_, err := verify.Check(broken, 2)
			name, hex := f.Node(sw).Name, fmt.Sprintf("LID 0x%04x", lid)
			if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), hex) {
				t.Fatalf("fabric %d, %s's entry for %s (drop %v): %v", i, name, hex, drop, err)
			}
		}
	}
	if draws < 100 {
		t.Fatalf("only %d draws", draws)
	}
}

// breakEntry removes switch guid's line for lid from an LFT dump, or sets
// its port to 0.
func breakEntry(t *testing.T, lfts *string, guid fabric.GUID, lid lft.LID, drop bool) {
	t.Helper()
	header := fmt.Sprintf("guid %s (", guid)
	i := strings.Index(*lfts, header)
	j := i + strings.Index((*lfts)[i:], fmt.Sprintf("\n0x%04x ", lid))
	if i < 0 || j < i {
		t.Fatalf("no line for LID 0x%04x of %s", lid, guid)
	}
	k := j + 1 + strings.Index((*lfts)[j+1:], "\n")
	if drop {
		*lfts = (*lfts)[:j] + (*lfts)[k:]
		return
	}
	*lfts = (*lfts)[:j] + fmt.Sprintf("\n0x%04x 000", lid) + (*lfts)[j+11:]
}

// TestDataOnVL15IsCaught draws an HCA port and a LID, follows the path
// between them through the tables (with its own walk), and maps the
// path's SL onto VL 15 at one of its hops — the last, into the HCA, too.
// VL 15 is the management VL: a switch drops data sent on it, so the
// verifier must reject the tables and name the switch.
func TestDataOnVL15IsCaught(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 0))
	draws := 0
	for i := 0; i < 16; i++ {
		tab := generatedTables(t, i)
		f := tab.Fabric()
		ports := tab.LIDs().Ports()
		for range 10 {
			src, dst := ports[rng.IntN(len(ports))], ports[rng.IntN(len(ports))]
			if src.Port.Port == 0 || src.Port == dst.Port {
				continue
			}
			lid := dst.Base + lft.LID(rng.IntN(int(dst.Top()-dst.Base)+1))
			hops := pathHops(t, tab, src.Port, lid)
			if len(hops) == 0 {
				continue
			}
			h := hops[rng.IntN(len(hops))]
			draws++
			sl := tab.PathSL(src.Port, lid)
			broken := edited(t, tab, func(_, _, sl2vl *string) { mapToVL15(t, sl2vl, f.Node(h.sw).GUID, h.in, h.out, sl) })
			_, err := verify.Check(broken, 2)
			name := f.Node(h.sw).Name
			if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "VL 15") {
				t.Fatalf("fabric %d: %s SL %d from port %d to %d on VL 15 (path %s to LID 0x%04x): %v",
					i, name, sl, h.in, h.out, f.PortString(src.Port), lid, err)
			}
		}
	}
	if draws < 100 {
		t.Fatalf("only %d draws", draws)
	}
}

type hop struct {
	sw      fabric.NodeID
	in, out int
}

// pathHops follows lid from HCA port src through the tables' LFTs and
// returns the switch hops, the last one into the LID's owner.
func pathHops(t *testing.T, tab *lft.Tables, src fabric.PortRef, lid lft.LID) []hop {
	t.Helper()
	f := tab.Fabric()
	at, _ := f.Peer(src)
	var hops []hop
	for n := 0; n <= f.NumNodes(); n++ {
		out := int(tab.Port(at.Node, lid))
		if owner, _, _ := tab.LIDs().Owner(lid); out == 0 && owner.Port == (fabric.PortRef{Node: at.Node}) {
			return hops // a switch's own LID: no hop out of it
		}
		next, ok := f.Peer(fabric.PortRef{Node: at.Node, Port: out})
		if out == 0 || !ok {
			t.Fatalf("the path from %s to LID 0x%04x ends at %s port %d", f.PortString(src), lid, f.Name(at.Node), out)
		}
		hops = append(hops, hop{at.Node, at.Port, out})
		if f.Kind(next.Node) == fabric.HCA {
			return hops
		}
		at = next
	}
	t.Fatalf("the path from %s to LID 0x%04x loops", f.PortString(src), lid)
	return nil
}

// mapToVL15 sets the VL of sl to 15 in the SL2VL line of switch guid for
// in-port in and out-port out (ibdmchk's -d layout: eight bytes, SL 2i in
// the high nibble of byte i).
func mapToVL15(t *testing.T, sl2vl *string, guid fabric.GUID, in, out int, sl uint8) {
	t.Helper()
	line := regexp.MustCompile(fmt.Sprintf(`(?m)^%s %d %d (.*)$`, guid, in, out))
	m := line.FindStringSubmatchIndex(*sl2vl)
	if m == nil {
		t.Fatalf("no SL2VL line %s %d %d", guid, in, out)
	}
	bytes := strings.Fields((*sl2vl)[m[2]:m[3]])
	b, err := strconv.ParseUint(bytes[sl/2], 0, 8)
	if err != nil {
		t.Fatal(err)
	}
	if sl%2 == 0 {
		b = b&0x0f | 0xf0
	} else {
		b |= 0x0f
	}
	bytes[sl/2] = fmt.Sprintf("0x%02X", b)
	*sl2vl = (*sl2vl)[:m[2]] + strings.Join(bytes, " ") + (*sl2vl)[m[3]:]
}
