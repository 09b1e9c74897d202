package repair

import (
	"cmp"
	"fmt"
	"slices"

	"slimroute/fabric"
	"slimroute/lft"
)

// match relates the previous tables' fabric to the new one. Nodes are
// matched by node GUID (fabric.Without and a new discovery renumber
// NodeIDs) and ports by number. Switches are numbered densely in GUID
// order.
type match struct {
	prev     *lft.Tables
	pf, f    *fabric.Fabric
	switches []fabric.NodeID // new switch index -> new NodeID
	// base is Options.Base (nil without): the tables of a switch or port
	// that is back in come from it
	base *lft.Tables
	// src[s] is the tables switch s's state comes from: prev, or base for
	// a switch back in; prevSw[s] is the switch there
	src    []*lft.Tables
	prevSw []fabric.NodeID
	// baseSw[s] is switch s in base's fabric (with base)
	baseSw []fabric.NodeID
	index  []int32 // new NodeID -> switch index, -1 for an HCA
	// nbr[s][p] is the switch index at the other end of port p of switch
	// s in the new fabric, -1 for an HCA or no cable.
	nbr [][]int32
	// back[s][p] is the port the cable in port p of switch s arrives on,
	// -1 for no cable.
	back [][]int32
	// baseSame[s][p] says the cable in port p of switch s is the one
	// base's fabric has there (with base)
	baseSame [][]bool
	// added says the new fabric has a switch or cable the previous
	// tables' fabric lacks: something is back in
	added bool
	// same[s][p] says the cable in port p of switch s is the one the
	// previous tables' fabric had there (same peer GUID and port): a route
	// the previous tables sent over it still goes where it went.
	same [][]bool
}

func newMatch(prev, base *lft.Tables, f *fabric.Fabric) (*match, error) {
	m := &match{prev: prev, pf: prev.Fabric(), f: f, base: base, index: make([]int32, f.NumNodes())}
	for i := range m.index {
		m.index[i] = -1
	}
	// switches in GUID order, so that the repair (whose tie-breaks follow
	// this order) does not depend on how a reader numbered the nodes
	sws := f.IDsOf(fabric.Switch)
	slices.SortStableFunc(sws, func(a, b fabric.NodeID) int { return cmp.Compare(f.GUID(a), f.GUID(b)) })
	for _, sw := range sws {
		n := f.Node(sw)
		src, ps, ok := prev, fabric.NodeID(0), false
		if n.GUID != 0 {
			ps, ok = tableOf(prev, n)
			if !ok && base != nil {
				src = base
				ps, ok = tableOf(base, n)
			}
		}
		if !ok {
			return nil, fmt.Errorf("switch %s (%s) is new: the previous routing has no table for it%s", n.Name, n.GUID, map[bool]string{true: ", nor the base routing it started from", false: ""}[base != nil])
		}
		if base != nil {
			bs, ok := tableOf(base, n)
			if !ok {
				return nil, fmt.Errorf("switch %s (%s) is new: the base routing has no table for it", n.Name, n.GUID)
			}
			m.baseSw = append(m.baseSw, bs)
		}
		m.index[sw] = int32(len(m.switches))
		m.switches = append(m.switches, sw)
		m.src = append(m.src, src)
		m.prevSw = append(m.prevSw, ps)
	}
	m.nbr = make([][]int32, len(m.switches))
	m.same = make([][]bool, len(m.switches))
	m.back = make([][]int32, len(m.switches))
	m.baseSame = make([][]bool, len(m.switches))
	for s, sw := range m.switches {
		n := f.Ports(sw)
		m.nbr[s], m.same[s], m.back[s] = make([]int32, n+1), make([]bool, n+1), make([]int32, n+1)
		if base != nil {
			m.baseSame[s] = make([]bool, n+1)
		}
		m.nbr[s][0], m.back[s][0] = -1, -1
		for p := 1; p <= n; p++ {
			m.nbr[s][p], m.back[s][p] = -1, -1
			peer, ok := f.Peer(fabric.PortRef{Node: sw, Port: p})
			if !ok {
				continue
			}
			m.nbr[s][p], m.back[s][p] = m.index[peer.Node], int32(peer.Port)
			m.same[s][p] = m.samePeer(s, p, peer)
			if m.base != nil {
				m.baseSame[s][p] = m.samePeerIn(m.base, m.baseSw[s], p, peer)
				_, had := m.src[s].Fabric().Peer(fabric.PortRef{Node: m.prevSw[s], Port: p})
				m.added = m.added || !had || m.src[s] != m.prev
			}
		}
	}
	return m, nil
}

// tableOf finds switch n (of another fabric) in tables t by GUID.
func tableOf(t *lft.Tables, n fabric.Node) (fabric.NodeID, bool) {
	id, ok := t.Fabric().NodeByGUID(n.GUID)
	return id, ok && t.Fabric().Kind(id) == fabric.Switch && t.Fabric().Ports(id) == n.Ports
}

// samePeer says whether port p of switch s led to peer (a port of the new
// fabric) in the fabric of its tables. A port that had no cable there
// counts as the same when the tables were read onto the new fabric, and
// when something is back in (a repair with a base): no entry of the
// tables leads over it, and one that base gives back does.
func (m *match) samePeer(s, p int, peer fabric.PortRef) bool {
	if _, ok := m.src[s].Fabric().Peer(fabric.PortRef{Node: m.prevSw[s], Port: p}); !ok {
		return m.pf == m.f || m.base != nil
	}
	return m.samePeerIn(m.src[s], m.prevSw[s], p, peer)
}

// samePeerIn says whether port p of switch sw of tables t's fabric leads
// to peer (a port of the new fabric) there.
func (m *match) samePeerIn(t *lft.Tables, sw fabric.NodeID, p int, peer fabric.PortRef) bool {
	old, ok := t.Fabric().Peer(fabric.PortRef{Node: sw, Port: p})
	return ok && old.Port == peer.Port && t.Fabric().GUID(old.Node) == m.f.GUID(peer.Node)
}

// portIn returns the tables port p of the new fabric takes its path SLs
// from — prev, or base for a port prev's LID plan lacks (back in) — and
// the port there.
func (m *match) portIn(p fabric.PortRef) (*lft.Tables, fabric.PortRef, bool) {
	if pp, ok := m.portOf(m.prev, p); ok {
		if _, held := m.prev.LIDs().Of(pp); held || m.base == nil {
			return m.prev, pp, true
		}
	}
	if m.base != nil {
		if bp, ok := m.portOf(m.base, p); ok {
			return m.base, bp, true
		}
	}
	return m.prev, fabric.PortRef{}, false
}

// portOf returns the port of tables t's fabric that is port p of the new
// one.
func (m *match) portOf(t *lft.Tables, p fabric.PortRef) (fabric.PortRef, bool) {
	id, ok := t.Fabric().NodeByGUID(m.f.GUID(p.Node))
	return fabric.PortRef{Node: id, Port: p.Port}, ok
}

// lids carries the previous LID plan over: every port keeps its LIDs if
// it still holds LIDs in the new fabric (a switch that is still there, an
// HCA port still cabled); the LIDs of the others are gone. A port back in
// takes its LIDs from base. It fails when the new fabric has a
// LID-holding port neither plan has.
func (m *match) lids() (*lft.LIDs, int, error) {
	old := m.prev.LIDs()
	var kept []lft.PortLIDs
	held := map[fabric.GUID]bool{} // port GUIDs that keep their LIDs
	gone := 0
	carry := func(t *lft.Tables, pl lft.PortLIDs) bool {
		n := t.Fabric().Node(pl.Port.Node)
		id, ok := m.f.NodeByGUID(n.GUID)
		if ok && pl.Port.Port != 0 {
			_, ok = m.f.Peer(fabric.PortRef{Node: id, Port: pl.Port.Port})
		}
		if !ok || n.GUID == 0 || held[n.PortGUID(pl.Port.Port)] {
			return false
		}
		held[n.PortGUID(pl.Port.Port)] = true
		pl.Port.Node = id
		kept = append(kept, pl)
		return true
	}
	for _, pl := range old.Ports() {
		if !carry(m.prev, pl) {
			gone += 1 << pl.LMC
		}
	}
	if m.base != nil {
		for _, pl := range m.base.LIDs().Ports() {
			carry(m.base, pl)
		}
	}
	lids, err := lft.NewLIDs(old.LMC(), kept)
	if err != nil {
		return nil, 0, fmt.Errorf("the previous LID plan: %w", err)
	}
	for _, id := range m.f.IDsOf(fabric.HCA) {
		for p := 1; p <= m.f.Ports(id); p++ {
			hp := fabric.PortRef{Node: id, Port: p}
			if _, cabled := m.f.Peer(hp); cabled {
				if _, ok := lids.Of(hp); !ok {
					return nil, 0, fmt.Errorf("%s holds no LID in the previous routing: an HCA or cable was added", m.f.PortString(hp))
				}
			}
		}
	}
	return lids, gone, nil
}
