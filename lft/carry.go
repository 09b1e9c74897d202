package lft

import (
	"fmt"
	"slices"
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
	l := &LIDs{LMC: lmc, Ports: slices.Clone(ports)}
	for _, p := range l.Ports {
		if p.Base == 0 || p.LMC > 7 || p.Top() > MaxUnicastLID {
			return nil, fmt.Errorf("LID 0x%04x with LMC %d is not a unicast LID range", p.Base, p.LMC)
		}
	}
	return l, l.index()
}

// ClassSLs returns a copy of the path SLs of the ports of path-SL class
// class (see SLClass), indexed by DLID 0..Top: ClassSL for every DLID at
// once.
func (t *Tables) ClassSLs(class int) []uint8 {
	if class < 0 || class >= len(t.sl) {
		return make([]uint8, int(t.lids.Top)+1)
	}
	return slices.Clone(t.sl[class])
}
