package repair

import (
	"fmt"
	"strings"

	"slimroute/lft"
)

// slRow is the path-SL row of the HCA ports of one class on one source
// switch, with the switch-side ports those HCAs enter on (one per SL2VL
// class of in port: ports of one class put a packet on the same VLs).
type slRow struct {
	src       *lft.Tables // the tables the HCAs' path SLs come from: prev, or base for HCAs back in
	class     int         // the HCAs' path-SL class there
	baseClass int         // … and in base (with base)
	sl        []uint8
	ins       []int
}

// fitSLs finds path SLs for the new route from source switch src to lid
// (its next hop already set) for each of src's rows: with keep, the SLs
// the rows have (ok only if all still work); without, the smallest SL
// in use that works per row. The SL2VL tables stay as they are, so an SL works
// when it gives the route VLs that strictly increase hop by hop on its
// switch-to-switch channels. That is the invariant of hop-indexed tables
// (deadlock.AssignHops: hop i on VL i): when every route of the previous
// tables has it, every dependency of the channel dependency graph goes
// from a lower VL to a higher one, and a route that keeps it adds only
// such dependencies, so no cycle can close, with the unchanged routes or
// among new ones. Tables whose VLs stay constant along a route (DFSSSP's
// identity SL2VL) pass only for one-hop routes; their other new routes
// go on a spare pair (escapes) or, without one, need a full recompute.
func (r *rerouter) fitSLs(src int32, lid lft.LID, rows []*slRow, keep bool) ([]uint8, bool) {
	sls := r.sls[:0]
	for _, row := range rows {
		if keep {
			if !r.increasing(src, lid, row.ins, row.sl[lid]) {
				return nil, false
			}
			sls = append(sls, row.sl[lid])
			continue
		}
		used := r.slsInUse()
		sl := uint8(0)
		for sl < 16 && (!used[sl] || !r.increasing(src, lid, row.ins, sl)) {
			sl++
		}
		if sl == 16 {
			return nil, false
		}
		sls = append(sls, sl)
	}
	r.sls = sls
	return sls, true
}

// increasing says whether packets with SL sl entering src on each of ins
// and following the new tables to lid take strictly increasing VLs on the
// switch-to-switch channels.
func (r *rerouter) increasing(src int32, lid lft.LID, ins []int, sl uint8) bool {
	for _, in := range ins {
		s, last := src, -1
		for hops := 0; !r.isRoot(s); hops++ {
			out := int(r.rows[s][lid])
			if hops > len(r.m.switches) || out >= len(r.m.nbr[s]) || r.m.nbr[s][out] < 0 {
				return false // not a route to lid; refuse rather than loop
			}
			vl := int(r.esc.sl2vl[s].vl(in, out, sl))
			if vl <= last {
				return false
			}
			last = vl
			s, in = r.m.nbr[s][out], int(r.m.back[s][out])
		}
	}
	return true
}

func (r *rerouter) isRoot(s int32) bool { return r.state[s] == intact && r.dist[s] == 0 }

// noSLError says that no neighbour of src gives its new route to lid
// increasing VLs.
func (r *rerouter) noSLError(src int32, lid lft.LID) error {
	return fmt.Errorf("%s: no new route to LID 0x%04x (e.g. %s) gets increasing VLs from any SL under the previous SL2VL tables, and no spare SL and VL below VL %d is left for it; recompute in full", r.m.f.Name(r.m.switches[src]), lid, r.describe(src, lid), r.esc.vls)
}

// describe names the switches of the new route from src to lid.
func (r *rerouter) describe(src int32, lid lft.LID) string {
	var names []string
	for s := src; s >= 0 && len(names) <= len(r.m.switches); s = r.next(s, lid) {
		names = append(names, r.m.f.Name(r.m.switches[s]))
		if r.isRoot(s) {
			break
		}
	}
	return strings.Join(names, " → ")
}
