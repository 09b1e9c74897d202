package lft

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"slimroute/fabric"
)

// newHost is an HCA port WithHosts adds: its LIDs, its sibling's, and the
// switch port it hangs off (in t's fabric).
type newHost struct {
	port, sibling PortLIDs
	sw            fabric.NodeID
	at            int
}

// WithHosts returns t extended to the HCAs that fabric f cables to switch
// ports t's fabric leaves empty, or cables to an HCA f lacks or recables:
// HCAs t's fabric lacks altogether (a host powered on since t was made,
// or an HCA replaced: the one it replaces loses its cable and LIDs) and
// HCAs f cables to other switch ports than t's fabric does (recabled);
// and their names. Each such HCA port holds the LIDs lids gives it in f
// and is routed as its sibling, the HCA port of the same switch with the
// lowest port GUID that t routes and f cables as t's fabric does: every
// switch forwards its LIDs as the sibling's (the switch it hangs off to
// it), every source sends to it on the SLs it sends to the sibling on, it
// sends on the sibling's path SLs and SL-to-VL table, and its switch maps
// the SLs arriving from it or leaving to it as the sibling's. Its paths
// are the sibling's with the host's own cable in place of the sibling's,
// a cable no other path continues from or crosses, so the tables gain no
// loop and no credit loop, and every other entry stays as it was. HCAs
// uncabled in either, or on a switch t's fabric lacks, are left out
// (they are not t's to extend). It returns t itself when f adds or
// recables no HCA, and an error naming the HCA when one hangs off a port
// an HCA that stays holds in t's fabric, off a switch t routes no such
// HCA on, or holds no LIDs in lids or at another LMC than that HCA's.
func WithHosts(t *Tables, f *fabric.Fabric, lids *LIDs) (*Tables, []string, error) {
	rw := &rewiring{t: t, f: f, lids: lids, nodes: t.f.Nodes(), links: t.f.Links(), replaced: map[int]bool{}}
	for _, id := range f.IDsOf(fabric.HCA) {
		if err := rw.host(id); err != nil {
			return nil, nil, err
		}
	}
	if len(rw.hosts) == 0 {
		return t, nil, nil
	}
	var kept []fabric.Link
	for i, l := range rw.links {
		if i >= t.f.NumLinks() || !rw.replaced[i] {
			kept = append(kept, l)
		}
	}
	g, err := fabric.New(rw.nodes, kept)
	if err != nil {
		return nil, nil, err
	}
	added := make(map[fabric.PortRef]newHost, len(rw.wires))
	for _, w := range rw.wires {
		h, err := t.newHost(f, lids, w.port, w.sw, w.at)
		if err != nil {
			return nil, nil, err
		}
		gp, _ := g.Peer(fabric.PortRef{Node: w.sw, Port: w.at})
		added[gp] = h
	}
	plan, err := extendedLIDs(t, g, added)
	if err != nil {
		return nil, nil, err
	}
	hs := slices.SortedFunc(maps.Values(added), func(a, b newHost) int { return cmp.Compare(a.port.Base, b.port.Base) })
	b := NewBuilder(g, plan)
	t.extendLFTs(b, hs, rw.gone)
	if err := t.extendSLs(b, plan, added); err != nil {
		return nil, nil, err
	}
	if err := t.extendSL2VL(b, plan, added, hs); err != nil {
		return nil, nil, err
	}
	return b.Tables(), byGUID(rw.hosts, rw.guids), nil
}

// rewiring is WithHosts' fabric in the making: t's nodes and cables with
// the new and recabled HCAs' in place of those they replace.
type rewiring struct {
	t        *Tables
	f        *fabric.Fabric
	lids     *LIDs
	nodes    []fabric.Node
	links    []fabric.Link
	replaced map[int]bool // t's cables that go: of HCAs gone or recabled
	wires    []wire
	gone     []PortLIDs // LIDs no port holds any more
	hosts    []string
	guids    []fabric.GUID // of hosts, for their order
}

// wire is a cable of a new or recabled HCA: its port in f, to port at of
// switch sw of t's fabric.
type wire struct {
	port fabric.PortRef
	sw   fabric.NodeID
	at   int
}

// host takes HCA id of f into the rewiring if it is new or recabled.
func (rw *rewiring) host(id fabric.NodeID) error {
	f, pf := rw.f, rw.t.f
	n := f.Node(id)
	pid, known := pf.NodeByGUID(n.GUID)
	if !cabled(f, id) || known && (pf.CabledAlike(pid, f) || !cabled(pf, pid)) || !onKnownSwitches(f, id, pf) {
		return nil // uncabled; as it was, or uncabled in t (the repair's); or on a new switch, not t's to extend (a repair names it)
	}
	nid := fabric.NodeID(len(rw.nodes))
	if known { // recabled: its cables in t go
		nid = pid
		for p := 1; p <= pf.Ports(pid); p++ {
			if li, ok := pf.LinkAt(fabric.PortRef{Node: pid, Port: p}); ok {
				rw.replaced[li] = true
			}
		}
	} else {
		rw.nodes = append(rw.nodes, n)
	}
	for p := 1; p <= n.Ports; p++ {
		peer, ok := f.Peer(fabric.PortRef{Node: id, Port: p})
		if !ok {
			continue
		}
		sw, _ := pf.NodeByGUID(f.GUID(peer.Node))
		if err := rw.free(fabric.PortRef{Node: id, Port: p}, fabric.PortRef{Node: sw, Port: peer.Port}, nid, known); err != nil {
			return err
		}
		rw.links = append(rw.links, fabric.Link{A: fabric.PortRef{Node: nid, Port: p}, B: fabric.PortRef{Node: sw, Port: peer.Port}})
		rw.wires = append(rw.wires, wire{fabric.PortRef{Node: id, Port: p}, sw, peer.Port})
		if pl, ok := rw.t.lids.Of(fabric.PortRef{Node: nid, Port: p}); known && ok {
			if now, _ := rw.lids.Of(fabric.PortRef{Node: id, Port: p}); now.Base != pl.Base {
				rw.gone = append(rw.gone, pl) // recabled under other LIDs
			}
		}
	}
	rw.hosts, rw.guids = append(rw.hosts, n.Name), append(rw.guids, n.GUID)
	return nil
}

// free makes switch port at (of t's fabric) free for port p of f's HCA,
// node nid of t's fabric (known: it is there already): a port an HCA
// held that f lacks (replaced: its LIDs go) or recables gives up its
// cable; one cabled to anything else is an error.
func (rw *rewiring) free(p, at fabric.PortRef, nid fabric.NodeID, known bool) error {
	f, pf := rw.f, rw.t.f
	old, used := pf.Peer(at)
	if !used || known && old.Node == nid {
		return nil
	}
	_, still := f.NodeByGUID(pf.GUID(old.Node))
	if pf.Kind(old.Node) != fabric.HCA || still && pf.CabledAlike(old.Node, f) {
		return fmt.Errorf("%s is new or recabled and hangs off %s, a port cabled otherwise in the previous routing", f.PortString(p), pf.PortString(at))
	}
	li, _ := pf.LinkAt(old) // an HCA gone (replaced) or recabled too
	rw.replaced[li] = true
	if pl, ok := rw.t.lids.Of(old); ok && !still {
		rw.gone = append(rw.gone, pl)
	}
	return nil
}

// cabled says whether node id of f has a cable.
func cabled(f *fabric.Fabric, id fabric.NodeID) bool {
	for p := 1; p <= f.Ports(id); p++ {
		if _, ok := f.Peer(fabric.PortRef{Node: id, Port: p}); ok {
			return true
		}
	}
	return false
}

// onKnownSwitches says whether every cable of HCA id of f leads to a
// switch of pf (by GUID) with the port it arrives on.
func onKnownSwitches(f *fabric.Fabric, id fabric.NodeID, pf *fabric.Fabric) bool {
	for p := 1; p <= f.Ports(id); p++ {
		peer, ok := f.Peer(fabric.PortRef{Node: id, Port: p})
		if !ok {
			continue
		}
		sw, known := pf.NodeByGUID(f.GUID(peer.Node))
		if !known || pf.Kind(sw) != fabric.Switch || pf.Ports(sw) < peer.Port {
			return false
		}
	}
	return true
}

// newHost describes HCA port p of f, new, cabled to port at of switch sw
// of t's fabric, with its LIDs from lids and its sibling.
func (t *Tables) newHost(f *fabric.Fabric, lids *LIDs, p fabric.PortRef, sw fabric.NodeID, at int) (newHost, error) {
	pf := t.Fabric()
	var sib PortLIDs
	found := false
	for q := 1; q <= pf.Ports(sw); q++ {
		peer, ok := pf.Peer(fabric.PortRef{Node: sw, Port: q})
		if !ok || pf.Kind(peer.Node) != fabric.HCA {
			continue
		}
		if !pf.CabledAlike(peer.Node, f) {
			continue // gone, replaced by p or recabled
		}
		if s, ok := t.lids.Of(peer); ok && (!found || pf.PortGUID(peer) < pf.PortGUID(sib.Port)) {
			sib, found = s, true
		}
	}
	if !found {
		return newHost{}, fmt.Errorf("%s is new or recabled and hangs off %s, where no HCA the previous routing routes stays to route it as", f.PortString(p), pf.Name(sw))
	}
	pl, ok := lids.Of(p)
	if !ok || pl.LMC != sib.LMC {
		return newHost{}, fmt.Errorf("%s is new and holds no LIDs at LMC %d, its switch's HCAs' LMC", f.PortString(p), sib.LMC)
	}
	return newHost{port: pl, sibling: sib, sw: sw, at: at}, nil
}

// extendedLIDs is t's LID plan with the new HCA ports of g (added, by
// their port in g) holding their LIDs, in AssignLIDs' order.
func extendedLIDs(t *Tables, g *fabric.Fabric, added map[fabric.PortRef]newHost) (*LIDs, error) {
	switches, hcas := lidPorts(g)
	var ports []PortLIDs
	for _, p := range append(switches, hcas...) {
		if h, ok := added[p]; ok {
			ports = append(ports, PortLIDs{Port: p, Base: h.port.Base, LMC: h.port.LMC})
			continue
		}
		pl, ok := t.lids.Of(p)
		if !ok {
			continue // cabled, but without LIDs in t (as t has it)
		}
		ports = append(ports, pl)
	}
	plan, err := NewLIDs(t.lids.lmc, ports)
	if err != nil {
		return nil, fmt.Errorf("the new hosts' LIDs beside the previous routing's: %w", err)
	}
	return plan, nil
}

// extendLFTs copies every switch's table of t into b, with the new hosts'
// LIDs forwarded as their siblings' (to the host at its own switch) and
// the LIDs of the HCA ports they replace dropped.
func (t *Tables) extendLFTs(b *Builder, hs []newHost, gone []PortLIDs) {
	for _, sw := range t.switches {
		row := b.LFT(sw)
		t.CopyLFT(row, sw)
		for _, pl := range gone {
			for l := pl.Base; l <= pl.Top() && int(l) < len(row); l++ {
				row[l] = Drop
			}
		}
		for _, h := range hs {
			for k := LID(0); k < LID(1)<<h.port.LMC; k++ {
				row[h.port.Base+k] = row[h.sibling.Base+k]
				if sw == h.sw {
					row[h.port.Base+k] = uint8(h.at)
				}
			}
		}
	}
}

// extendSLs gives every LID-holding port of plan t's path SLs (a new host
// its sibling's), toward a new host's LIDs the SLs toward its sibling's.
func (t *Tables) extendSLs(b *Builder, plan *LIDs, added map[fabric.PortRef]newHost) error {
	rows := map[int]int{} // t's class -> row in b
	for _, pl := range plan.ports {
		src := pl.Port
		if h, ok := added[src]; ok {
			src = h.sibling.Port
		}
		class := t.SLClass(src)
		if class < 0 {
			continue // SL 0 toward every LID, as in t
		}
		n, ok := rows[class]
		if !ok {
			var sl []uint8
			n, sl = b.AddSLRow()
			t.CopyClassSLs(sl, class)
			for _, h := range added {
				for k := LID(0); k < LID(1)<<h.port.LMC; k++ {
					sl[h.port.Base+k] = sl[h.sibling.Base+k]
				}
			}
			rows[class] = n
		}
		if err := b.SetSLRow(pl.Port, n); err != nil {
			return err
		}
	}
	return nil
}

// extendSL2VL gives every switch t's SL-to-VL tables, a new host's port
// (in and out) its sibling's entries, and every HCA port its table (a new
// host its sibling's).
func (t *Tables) extendSL2VL(b *Builder, plan *LIDs, added map[fabric.PortRef]newHost, hs []newHost) error {
	pf := t.Fabric()
	for _, sw := range t.switches {
		sib := map[int]int{} // a new host's port on sw -> its sibling's
		for _, h := range hs {
			if h.sw == sw {
				peer, _ := pf.Peer(h.sibling.Port)
				sib[h.at] = peer.Port
			}
		}
		for in := 0; in <= pf.Ports(sw); in++ {
			from := in
			if s, ok := sib[in]; ok {
				from = s
			}
			tab := t.SL2VLTable(sw, from)
			for at, s := range sib {
				copy(tab[at*16:(at+1)*16], tab[s*16:(s+1)*16])
			}
			if err := b.SetSL2VL(sw, in, tab); err != nil {
				return err
			}
		}
	}
	for _, pl := range plan.ports {
		if pl.Port.Port == 0 {
			continue
		}
		src := pl.Port
		if h, ok := added[src]; ok {
			src = h.sibling.Port
		}
		if err := b.SetCASL2VL(pl.Port, t.CASL2VL(src)); err != nil {
			return err
		}
	}
	return nil
}

// byGUID returns names in the order of their nodes' GUIDs, whatever the
// order the fabric lists them in.
func byGUID(names []string, guids []fabric.GUID) []string {
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(guids[a], guids[b]) })
	out := make([]string, len(names))
	for i, j := range idx {
		out[i] = names[j]
	}
	return out
}
