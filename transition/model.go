package transition

import (
	"slimroute/fabric"
	"slimroute/lft"
)

// The states of a switch-over: index 0 is the old tables, 1 the new.
const (
	oldState = 0
	newState = 1
)

// dropVL is the VL an SL-to-VL table names for "drop the packet".
const dropVL = 15

// model holds the two states as arrays indexed by switch index, port and
// LID, so that the walk does no map look-ups and no copies.
type model struct {
	f     *fabric.Fabric
	lids  *lft.LIDs
	top   int             // highest LID
	sw    []fabric.NodeID // switch index → node
	index []int32         // node → switch index, -1 for an HCA
	width int             // the most ports of a switch, plus port 0
	ends  [][]end         // per switch, per port 0..Ports: its cable
	lft   [2][][]uint8    // [state][switch][LID]: egress port
	vl    [2][][]uint8    // [state][switch][(in*(Ports+1)+out)*16+sl]
	link  []int32         // [switch*width+port]: directed link, or -1
	links []linkEnd       // directed link → its switch and port
	owner []fabric.PortRef
	owned []bool // per LID: some port holds it
	srcs  []source
	sl    [2][][]uint8 // [state][path-SL class][DLID]
	nvl   int          // data VLs in use: 0..nvl-1
}

// end is what a switch port's cable leads to: peer, and the peer's switch
// index (-1 for an HCA port); cabled is false for a port without a cable.
type end struct {
	peer   fabric.PortRef
	sw     int32
	cabled bool
}

// linkEnd is the sending end of a switch-to-switch cable.
type linkEnd struct {
	sw   int32
	port uint8
}

// source is a LID-holding HCA port cabled to a switch: packets start there.
type source struct {
	port  fabric.PortRef
	sw    int32 // the switch it is cabled to
	in    uint8 // the switch's port
	class [2]int
	ca    [2][16]uint8 // its own SL-to-VL table, old and new
}

// newModel copies old and new into a model; they must be comparable.
func newModel(old, new *lft.Tables) *model {
	m := &model{f: old.Fabric(), lids: old.LIDs(), top: int(old.LIDs().Top())}
	m.index = make([]int32, m.f.NumNodes())
	for i := range m.index {
		m.index[i] = -1
	}
	for _, id := range old.Switches() {
		m.index[id] = int32(len(m.sw))
		m.sw = append(m.sw, id)
		m.width = max(m.width, m.f.Ports(id)+1)
	}
	m.cables()
	for st, t := range [2]*lft.Tables{old, new} {
		m.copyTables(st, t)
	}
	m.owners()
	m.sources(old, new)
	return m
}

// cables fills ends, link and links.
func (m *model) cables() {
	m.ends = make([][]end, len(m.sw))
	m.link = make([]int32, len(m.sw)*m.width)
	for s, id := range m.sw {
		m.ends[s] = make([]end, m.f.Ports(id)+1)
		for p := range m.width {
			m.link[s*m.width+p] = -1
		}
		for p := 1; p <= m.f.Ports(id); p++ {
			peer, ok := m.f.Peer(fabric.PortRef{Node: id, Port: p})
			e := end{peer: peer, sw: -1, cabled: ok}
			if ok {
				e.sw = m.index[peer.Node]
			}
			m.ends[s][p] = e
			if e.sw >= 0 {
				m.link[s*m.width+p] = int32(len(m.links))
				m.links = append(m.links, linkEnd{sw: int32(s), port: uint8(p)})
			}
		}
	}
}

// copyTables copies state st's LFTs and switch SL-to-VL tables and notes
// the highest data VL they name.
func (m *model) copyTables(st int, t *lft.Tables) {
	m.lft[st] = make([][]uint8, len(m.sw))
	m.vl[st] = make([][]uint8, len(m.sw))
	for s, id := range m.sw {
		row := make([]uint8, m.top+1)
		for i := range row {
			row[i] = lft.Drop
		}
		t.CopyLFT(row, id)
		m.lft[st][s] = row
		n := m.f.Ports(id) + 1
		vl := make([]uint8, n*n*16)
		for in := range n {
			t.CopySL2VLTable(vl[in*n*16:(in+1)*n*16], id, in)
		}
		m.vl[st][s] = vl
		m.noteVLs(vl)
	}
}

// noteVLs widens nvl to the data VLs of vls.
func (m *model) noteVLs(vls []uint8) {
	for _, v := range vls {
		if v != dropVL && int(v) >= m.nvl {
			m.nvl = int(v) + 1
		}
	}
}

// owners fills owner and owned from the LID plan.
func (m *model) owners() {
	m.owner = make([]fabric.PortRef, m.top+1)
	m.owned = make([]bool, m.top+1)
	for _, p := range m.lids.Ports() {
		for l := int(p.Base); l <= int(p.Top()) && l <= m.top; l++ {
			m.owner[l], m.owned[l] = p.Port, true
		}
	}
}

// sources lists the LID-holding HCA ports cabled to a switch, with their
// path-SL classes and SL-to-VL tables in both states, and copies the
// path-SL rows of every class.
func (m *model) sources(old, new *lft.Tables) {
	tabs := [2]*lft.Tables{old, new}
	rows := [2]map[int]int{{}, {}}
	for _, p := range m.lids.Ports() {
		if m.f.Kind(p.Port.Node) != fabric.HCA {
			continue
		}
		peer, ok := m.f.Peer(p.Port)
		if !ok || m.index[peer.Node] < 0 {
			continue
		}
		src := source{port: p.Port, sw: m.index[peer.Node], in: uint8(peer.Port)}
		for st, t := range tabs {
			src.class[st] = m.slRow(st, t, rows[st], t.SLClass(p.Port))
			src.ca[st] = t.CASL2VL(p.Port)
		}
		m.srcs = append(m.srcs, src)
	}
}

// slRow returns the index in m.sl[st] of path-SL class c of t, copying the
// class's row the first time.
func (m *model) slRow(st int, t *lft.Tables, rows map[int]int, c int) int {
	if r, ok := rows[c]; ok {
		return r
	}
	row := make([]uint8, m.top+1)
	t.CopyClassSLs(row, c)
	rows[c] = len(m.sl[st])
	m.sl[st] = append(m.sl[st], row)
	return rows[c]
}

// vlOf returns the VL switch s puts an SL-sl packet on from in to out in
// state st.
func (m *model) vlOf(st int, s int32, in, out uint8, sl uint8) uint8 {
	n := len(m.ends[s])
	return m.vl[st][s][(int(in)*n+int(out))*16+int(sl)]
}

// linkAt returns the directed link leaving switch s by port p, or -1.
func (m *model) linkAt(s int32, p uint8) int32 {
	return m.link[int(s)*m.width+int(p)]
}
