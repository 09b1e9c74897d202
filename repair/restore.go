package repair

import (
	"slices"

	"slimroute/lft"
)

// Plugging back. With Options.Base, the routing of the whole fabric the
// chain of repairs started from, a repair of a fabric that has something
// back in (a cable, a switch with its HCAs) gives every switch whose route
// in base toward a LID is whole again (every cable of it in the new
// fabric) base's entry and path SLs, so that routes return to the base
// routing as the fabric does, and once everything is back the tables are
// base's. A route from another switch that now leads through a restored
// one keeps its entry and gets path SLs that fit it, or is re-routed as a
// broken one. Entries toward the LIDs of ports back in, and a switch back
// in, start from base's and are repaired where base's route is not whole.

// restoring says whether this repair restores base's routes: something is
// back in, and base's path SLs are none of the pairs' (a route restored
// keeps base's SL, whose VLs base's SL2VL tables give; a pair's SL would
// need its dependencies checked).
func (r *rerouter) restoring(lids *lft.LIDs) bool {
	if r.m.base == nil || !r.m.added {
		return false
	}
	for _, rows := range r.slRows {
		for _, row := range rows {
			for _, pl := range lids.Ports() {
				for lid := pl.Base; lid <= pl.Top(); lid++ {
					if r.esc.bySL[r.baseSL(row, lid)&15] != nil {
						return false
					}
				}
			}
		}
	}
	return true
}

// backSeeds returns, when something is back in but base's routes are not
// restored, the seeds of lid's repair beyond those given: every switch
// for a LID back in, every switch back in for the others; their routes
// are chosen afresh, as broken ones are.
func (r *rerouter) backSeeds(lid lft.LID, root int32, seeds []int32) []int32 {
	_, _, held := r.m.prev.LIDs().Owner(lid)
	for s := range r.m.switches {
		if int32(s) != root && (!held || r.m.src[s] != r.m.prev) {
			seeds = append(seeds, int32(s))
		}
	}
	return seeds
}

// carried says whether the route from switch s toward lid is one of the
// previous tables (not a switch or LID back in).
func (r *rerouter) carried(s int32, lid lft.LID) bool {
	if r.m.src[s] != r.m.prev {
		return false
	}
	_, _, held := r.m.prev.LIDs().Owner(lid)
	return held
}

// baseSL returns base's path SL toward lid for the HCAs of row.
func (r *rerouter) baseSL(row *slRow, lid lft.LID) uint8 {
	return r.m.base.ClassSL(row.baseClass, lid)
}

// restoreLID gives the switches whose base route toward lid is whole
// base's entry and path SLs, fits the path SLs of the other switches'
// routes that now lead through a restored entry, and returns the seeds of
// the repair of lid: those given with a base entry now dropped, and the
// switches whose new route no SL fits.
func (r *rerouter) restoreLID(lid lft.LID, root int32, rootPort uint8, seeds []int32, st *Stats) []int32 {
	whole := r.baseWhole(lid, root, rootPort)
	if !r.baseFits(lid, root, whole) {
		return r.backSeeds(lid, root, seeds)
	}
	changed := r.up[:0]
	for s, ok := range whole {
		if ok != 1 {
			continue
		}
		if b := r.m.base.Port(r.m.baseSw[s], lid); r.rows[s][lid] != b {
			r.rows[s][lid] = b
			changed = append(changed, int32(s))
			st.Changed++
			st.Restored++
		}
		for _, row := range r.slRows[s] {
			if b := r.baseSL(row, lid); row.sl[lid] != b {
				row.sl[lid] = b
				st.PathSLs++
			}
		}
	}
	seeds = slices.DeleteFunc(slices.Clone(seeds), func(s int32) bool { return whole[s] == 1 })
	for s, ok := range whole {
		if ok != 1 && r.m.src[s] != r.m.prev {
			seeds = append(seeds, int32(s)) // a switch back in: base's route is not whole
		}
	}
	// the other switches whose routes lead through a restored entry:
	// upstream of the changed switches over the entries as they are now
	clear(r.state)
	r.state[root], r.dist[root] = intact, 0
	up := changed
	defer func() { r.up = up }()
	for i := 0; i < len(up); i++ {
		x := up[i]
		for _, y := range r.m.nbr[x] {
			if y < 0 || y == root || r.state[y] == walking {
				continue
			}
			if n, ok := r.step(y, r.rows[y][lid]); ok && n == x {
				r.state[y] = walking
				up = append(up, y)
				if whole[y] != 1 && !r.refit(y, lid, st) {
					seeds = append(seeds, y)
				}
			}
		}
	}
	return seeds
}

// baseFits says whether base's path SLs give the base routes toward lid
// of the whole switches with HCAs increasing VLs under the tables as they
// are (they do unless the previous tables come from a full recompute,
// with other SL2VL tables). It sets the whole switches' entries to base's
// to walk those routes and puts them back.
func (r *rerouter) baseFits(lid lft.LID, root int32, whole []int8) bool {
	was := r.sls[:0]
	for s, ok := range whole {
		if ok == 1 {
			was = append(was, r.rows[s][lid])
			r.rows[s][lid] = r.m.base.Port(r.m.baseSw[s], lid)
		}
	}
	clear(r.state)
	r.state[root], r.dist[root] = intact, 0
	fits := true
	for s, ok := range whole {
		for _, row := range r.slRows[s] {
			fits = fits && (ok != 1 || r.increasing(int32(s), lid, row.ins, r.baseSL(row, lid)))
		}
	}
	i := 0
	for s, ok := range whole {
		if ok == 1 {
			r.rows[s][lid] = was[i]
			i++
		}
	}
	r.sls = was
	return fits
}

// refit gives the HCAs of switch s path SLs for their route toward lid,
// which now leads through a restored entry: the SLs they have if those
// still give increasing VLs, else the smallest that do. It reports false
// when no SL fits (s is then re-routed).
func (r *rerouter) refit(s int32, lid lft.LID, st *Stats) bool {
	rows := r.slRows[s]
	if len(rows) == 0 {
		return true
	}
	sls, ok := r.fitSLs(s, lid, rows, true)
	if !ok {
		sls, ok = r.fitSLs(s, lid, rows, false)
	}
	if !ok {
		return false
	}
	for i, row := range rows {
		if row.sl[lid] != sls[i] {
			row.sl[lid] = sls[i]
			st.PathSLs++
		}
	}
	return true
}

// baseWhole returns, per switch index, 1 if base's route from it toward
// lid is whole in the new fabric (every cable of it there and the same),
// else -1.
func (r *rerouter) baseWhole(lid lft.LID, root int32, rootPort uint8) []int8 {
	if len(r.whole) != len(r.m.switches) {
		r.whole = make([]int8, len(r.m.switches))
	}
	w := r.whole
	clear(w)
	for s := range w {
		r.stack = r.stack[:0]
		cur := int32(s)
		for w[cur] == 0 {
			w[cur] = -1 // on the walk: a loop is not whole
			r.stack = append(r.stack, cur)
			p := r.m.base.Port(r.m.baseSw[cur], lid)
			if cur == root {
				if p == rootPort {
					w[cur] = 1
				}
				break
			}
			if int(p) >= len(r.m.nbr[cur]) || !r.m.baseSame[cur][p] || r.m.nbr[cur][p] < 0 {
				break
			}
			cur = r.m.nbr[cur][p]
		}
		for _, x := range r.stack {
			w[x] = w[cur]
		}
	}
	return w
}

// pairRoute is a route on a pair before a LID's repair.
type pairRoute struct {
	s   int32
	row int
	pr  *escapePair
	chs []int32
}

// onPairsToward lists the routes on pairs toward lid as they are.
func (r *rerouter) onPairsToward(lid lft.LID) []pairRoute {
	if len(r.esc.pairs) == 0 {
		return nil
	}
	var out []pairRoute
	for s, rows := range r.slRows {
		for i, row := range rows {
			if pr := r.esc.bySL[row.sl[lid]&15]; pr != nil && r.carried(int32(s), lid) {
				out = append(out, pairRoute{int32(s), i, pr, slices.Clone(pr.on(r.oldChannels(int32(s), lid)))})
			}
		}
	}
	return out
}

// settlePairs takes away the dependencies of the routes of before (the
// routes on pairs toward lid before its repair) that left their pair or
// changed their path; a route's new dependencies were added as it was
// placed on its pair.
func (r *rerouter) settlePairs(lid lft.LID, before []pairRoute) {
	for _, x := range before {
		row := r.slRows[x.s][x.row]
		if r.esc.bySL[row.sl[lid]&15] == x.pr && slices.Equal(x.pr.on(r.oldChannels(x.s, lid)), x.chs) {
			continue
		}
		x.pr.remove(x.chs)
	}
}
