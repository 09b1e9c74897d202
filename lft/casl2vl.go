package lft

import (
	"fmt"

	"slimroute/fabric"
)

// An HCA port's SL-to-VL table has no in port: it maps the SL of what
// the HCA sends to the VL of its cable to the switch. A subnet manager
// programs it like a switch's; the tables keep one per LID-holding HCA
// port, shared between ports with equal tables.

// CASL2VL returns the SL-to-VL table of HCA port p, indexed by SL: VL 0
// for every SL when p is no LID-holding HCA port or has no table.
func (t *Tables) CASL2VL(p fabric.PortRef) [16]uint8 {
	i, ok := t.lids.byPort[p]
	if !ok || t.switchIndex(p.Node) >= 0 || i >= len(t.caRow) || t.caRow[i] < 0 {
		return [16]uint8{}
	}
	return t.caVL[t.caRow[i]]
}

func (t *Tables) caSL2VL(p fabric.PortRef, sl uint8) uint8 {
	if sl > 15 {
		return 0
	}
	return t.CASL2VL(p)[sl]
}

// SetCASL2VL gives HCA port p, which holds a LID, the SL-to-VL table
// vls, indexed by SL.
func (b *Builder) SetCASL2VL(p fabric.PortRef, vls [16]uint8) error {
	i, ok := b.t.lids.byPort[p]
	if !ok || b.t.switchIndex(p.Node) >= 0 {
		return fmt.Errorf("%s is no LID-holding HCA port", b.t.f.PortString(p))
	}
	if b.t.caRow == nil {
		b.t.caRow = make([]int32, len(b.t.lids.ports))
		for j := range b.t.caRow {
			b.t.caRow[j] = -1
		}
	}
	if b.caRows == nil {
		b.caRows = map[[16]uint8]int32{}
		for r, row := range b.t.caVL {
			b.caRows[row] = int32(r)
		}
	}
	r, ok := b.caRows[vls]
	if !ok {
		r = int32(len(b.t.caVL))
		b.t.caVL = append(b.t.caVL, vls)
		b.caRows[vls] = r
	}
	b.t.caRow[i] = r
	return nil
}
