package lft

import (
	"fmt"

	"slimroute/fabric"
)

// LIDPlan is a LID plan in force: the fabric it was made for and its LIDs.
type LIDPlan struct {
	Fabric *fabric.Fabric
	LIDs   *LIDs
}

// keepLIDs gives every port of f that opts.Keep gave LIDs (matched by node
// GUID and port number, with the LMC asked for) those LIDs again, as
// OpenSM keeps its guid2lid cache over sweeps and restarts, and the other
// ports the lowest free LIDs: a switch's port 0 one LID, an HCA port the
// lowest free block of 2^LMC aligned LIDs. Ports come in AssignLIDs'
// order. Cost: O(ports + limit).
func keepLIDs(f *fabric.Fabric, switches, hcas []fabric.PortRef, opts LIDOptions, limit LID) (*LIDs, error) {
	l := &LIDs{lmc: uint8(opts.LMC)}
	taken := make([]bool, int(limit)+1)
	taken[0] = true
	ports, kept := append(append([]fabric.PortRef(nil), switches...), hcas...), 0
	for _, p := range ports {
		pl := PortLIDs{Port: p}
		if p.Port != 0 {
			pl.LMC = l.lmc
		}
		if old, ok := keptLIDs(f, opts.Keep, p); ok && old.LMC == pl.LMC && old.Top() <= limit {
			pl.Base, kept = old.Base, kept+1
			for lid := old.Base; lid <= old.Top(); lid++ {
				taken[lid] = true
			}
		}
		l.ports = append(l.ports, pl)
	}
	next := [8]LID{} // per LMC: below it no block is free
	for i := range l.ports {
		pl := &l.ports[i]
		if pl.Base != 0 {
			continue
		}
		base, ok := freeBlock(taken, next[pl.LMC], pl.LMC)
		if !ok {
			return nil, fmt.Errorf("%s needs %d LIDs, and none are free up to %d beside the LIDs in force (%d ports keep theirs): route it without the previous routing's LIDs, at a smaller LMC, or with fewer endpoints", f.PortString(pl.Port), 1<<pl.LMC, limit, kept)
		}
		pl.Base, next[pl.LMC] = base, base
		for lid := base; lid <= pl.Top(); lid++ {
			taken[lid] = true
		}
	}
	return l, l.index()
}

// keptLIDs returns the LIDs the plan in force gave port p of f.
func keptLIDs(f *fabric.Fabric, keep *LIDPlan, p fabric.PortRef) (PortLIDs, bool) {
	id, ok := keep.Fabric.NodeByGUID(f.GUID(p.Node))
	if !ok || keep.Fabric.Node(id).Kind != f.Node(p.Node).Kind {
		return PortLIDs{}, false
	}
	return keep.LIDs.Of(fabric.PortRef{Node: id, Port: p.Port})
}

// freeBlock returns the lowest base from ≥ from, aligned to 2^lmc, whose
// 2^lmc LIDs are all free.
func freeBlock(taken []bool, from LID, lmc uint8) (LID, bool) {
	step := LID(1) << lmc
	for base := max(from/step*step, step); int(base)+int(step)-1 < len(taken); base += step {
		free := true
		for lid := base; lid < base+step && free; lid++ {
			free = !taken[lid]
		}
		if free {
			return base, true
		}
	}
	return 0, false
}
