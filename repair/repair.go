// Package repair carries forwarding state over a fabric change: given the
// previous tables and the new fabric (cables or switches gone), it
// re-routes only the LFT entries whose paths crossed what is gone, keeps
// every other LFT entry, every unaffected path SL and the SL-to-VL tables
// (but for a spare SL some new routes may need, see escapes), and says
// how much changed. It works on forwarding state alone (package
// lft), not on a routing, so it repairs OpenSM's dumps as well as
// slimroute's own tables. The caller verifies the result (verify.Check)
// and recomputes in full when Repair fails or the verifier refuses.
package repair

import (
	"fmt"
	"slices"
	"time"

	"slimroute/fabric"
	"slimroute/lft"
)

// Options configure Repair.
type Options struct {
	// Workers is how many goroutines may copy tables at once; 0 or 1: one.
	// The result is the same for every value.
	Workers int
	// VLs is how many data VLs the switches run (0: 8): a spare VL for
	// routes no SL in use fits must be below it.
	VLs int
	// Base, when set, is the routing of the whole fabric a chain of
	// repairs started from (its last full computation): when something is
	// back in, every route base has that is whole again returns to it
	// (see restoreLID), and a switch or port back in takes its tables and
	// LIDs from it. Without, a repair only follows failures.
	Base *lft.Tables
	// Clock, when set, times the repair (Stats.Time).
	Clock func() time.Time
	// Mend lets a repair after a failure also move routes that did not
	// cross it, one LFT entry each, where a pair (source switch,
	// destination port) whose routes broke is left with fewer than
	// min(3, 2^LMC) disjoint routes of at most three hops and moving one
	// of its other routes gives it more, costing no other pair a disjoint
	// route (see mend; only on fabrics designed with diameter 2).
	// Stats.Mended counts those entries. Without, a repair changes only
	// entries whose routes crossed what is gone, and the chain of repairs
	// drifts further under a full recompute (docs/quality.md).
	Mend bool
}

// Stats says what a repair changed and why.
type Stats struct {
	// LIDs is how many destination LIDs had routes crossing what is gone.
	LIDs int
	// Crossed counts the LFT entries (switch, LID) whose path crossed a
	// gone cable or switch (or led nowhere): the only entries Repair may
	// change, but for those it restores (Restored) and mends (Mended).
	Crossed int
	// Changed counts the entries that now name another port; ≤ Crossed
	// + Restored + Mended.
	Changed int
	// Restored counts the entries given back base's port (Options.Base:
	// their route in base is whole again).
	Restored int
	// GoneLIDs counts the LIDs of ports that are gone (an HCA whose cable
	// or switch failed, a failed switch): no switch forwards them any more.
	GoneLIDs int
	// Paths counts the (source switch, DLID) routes from switches with
	// HCAs that changed, and PathSLs the path SLs among them that changed
	// (a route mended after its repair in the same step counts twice).
	Paths, PathSLs int
	// Escaped counts the new routes no SL in use fits under the kept
	// SL2VL tables, put on a spare (SL, VL) pair; Spares lists the pairs,
	// the only SL2VL entries the repair changes.
	Escaped int
	Spares  []Spare
	// FourHops says the repair turned the four-hop rule on: SL2VL entries
	// of the hop-indexed scheme that put a route's third hop on VL 2 put
	// it on VL 3 where the feeding switch was not the second (see
	// fourHops). No route's VLs stop increasing.
	FourHops bool
	// Mended counts the entries of routes that did not break which
	// Options.Mend moved (in Changed too), and MendedPairs the pairs
	// (source switch, destination port) that got more disjoint routes.
	Mended, MendedPairs int
	// Time is how long the repair took (zero without Options.Clock).
	Time time.Duration
}

// Spare is an SL no path used before the repair, mapped to a VL no SL in
// use reached, on every switch and port pair (see escapes).
type Spare struct{ SL, VL uint8 }

func (s Spare) String() string { return fmt.Sprintf("SL %d on VL %d", s.SL, s.VL) }

// Repair returns the tables of fabric f repaired from prev, the tables of
// an earlier fabric whose nodes f's match by GUID (or of f itself, read
// onto it, with entries naming ports whose cables are gone). It fails
// when f has a switch or LID-holding port prev lacks, when a switch can
// no longer reach a LID, or when a new route gets no SL under the kept
// SL2VL tables and no spare (SL, VL) pair is left below Options.VLs; a
// full recompute is then needed. The result's freedom from deadlock rests
// on prev's routes having VLs that increase hop by hop (hop-indexed
// tables; see fitSLs): the caller verifies it (verify.Check) before use.
func Repair(prev *lft.Tables, f *fabric.Fabric, opts Options) (*lft.Tables, Stats, error) {
	if opts.Base != nil && opts.Base != prev && sameCabling(opts.Base.Fabric(), f) {
		return backToBase(prev, f, opts)
	}
	tab, st, restoring, err := repair(prev, f, opts, true)
	if err != nil && restoring {
		// something back in whose base routes do not fit: keep the
		// previous routes, route only what is back
		if tab2, st2, _, err2 := repair(prev, f, opts, false); err2 == nil {
			return tab2, st2, nil
		}
	}
	return tab, st, err
}

// repair is Repair; restore says whether routes may return to base's,
// and restoring whether they did (something is back in).
func repair(prev *lft.Tables, f *fabric.Fabric, opts Options, restore bool) (tab *lft.Tables, st Stats, restoring bool, err error) {
	var start time.Time
	if opts.Clock != nil {
		start = opts.Clock()
	}
	m, err := newMatch(prev, opts.Base, f)
	if err != nil {
		return nil, st, false, err
	}
	lids, gone, err := m.lids()
	if err != nil {
		return nil, st, false, err
	}
	st.GoneLIDs = gone
	b := lft.NewBuilder(f, lids)
	rows := carryLFTs(m, b, lids, opts.Workers)
	slRows, err := carrySLs(m, b, lids)
	if err != nil {
		return nil, st, false, err
	}
	vls := opts.VLs
	if vls <= 0 {
		vls = 8
	}
	sl2vl := readSL2VL(m, opts.Workers)
	r := newRerouter(m, rows, slRows, sl2vl, vls)
	r.lids = lids
	r.mending = opts.Mend && !m.added
	inUse := r.pathSLs()
	r.esc.recognise(&inUse)
	fillPairs(m, sl2vl, r.esc.pairs)
	r.routesOnPairs()
	work := affectedLIDs(m, rows, lids)
	if m.added {
		r.restore = restore && r.restoring(lids)
		work = everyLID(lids, work)
	}
	for _, a := range work {
		if err := r.repairLID(lids, a, slRows, &st); err != nil {
			return nil, st, r.restore, err
		}
	}
	if r.mending {
		r.mend(&st)
	}
	for _, pr := range r.esc.pairs[len(r.esc.pairs)-r.esc.fresh:] {
		st.Spares = append(st.Spares, Spare{SL: pr.sl, VL: pr.vl})
	}
	fresh := r.esc.pairs[len(r.esc.pairs)-r.esc.fresh:]
	if err := carrySL2VL(m, b, sl2vl, fresh, opts.Workers); err != nil {
		return nil, st, r.restore, err
	}
	if err := carryCASL2VL(m, b, lids, r.esc.pairs[:len(r.esc.pairs)-r.esc.fresh], fresh); err != nil {
		return nil, st, r.restore, err
	}
	if opts.Clock != nil {
		st.Time = opts.Clock().Sub(start)
	}
	return b.Tables(), st, r.restore, nil
}

// repairLID re-routes the switches whose routes toward lid broke (and,
// restoring, gives back base's routes that are whole again) and picks the
// path SLs of the routes that changed.
func (r *rerouter) repairLID(lids *lft.LIDs, a seeded, slRows [][]*slRow, st *Stats) error {
	lid := a.lid
	root, port, ok := r.root(lids, lid)
	if !ok {
		return nil
	}
	before := r.onPairsToward(lid)
	if r.rows[root][lid] != port {
		st.Crossed++
		st.Changed++
	}
	seeds := a.seeds
	switch {
	case r.restore:
		seeds = r.restoreLID(lid, root, port, seeds, st)
	case r.m.added:
		seeds = r.backSeeds(lid, root, seeds)
	}
	r.classify(lid, root, port, seeds)
	if len(r.brk) > 0 {
		st.LIDs++
		st.Crossed += len(r.brk)
		if err := r.grow(lid, slRows, st); err != nil {
			return err
		}
		if r.mending {
			r.touch(lid)
		}
	}
	r.settlePairs(lid, before)
	return nil
}

// everyLID lists every LID of lids in order, with its seeds in work.
func everyLID(lids *lft.LIDs, work []seeded) []seeded {
	var out []seeded
	for lid := lft.LID(1); lid <= lids.Top(); lid++ {
		if _, _, ok := lids.Owner(lid); !ok {
			continue
		}
		a := seeded{lid: lid}
		if len(work) > 0 && work[0].lid == lid {
			a, work = work[0], work[1:]
		}
		out = append(out, a)
	}
	return out
}

// seeded is a LID with the switches whose entries for it name a port
// whose cable is gone or different.
type seeded struct {
	lid   lft.LID
	seeds []int32
}

// affectedLIDs lists, in LID order, the LIDs some switch forwards over a
// port whose cable is gone or different, with those switches. Only
// switches with such a port are scanned: when prev is on another fabric,
// those whose cabling changed; when it is on f itself, every switch.
func affectedLIDs(m *match, rows [][]uint8, lids *lft.LIDs) []seeded {
	type hit struct {
		lid lft.LID
		s   int32
	}
	var hits []hit
	for s := range m.switches {
		var dead [256]bool // ports past the last are dead too; Drop is not
		scan := m.pf == m.f || m.base != nil
		for p := 1; p < len(dead)-1; p++ {
			dead[p] = p >= len(m.same[s]) || !m.same[s][p]
			if p < len(m.same[s]) && dead[p] {
				_, had := m.src[s].Fabric().Peer(fabric.PortRef{Node: m.prevSw[s], Port: p})
				scan = scan || had
			}
		}
		if !scan {
			continue
		}
		for lid, p := range rows[s] {
			if dead[p] {
				hits = append(hits, hit{lft.LID(lid), int32(s)})
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return int(a.lid) - int(b.lid) })
	var out []seeded
	for _, h := range hits {
		if _, _, ok := lids.Owner(h.lid); !ok {
			continue
		}
		if len(out) == 0 || out[len(out)-1].lid != h.lid {
			out = append(out, seeded{lid: h.lid})
		}
		out[len(out)-1].seeds = append(out[len(out)-1].seeds, h.s)
	}
	return out
}

// backToBase returns base's tables on f, which has everything base's
// fabric has: the chain of repairs ends where it started. Stats counts
// the entries and path SLs that differ from prev as restored.
func backToBase(prev *lft.Tables, f *fabric.Fabric, opts Options) (*lft.Tables, Stats, error) {
	base := opts.Base
	opts.Base = nil
	tab, st, err := Repair(base, f, opts)
	if err != nil {
		return nil, st, err
	}
	pf := prev.Fabric()
	for _, sw := range tab.Switches() {
		psw, ok := pf.NodeByGUID(f.GUID(sw))
		for _, pl := range tab.LIDs().Ports() {
			for lid := pl.Base; lid <= pl.Top(); lid++ {
				if !ok || prev.Port(psw, lid) != tab.Port(sw, lid) {
					st.Changed++
					st.Restored++
				}
			}
		}
	}
	return tab, st, nil
}

// sameCabling says whether fabrics a and b have the same nodes (by GUID)
// and the same cables (by node GUID and port).
func sameCabling(a, b *fabric.Fabric) bool {
	if a.NumNodes() != b.NumNodes() || a.NumLinks() != b.NumLinks() {
		return false
	}
	for _, l := range a.Links() {
		x, ok1 := b.NodeByGUID(a.GUID(l.A.Node))
		y, ok2 := b.NodeByGUID(a.GUID(l.B.Node))
		if !ok1 || !ok2 {
			return false
		}
		if peer, ok := b.Peer(fabric.PortRef{Node: x, Port: l.A.Port}); !ok || peer != (fabric.PortRef{Node: y, Port: l.B.Port}) {
			return false
		}
	}
	return true
}
