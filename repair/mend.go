package repair

import (
	"cmp"
	"slices"

	"slimroute/lft"
)

// A mend moves one route that did not break, so that a pair the repair
// touched gets its disjoint routes back (Options.Mend). A detour joins
// trees chosen for the intact fabric, and often no detour a broken switch
// may take avoids the routes of the pair's other LIDs, which did not
// break: only moving one of those gives the pair its disjoint routes back
// (TestEachRepairKeepsWhatAnyRepairOfItsStepCould bounds what a repair
// alone can keep).

// touched is a pair (source switch, destination port) whose routes a
// repair changed: the switch index, the port's base LID, and the LID
// offsets whose routes from the switch broke.
type touched struct {
	s     int32
	base  lft.LID
	broke uint8
}

// touch records the pairs whose routes to lid broke: lid's broken
// switches that have HCAs, with lid's port.
func (r *rerouter) touch(lid lft.LID) {
	own, off, ok := r.lids.Owner(lid)
	if !ok || own.Base == 0 || own.Port.Port == 0 || own.LMC > 3 {
		return // HCA ports with 2 to 8 LIDs only
	}
	for _, b := range r.brk {
		if len(r.slRows[b]) > 0 {
			r.touched = append(r.touched, touched{s: b, base: own.Base, broke: 1 << off})
		}
	}
}

// mend gives the touched pairs short of min(3, 2^LMC) disjoint routes of
// at most three hops more of them where moving one LFT entry of the
// pair's source switch, for a LID whose route did not break, does so
// without costing another pair (mendPair). Pairs go in (base LID, switch)
// order. Only on a fabric designed with diameter 2, whose layers take
// routes of up to three hops. Each pair costs a scan of every switch's
// route per LID and neighbour tried: O(2^LMC · degree · S · 3).
func (r *rerouter) mend(st *Stats) {
	if len(r.touched) == 0 || !r.diameter2() {
		return
	}
	slices.SortFunc(r.touched, func(a, b touched) int {
		return cmp.Or(cmp.Compare(a.base, b.base), cmp.Compare(a.s, b.s))
	})
	for i := 0; i < len(r.touched); {
		t := r.touched[i]
		for i++; i < len(r.touched) && r.touched[i].s == t.s && r.touched[i].base == t.base; i++ {
			t.broke |= r.touched[i].broke
		}
		if own, _, ok := r.lids.Owner(t.base); ok && r.mendPair(t, own, st) {
			st.MendedPairs++
		}
	}
}

// mendMove is a move of switch s's entry for lid to port p, with the
// disjoint routes it gives the pair, whether it lengthens a route of
// layer 0 (LID offset 0, minimal where it can be) and the new route's
// hops.
type mendMove struct {
	s, p     int32
	lid      lft.LID
	disjoint int
	longer0  bool
	hops     int
}

// before says whether mv is the better move: more disjoint routes, then
// no layer-0 route lengthened, fewer hops, the less loaded port, the
// lower port.
func (mv mendMove) before(than mendMove, load []int32) bool {
	return cmp.Or(cmp.Compare(than.disjoint, mv.disjoint), cmpBool(mv.longer0, than.longer0), cmp.Compare(mv.hops, than.hops),
		cmp.Compare(load[mv.p], load[than.p]), cmp.Compare(mv.p, than.p)) < 0
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// mendPair tries, for each LID of the pair whose route from t.s did not
// break and each other neighbour of t.s, moving t.s's entry there
// (tryMove), and makes the best move (mendMove.before) that gives the
// pair more disjoint routes. It reports whether it made one.
func (r *rerouter) mendPair(t touched, own lft.PortLIDs, st *Stats) bool {
	if t.broke == 1<<(1<<own.LMC)-1 || !r.rootAt(own.Base) {
		return false // no route left that did not break
	}
	have := r.pairDisjoint(t.s, own)
	if have >= min(3, 1<<own.LMC) {
		return false
	}
	load := r.loadOf(t.s)
	var best mendMove
	for off := range 1 << own.LMC {
		if t.broke&(1<<off) != 0 {
			continue
		}
		lid := own.Base + lft.LID(off)
		if r.routeLen(t.s, lid) < 0 {
			continue // a drop or a loop (tables read from elsewhere): not ours to move
		}
		var ups *upstream // found when a move first needs them
		for p, y := range r.m.nbr[t.s] {
			if y < 0 || uint8(p) == r.rows[t.s][lid] {
				continue
			}
			if mv, ok := r.tryMove(t.s, lid, int32(p), own, have, &ups); ok && (best.hops == 0 || mv.before(best, load)) {
				best = mv
			}
		}
	}
	return best.hops > 0 && r.makeMove(best, st)
}

// upstream holds, for a move of switch s's entry for a LID, the switches
// with HCAs whose routes to it run through s, with s last, and their
// disjoint routes to the LID's port before the move.
type upstream struct {
	sw       []int32
	disjoint []int
}

func (r *rerouter) upstreamOf(s int32, lid lft.LID, own lft.PortLIDs) *upstream {
	up := &upstream{sw: append(r.through(s, lid), s)}
	for _, u := range up.sw {
		up.disjoint = append(up.disjoint, r.pairDisjoint(u, own))
	}
	return up
}

// tryMove checks moving s's entry for lid to port p: the new route must
// reach lid in at most three hops and give the pair more than have
// disjoint routes, and every switch with HCAs whose route runs through s
// must keep a route of at most three hops, no fewer disjoint routes, its
// path SLs on no spare pair, and VLs that increase hop by hop under the
// kept SL2VL tables with its SLs or others in use (fitSLs). ups caches
// upstreamOf across the moves of one LID. It leaves the tables as they
// were.
func (r *rerouter) tryMove(s int32, lid lft.LID, p int32, own lft.PortLIDs, have int, ups **upstream) (mendMove, bool) {
	old, was := r.rows[s][lid], r.routeLen(s, lid)
	r.rows[s][lid] = uint8(p)
	defer func() { r.rows[s][lid] = old }()
	mv := mendMove{s: s, p: p, lid: lid, hops: r.routeLen(s, lid)}
	if mv.hops < 0 || mv.hops > 3 {
		return mendMove{}, false // a loop, or too long
	}
	if mv.disjoint = r.pairDisjoint(s, own); mv.disjoint <= have {
		return mendMove{}, false
	}
	if *ups == nil {
		r.rows[s][lid] = old
		*ups = r.upstreamOf(s, lid, own)
		r.rows[s][lid] = uint8(p)
	}
	up := *ups
	mv.longer0 = lid == own.Base && mv.hops > was
	for i, u := range up.sw {
		if r.onSpare(u, lid) {
			return mendMove{}, false
		}
		if h := r.routeLen(u, lid); h < 0 || h > 3 {
			return mendMove{}, false
		}
		if u != s && r.pairDisjoint(u, own) < up.disjoint[i] {
			return mendMove{}, false
		}
		if _, ok := r.fitSLs(u, lid, r.slRows[u], true); ok {
			continue
		}
		if _, ok := r.fitSLs(u, lid, r.slRows[u], false); !ok {
			return mendMove{}, false
		}
	}
	return mv, true
}

// makeMove moves the entry and sets the path SLs of every switch whose
// route runs through it (their previous SLs where they still fit), as
// tryMove found them; it reports false, the tables as they were, should
// one not fit after all.
func (r *rerouter) makeMove(mv mendMove, st *Stats) bool {
	ups := append(r.through(mv.s, mv.lid), mv.s)
	old := r.rows[mv.s][mv.lid]
	r.rows[mv.s][mv.lid] = uint8(mv.p)
	var sls [][]uint8
	for _, u := range ups {
		got, ok := r.fitSLs(u, mv.lid, r.slRows[u], true)
		if !ok {
			got, ok = r.fitSLs(u, mv.lid, r.slRows[u], false)
		}
		if !ok {
			r.rows[mv.s][mv.lid] = old
			return false
		}
		sls = append(sls, slices.Clone(got))
	}
	if load := r.loadOf(mv.s); int(old) < len(load) {
		load[old]--
		load[mv.p]++
	}
	st.Changed++
	st.Mended++
	for j, u := range ups {
		for i, row := range r.slRows[u] {
			st.Paths++
			if row.sl[mv.lid] != sls[j][i] {
				row.sl[mv.lid] = sls[j][i]
				st.PathSLs++
			}
		}
	}
	return true
}

// rootAt readies the scratch state for walks toward lid: only the switch
// lid's packets leave at counts as reached (isRoot). It reports false for
// a LID no port on a switch holds.
func (r *rerouter) rootAt(lid lft.LID) bool {
	root, _, ok := r.root(r.lids, lid)
	if !ok {
		return false
	}
	clear(r.state)
	r.state[root], r.dist[root] = intact, 0
	return true
}

// routeLen returns the hops of u's route to the LID rootAt readied, -1
// when it leads elsewhere or loops.
func (r *rerouter) routeLen(u int32, lid lft.LID) int {
	for h := 0; h <= len(r.m.switches); h++ {
		if r.isRoot(u) {
			return h
		}
		if u = r.next(u, lid); u < 0 {
			return -1
		}
	}
	return -1
}

// through lists the switches with HCAs, other than s, whose routes to lid
// run through s.
func (r *rerouter) through(s int32, lid lft.LID) []int32 {
	var out []int32
	for u := range int32(len(r.m.switches)) {
		if u == s || len(r.slRows[u]) == 0 {
			continue
		}
		for x, h := r.next(u, lid), 0; x >= 0 && h < len(r.m.switches) && !r.isRoot(x); x, h = r.next(x, lid), h+1 {
			if x == s {
				out = append(out, u)
				break
			}
		}
	}
	return out
}

// pairDisjoint returns how many pairwise channel-disjoint routes of at
// most three hops switch u has to the LIDs of port own.
func (r *rerouter) pairDisjoint(u int32, own lft.PortLIDs) int {
	r.routesOf(u, own, 0)
	return r.mostDisjoint()
}

// onSpare says whether a path SL of u's HCAs toward lid is a spare pair's.
func (r *rerouter) onSpare(u int32, lid lft.LID) bool {
	spare := r.esc.pairSLs()
	for _, row := range r.slRows[u] {
		if spare[row.sl[lid]&15] {
			return true
		}
	}
	return false
}
