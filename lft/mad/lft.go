package mad

import (
	"fmt"
	"io"
	"sort"

	"slimroute/fabric"
	"slimroute/lft"
)

// DirectedRoutes returns, for every switch, the egress ports a
// directed-route SMP takes from node sm to reach it (shortest, lowest ports
// first); the SM's own switch has an empty route.
func DirectedRoutes(f *fabric.Fabric, sm fabric.NodeID) (map[fabric.NodeID][]uint8, error) {
	routes := map[fabric.NodeID][]uint8{sm: {}}
	queue := []fabric.NodeID{sm}
	for h := 0; h < len(queue); h++ {
		x := queue[h]
		n := f.Node(x)
		if x != sm && n.Kind != fabric.Switch {
			continue // SMPs pass through switches only
		}
		for p := 1; p <= n.Ports; p++ {
			peer, ok := f.Peer(fabric.PortRef{Node: x, Port: p})
			if !ok {
				continue
			}
			if _, seen := routes[peer.Node]; seen {
				continue
			}
			r := append(append([]uint8(nil), routes[x]...), uint8(p))
			if len(r) > 63 {
				return nil, fmt.Errorf("%s is more than 63 hops from the SM; directed routes cannot reach it", f.Node(peer.Node).Name)
			}
			routes[peer.Node] = r
			queue = append(queue, peer.Node)
		}
	}
	for _, id := range f.IDsOf(fabric.Switch) {
		if _, ok := routes[id]; !ok {
			return nil, fmt.Errorf("switch %s cannot be reached from the SM at %s", f.Node(id).Name, f.Node(sm).Name)
		}
	}
	return routes, nil
}

// WriteLFTs writes, as a pcap file, the directed-route
// SubnSet(LinearForwardingTable) SMPs that program the tables t into the
// fabric from the SM at node sm: one per switch and 64-LID block up to the
// highest LID, switches in GUID order. It returns the number of packets.
func WriteLFTs(w io.Writer, t *lft.Tables, sm fabric.NodeID) (int, error) {
	f := t.Fabric()
	routes, err := DirectedRoutes(f, sm)
	if err != nil {
		return 0, err
	}
	pw, err := NewWriter(w)
	if err != nil {
		return 0, err
	}
	switches := f.IDsOf(fabric.Switch)
	sort.Slice(switches, func(i, j int) bool { return f.Node(switches[i]).GUID < f.Node(switches[j]).GUID })
	var tid uint64
	for _, sw := range switches {
		tab := t.LFT(sw)
		path := routes[sw]
		for block := 0; block*64 < len(tab); block++ {
			tid++
			smp := &SMP{BaseVersion: 1, MgmtClass: MgmtClassDirected, ClassVersion: 1, Method: MethodSet,
				HopCount: uint8(len(path)), TID: tid, AttrID: AttrLinearFwdTable, AttrMod: uint32(block),
				DrSLID: PermissiveLID, DrDLID: PermissiveLID}
			for i := range smp.Data {
				smp.Data[i] = lft.Drop
				if lid := block*64 + i; lid < len(tab) {
					smp.Data[i] = tab[lid]
				}
			}
			copy(smp.InitialPath[1:], path)
			pkt, err := Encode(
				&LRH{VL: 15, LNH: LNHIBALocal, DLID: PermissiveLID, SLID: PermissiveLID},
				&BTH{OpCode: OpUDSendOnly, PKey: 0xFFFF, DestQP: 0, PSN: uint32(tid)},
				&DETH{QKey: 0, SrcQP: 0}, smp)
			if err != nil {
				return 0, err
			}
			if err := pw.Write(pkt); err != nil {
				return 0, err
			}
		}
	}
	return int(tid), nil
}

// ReadLFTs reads a pcap file of directed-route LinearForwardingTable SMPs
// sent from the SM at node sm, follows each packet's initial path through
// f to the switch it programs, and returns the tables they set under the
// LID plan lids (the one the SM used); path SLs and SL2VL tables are 0.
func ReadLFTs(r io.Reader, file string, f *fabric.Fabric, sm fabric.NodeID, lids *lft.LIDs) (*lft.Tables, error) {
	pkts, err := ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	b := lft.NewBuilder(f, lids)
	type block struct {
		sw     fabric.NodeID
		number uint32
	}
	seen := map[block]int{} // the packet that set each block
	for i, pkt := range pkts {
		_, _, _, smp, err := Decode(pkt)
		if err != nil {
			return nil, fmt.Errorf("%s: packet %d: %w", file, i+1, err)
		}
		if smp.AttrID != AttrLinearFwdTable || smp.Method != MethodSet {
			continue
		}
		at := sm
		for h := 1; h <= int(smp.HopCount); h++ {
			peer, ok := f.Peer(fabric.PortRef{Node: at, Port: int(smp.InitialPath[h])})
			if !ok {
				return nil, fmt.Errorf("%s: packet %d: hop %d leaves %s on port %d, which has no cable", file, i+1, h, f.Node(at).Name, smp.InitialPath[h])
			}
			at = peer.Node
		}
		n := f.Node(at)
		if n.Kind != fabric.Switch {
			return nil, fmt.Errorf("%s: packet %d: its directed route ends at %s, not a switch", file, i+1, n.Name)
		}
		if first, again := seen[block{at, smp.AttrMod}]; again {
			_, _, _, prev, _ := Decode(pkts[first])
			if prev.Data != smp.Data {
				return nil, fmt.Errorf("%s: packets %d and %d both program block %d of %s, differently: the directed routes were followed from the wrong node; give the node the SM ran on (--sm)", file, first+1, i+1, smp.AttrMod, n.Name)
			}
		}
		seen[block{at, smp.AttrMod}] = i
		tab := b.LFT(at)
		for j, port := range smp.Data {
			lid := int(smp.AttrMod)*64 + j
			if port == lft.Drop || lid > int(lft.MaxUnicastLID) {
				continue
			}
			if lid >= len(tab) {
				return nil, fmt.Errorf("%s: packet %d: %s gets an entry for LID 0x%04x, beyond the LID plan's top 0x%04x: were the packets made with another LMC?", file, i+1, n.Name, lid, len(tab)-1)
			}
			if int(port) > n.Ports {
				return nil, fmt.Errorf("%s: packet %d: %s gets port %d for LID 0x%04x; it has ports 1..%d", file, i+1, n.Name, port, lid, n.Ports)
			}
			tab[lid] = port
		}
	}
	t := b.Tables()
	if err := everyLIDRouted(t, f); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return t, nil
}

// everyLIDRouted checks that some switch has an entry for every LID of the
// plan: an SM programs every LID it assigned, so a LID nobody routes is
// one the packets' own LID plan did not have.
func everyLIDRouted(t *lft.Tables, f *fabric.Fabric) error {
	switches := f.IDsOf(fabric.Switch)
	for _, pl := range t.LIDs().Ports() {
		for lid := pl.Base; lid <= pl.Top(); lid++ {
			routed := false
			for _, sw := range switches {
				if t.Port(sw, lid) != lft.Drop {
					routed = true
					break
				}
			}
			if !routed {
				return fmt.Errorf("no packet gives any switch an entry for LID 0x%04x (%s's): the packets were made with another LID plan — give their --lmc (smaller than this one?), --lft-cap or --lids-from-fabric — or the capture is incomplete", lid, f.PortString(pl.Port))
			}
		}
	}
	return nil
}
