package lft

import (
	"fmt"

	"slimroute/fabric"
)

// LIDCache is the LIDs in force by port GUID, as OpenSM's guid2lid cache
// holds them: each port's lowest and highest LID.
type LIDCache map[fabric.GUID][2]LID

// CacheOf returns the LIDs of t's ports by port GUID.
func CacheOf(t *Tables) LIDCache {
	c := make(LIDCache, len(t.lids.ports))
	for _, p := range t.lids.ports {
		c[t.f.PortGUID(p.Port)] = [2]LID{p.Base, p.Top()}
	}
	return c
}

// keepLIDs gives every port of f that opts.Keep holds (by port GUID, a
// range of the size the port takes: one LID for a switch, 2^LMC aligned
// for an HCA port) those LIDs again, and the other ports the lowest free
// LIDs: a switch's port 0 one LID, an HCA port the lowest free block of
// 2^LMC aligned LIDs. As in OpenSM, whose LID manager keeps its guid2lid
// cache over sweeps and restarts, the cache's ranges of ports f lacks stay
// reserved too (those of either size), so that a port that comes back
// finds its LIDs and no new port takes another's. Ports come in
// AssignLIDs' order. Cost: O(ports + cache + limit).
func keepLIDs(f *fabric.Fabric, switches, hcas []fabric.PortRef, opts LIDOptions, limit LID) (*LIDs, error) {
	l := &LIDs{lmc: uint8(opts.LMC)}
	taken := make([]bool, int(limit)+1)
	taken[0] = true
	fits := func(r [2]LID, lmc uint8) bool {
		return r[1] <= limit && r[0] > 0 && r[1]-r[0] == LID(1)<<lmc-1 && r[0]&(LID(1)<<lmc-1) == 0
	}
	ports, kept := append(append([]fabric.PortRef(nil), switches...), hcas...), 0
	present := make(map[fabric.GUID]bool, len(ports))
	for _, p := range ports {
		pl := PortLIDs{Port: p}
		if p.Port != 0 {
			pl.LMC = l.lmc
		}
		present[f.PortGUID(p)] = true
		if r, ok := opts.Keep[f.PortGUID(p)]; ok && fits(r, pl.LMC) {
			pl.Base, kept = r[0], kept+1
			for lid := r[0]; lid <= r[1]; lid++ {
				taken[lid] = true
			}
		}
		l.ports = append(l.ports, pl)
	}
	for g, r := range opts.Keep { // the ports gone keep theirs reserved
		if !present[g] && (fits(r, 0) || fits(r, l.lmc)) {
			for lid := r[0]; lid <= r[1]; lid++ {
				taken[lid] = true
			}
		}
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
