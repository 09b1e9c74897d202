package lft

import (
	"fmt"
	"slices"

	"slimroute/fabric"
)

// NewLIDs makes a LID plan from the ports and their LID ranges, in the
// order given (AssignLIDs' order: switches first, then HCA ports), as a
// repair does when it carries an earlier plan over to a fabric that lost
// some ports. lmc is the LMC of the HCA ports. It fails when two ports
// share a LID.
func NewLIDs(lmc uint8, ports []PortLIDs) (*LIDs, error) {
	if lmc > 7 {
		return nil, fmt.Errorf("lmc=%d: LMC is 0..7", lmc)
	}
	l := &LIDs{lmc: lmc, ports: slices.Clone(ports)}
	for _, p := range l.ports {
		if p.Base == 0 || p.LMC > 7 || p.Top() > MaxUnicastLID {
			return nil, fmt.Errorf("LID 0x%04x with LMC %d is not a unicast LID range", p.Base, p.LMC)
		}
	}
	return l, l.index()
}

// CopyClassSLs copies the path SLs of the ports of path-SL class class
// (see SLClass), indexed by DLID, into dst (as far as both reach; SL 0 for
// class -1) and returns how many it copied: ClassSL for every DLID at
// once.
func (t *Tables) CopyClassSLs(dst []uint8, class int) int {
	if class < 0 || class >= len(t.sl) {
		n := min(len(dst), int(t.lids.top)+1)
		clear(dst[:n])
		return n
	}
	return copy(dst, t.sl[class])
}

// CopyLFT copies switch sw's table, indexed by LID, into dst (as far as
// both reach) and returns how many entries it copied: LFT without the
// copy's allocation.
func (t *Tables) CopyLFT(dst []uint8, sw fabric.NodeID) int {
	s := t.switchIndex(sw)
	if s < 0 {
		return 0
	}
	return copy(dst, t.lft[s])
}

// CopySL2VLTable copies switch sw's SL-to-VL table for packets arriving
// on port in, indexed out*16+sl, into dst (as far as both reach) and
// returns how many entries it copied: SL2VLTable without the copy's
// allocation.
func (t *Tables) CopySL2VLTable(dst []uint8, sw fabric.NodeID, in int) int {
	s := t.switchIndex(sw)
	if s < 0 || in < 0 || in >= len(t.vlIn[s]) {
		return 0
	}
	return copy(dst, t.vl[s][t.vlIn[s][in]])
}

// SL2VLTable returns a copy of switch sw's SL-to-VL table for packets
// arriving on port in, indexed out*16+sl: SL2VL for every out port and SL
// at once.
func (t *Tables) SL2VLTable(sw fabric.NodeID, in int) []uint8 {
	s := t.switchIndex(sw)
	if s < 0 || in < 0 || in >= len(t.vlIn[s]) {
		return nil
	}
	return slices.Clone(t.vl[s][t.vlIn[s][in]])
}
