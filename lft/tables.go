package lft

import (
	"slices"

	"slimroute/fabric"
)

// Drop is the LFT entry for "no route".
const Drop = 0xFF

// Tables is the forwarding state a subnet manager programs into a fabric:
// the LIDs, every switch's linear forwarding table, the path SL of every
// (source port, destination LID), and every switch's SL-to-VL tables. It
// is the one value for forwarding state in slimroute: Build makes it from
// a routing, the readers make it from OpenSM's and the diagnostics' files,
// the writers and the OpenSM plugin program it, and the verifier and the
// analysis read it. A Tables value never changes once made; the methods
// that return slices return copies.
type Tables struct {
	f        *fabric.Fabric
	lids     *LIDs
	switches []fabric.NodeID // in NodeID order
	swIndex  []int32         // NodeID -> index in switches, -1 for an HCA
	lft      [][]uint8       // per switch index: LID 0..Top -> egress port
	// Path SLs come in rows, one per class of source ports that use the
	// same SLs (slimroute: the HCA ports of one switch): slRow[i] is the
	// row of lids.ports[i], -1 for SL 0 to every LID.
	slRow []int32
	sl    [][]uint8 // per row: DLID 0..Top -> SL
	// SL2VL tables come in classes of in ports: vlIn[s][in] is the class
	// of in port in of switch s, and vl[s][class][out*16+sl] the VL.
	vlIn [][]uint8
	vl   [][][]uint8
	// An HCA port's SL-to-VL table (its egress VL per SL) is a row of
	// caVL: caRow[i] is the row of lids.ports[i], -1 for VL 0 for every SL.
	caRow []int32
	caVL  [][16]uint8
}

// Fabric returns the fabric the tables program.
func (t *Tables) Fabric() *fabric.Fabric { return t.f }

// LIDs returns the LID plan the tables are indexed by.
func (t *Tables) LIDs() *LIDs { return t.lids }

// Switches returns the switches in NodeID order.
func (t *Tables) Switches() []fabric.NodeID { return slices.Clone(t.switches) }

// SortedSwitches returns the switches in node GUID order: the order of
// every file format.
func (t *Tables) SortedSwitches() []fabric.NodeID {
	sw := t.Switches()
	slices.SortStableFunc(sw, func(a, b fabric.NodeID) int {
		ga, gb := t.f.GUID(a), t.f.GUID(b)
		switch {
		case ga < gb:
			return -1
		case ga > gb:
			return 1
		}
		return 0
	})
	return sw
}

// switchIndex returns the index of switch sw, or -1.
func (t *Tables) switchIndex(sw fabric.NodeID) int {
	if sw < 0 || int(sw) >= len(t.swIndex) {
		return -1
	}
	return int(t.swIndex[sw])
}

// Port returns the egress port of switch sw toward lid (0: the switch
// itself), or Drop.
func (t *Tables) Port(sw fabric.NodeID, lid LID) uint8 {
	s := t.switchIndex(sw)
	if s < 0 || int(lid) >= len(t.lft[s]) {
		return Drop
	}
	return t.lft[s][lid]
}

// LFT returns a copy of switch sw's table, indexed by LID 0..Top.
func (t *Tables) LFT(sw fabric.NodeID) []uint8 {
	s := t.switchIndex(sw)
	if s < 0 {
		return nil
	}
	return slices.Clone(t.lft[s])
}

// PathSL returns the SL of packets from the LID-holding port src to dlid:
// the SL the SA hands out for that path. It is the same from every LID of
// src.
func (t *Tables) PathSL(src fabric.PortRef, dlid LID) uint8 {
	i, ok := t.lids.byPort[src]
	if !ok {
		return 0
	}
	return t.rowSL(t.slRow[i], dlid)
}

func (t *Tables) rowSL(row int32, dlid LID) uint8 {
	if row < 0 || int(dlid) >= len(t.sl[row]) {
		return 0
	}
	return t.sl[row][dlid]
}

// SLClass returns the path-SL class of the LID-holding port src: ports of
// one class have equal SLs to every DLID. -1 for a port that is not in
// the LID plan.
func (t *Tables) SLClass(src fabric.PortRef) int {
	i, ok := t.lids.byPort[src]
	if !ok {
		return -1
	}
	return int(t.slRow[i])
}

// ClassSL returns the path SL of the ports of path-SL class class (see
// SLClass) to dlid.
func (t *Tables) ClassSL(class int, dlid LID) uint8 { return t.rowSL(int32(class), dlid) }

// SL2VL returns the VL switch sw puts a packet on that arrived on port in
// (0: from the switch itself) and leaves on port out with service level
// sl: its SL-to-VL table. For an HCA it is the VL its port out sends SL
// sl on, whatever in is (see CASL2VL).
func (t *Tables) SL2VL(sw fabric.NodeID, in, out int, sl uint8) uint8 {
	s := t.switchIndex(sw)
	if s < 0 {
		return t.caSL2VL(fabric.PortRef{Node: sw, Port: out}, sl)
	}
	if in < 0 || in >= len(t.vlIn[s]) || out < 0 || sl > 15 {
		return 0
	}
	row := t.vl[s][t.vlIn[s][in]]
	if out*16+int(sl) >= len(row) {
		return 0
	}
	return row[out*16+int(sl)]
}

// sl2vlRow returns what SL2VL returns for in, out and every SL, looking
// the table up once.
func (t *Tables) sl2vlRow(sw fabric.NodeID, in, out int) (vls [16]uint8) {
	s := t.switchIndex(sw)
	if s < 0 {
		for sl := range vls {
			vls[sl] = t.SL2VL(sw, in, out, uint8(sl))
		}
		return vls
	}
	if in < 0 || in >= len(t.vlIn[s]) || out < 0 {
		return vls
	}
	if row := t.vl[s][t.vlIn[s][in]]; out*16 < len(row) {
		copy(vls[:], row[out*16:])
	}
	return vls
}

// MaxVL returns the highest data VL the SL-to-VL tables map any SL to,
// over the port pairs WriteSL2VL writes (every cabled out port, every in
// port that is cabled or 0): the switches must offer VLs 0..MaxVL. VL 15
// is no data VL: an SL mapped to it is dropped, on any switch.
func (t *Tables) MaxVL() int {
	vl := 0
	for _, sw := range t.switches {
		n := t.f.Ports(sw)
		cabled := func(p int) bool {
			_, ok := t.f.Peer(fabric.PortRef{Node: sw, Port: p})
			return p == 0 || ok
		}
		for out := 1; out <= n; out++ {
			for in := 0; in <= n && cabled(out); in++ {
				if in == out || !cabled(in) {
					continue
				}
				for _, v := range t.sl2vlRow(sw, in, out) {
					if v != 15 {
						vl = max(vl, int(v))
					}
				}
			}
		}
	}
	return vl
}

// SL2VLClass returns the class of in port in of switch sw: in ports of
// one class have the same SL-to-VL table toward every out port.
func (t *Tables) SL2VLClass(sw fabric.NodeID, in int) int {
	s := t.switchIndex(sw)
	if s < 0 || in < 0 || in >= len(t.vlIn[s]) {
		return -1
	}
	return int(t.vlIn[s][in])
}

// Unreachable lists the LID-holding ports that no switch forwards their
// base LID to (an HCA whose only cable was avoided, say), in LID order.
func (t *Tables) Unreachable() []fabric.PortRef {
	var out []fabric.PortRef
	for _, p := range t.lids.ports {
		reached := false
		for s := range t.lft {
			if t.lft[s][p.Base] != Drop {
				reached = true
				break
			}
		}
		if !reached {
			out = append(out, p.Port)
		}
	}
	return out
}
