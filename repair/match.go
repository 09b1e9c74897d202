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
	prevSw   []fabric.NodeID // new switch index -> previous NodeID
	index    []int32         // new NodeID -> switch index, -1 for an HCA
	// nbr[s][p] is the switch index at the other end of port p of switch
	// s in the new fabric, -1 for an HCA or no cable.
	nbr [][]int32
	// back[s][p] is the port the cable in port p of switch s arrives on,
	// -1 for no cable.
	back [][]int32
	// same[s][p] says the cable in port p of switch s is the one the
	// previous tables' fabric had there (same peer GUID and port): a route
	// the previous tables sent over it still goes where it went.
	same [][]bool
}

func newMatch(prev *lft.Tables, f *fabric.Fabric) (*match, error) {
	m := &match{prev: prev, pf: prev.Fabric(), f: f, index: make([]int32, f.NumNodes())}
	for i := range m.index {
		m.index[i] = -1
	}
	// switches in GUID order, so that the repair (whose tie-breaks follow
	// this order) does not depend on how a reader numbered the nodes
	sws := f.IDsOf(fabric.Switch)
	slices.SortStableFunc(sws, func(a, b fabric.NodeID) int { return cmp.Compare(f.GUID(a), f.GUID(b)) })
	for _, sw := range sws {
		n := f.Node(sw)
		ps, ok := m.pf.NodeByGUID(n.GUID)
		if n.GUID == 0 || !ok || m.pf.Kind(ps) != fabric.Switch || m.pf.Ports(ps) != n.Ports {
			return nil, fmt.Errorf("switch %s (%s) has no table in the previous routing: a switch was added or replaced", n.Name, n.GUID)
		}
		m.index[sw] = int32(len(m.switches))
		m.switches = append(m.switches, sw)
		m.prevSw = append(m.prevSw, ps)
	}
	m.nbr = make([][]int32, len(m.switches))
	m.same = make([][]bool, len(m.switches))
	m.back = make([][]int32, len(m.switches))
	for s, sw := range m.switches {
		n := f.Ports(sw)
		m.nbr[s], m.same[s], m.back[s] = make([]int32, n+1), make([]bool, n+1), make([]int32, n+1)
		m.nbr[s][0], m.back[s][0] = -1, -1
		for p := 1; p <= n; p++ {
			m.nbr[s][p], m.back[s][p] = -1, -1
			peer, ok := f.Peer(fabric.PortRef{Node: sw, Port: p})
			if !ok {
				continue
			}
			m.nbr[s][p], m.back[s][p] = m.index[peer.Node], int32(peer.Port)
			m.same[s][p] = m.samePeer(m.prevSw[s], p, peer)
		}
	}
	return m, nil
}

// samePeer says whether port p of previous switch ps led to peer (a port
// of the new fabric) in the previous fabric. A port the previous fabric
// has no cable in (the tables were read onto the new fabric, say) counts
// as the same.
func (m *match) samePeer(ps fabric.NodeID, p int, peer fabric.PortRef) bool {
	old, ok := m.pf.Peer(fabric.PortRef{Node: ps, Port: p})
	if !ok {
		return m.pf == m.f
	}
	return old.Port == peer.Port && m.pf.GUID(old.Node) == m.f.GUID(peer.Node)
}

// prevPort returns the port of the previous fabric that is port p of the
// new one.
func (m *match) prevPort(p fabric.PortRef) (fabric.PortRef, bool) {
	id, ok := m.pf.NodeByGUID(m.f.GUID(p.Node))
	return fabric.PortRef{Node: id, Port: p.Port}, ok
}

// lids carries the previous LID plan over: every port keeps its LIDs if
// it still holds LIDs in the new fabric (a switch that is still there, an
// HCA port still cabled); the LIDs of the others are gone. It fails when
// the new fabric has a LID-holding port the previous plan lacks.
func (m *match) lids() (*lft.LIDs, int, error) {
	old := m.prev.LIDs()
	var kept []lft.PortLIDs
	gone := 0
	for _, pl := range old.Ports() {
		n := m.pf.Node(pl.Port.Node)
		id, ok := m.f.NodeByGUID(n.GUID)
		if ok && pl.Port.Port != 0 {
			_, ok = m.f.Peer(fabric.PortRef{Node: id, Port: pl.Port.Port})
		}
		if !ok || n.GUID == 0 {
			gone += 1 << pl.LMC
			continue
		}
		pl.Port.Node = id
		kept = append(kept, pl)
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
