package repair

import (
	"slices"

	"slimroute/lft"
)

// escapes hands out (SL, VL) pairs for new routes that no SL in use gives
// increasing VLs under the kept SL2VL tables. On a pair, an SL goes to
// one VL v on every switch, from every in port fed by a switch to every
// out port, and no other SL in use goes to v; from an HCA it goes to VL 0,
// as every first hop does. Packets of the routes on the pair take VL 0 on
// their first hop and stay on v from the second to the destination, and
// no other packet enters v. The dependency from the first hop to the
// second goes from VL 0 to v, and none leaves v, so no cycle can cross
// between v and the other VLs: the only dependencies that could close
// one are those of the pair's own routes on v, and the network stays
// deadlock-free as long as they form no cycle. That is checked as each
// route is added (first fit over the pairs, then a new pair, as DFSSSP
// packs routes into VLs; Domke et al., 2011).
//
// The pairs an earlier repair made (or DFSSSP's own layers) are found in
// the previous tables (recognise) with the dependencies of the routes on
// them, so a chain of repairs keeps sharing one spare VL for as long as
// its routes stay acyclic. A new pair takes an SL no path uses and a VL
// no SL in use reaches; the repair then maps that SL to that VL
// everywhere and changes no other SL2VL entry.
type escapes struct {
	m      *match
	vls    int           // data VLs the switches have
	sl2vl  []switchSL2VL // the previous SL2VL tables
	vlUsed *[16]bool
	pairs  []*escapePair
	// bySL[sl] is the pair of SL sl, nil if none
	bySL [16]*escapePair
	// fresh is how many of pairs the previous tables lacked (the last)
	fresh int
}

type escapePair struct {
	sl, vl uint8
	// first says the routes' first hop is on the pair's VL too (a pair of
	// an older repair); a pair this repair makes puts it on VL 0, as every
	// first hop, and only the later hops on its VL: a route's first
	// channel then adds no dependency within the pair's VL
	first bool
	// deps counts, per dependency (channel, next channel), the routes on
	// the pair that make it; next lists, per channel, the channels a
	// dependency with a count above zero leads to
	deps map[[2]int32]int32
	next map[int32][]int32
}

func newPair(sl, vl uint8) *escapePair {
	return &escapePair{sl: sl, vl: vl, deps: map[[2]int32]int32{}, next: map[int32][]int32{}}
}

// channel numbers the channel leaving switch s on port p.
func channel(s int32, p int) int32 { return s<<8 | int32(p) }

// place finds a pair whose dependency graph stays acyclic with the route
// through channels chs, opening a new pair if none does and open is set,
// and adds the route to it. ok is false when none takes it.
func (e *escapes) place(chs []int32, slUsed func() *[16]bool, open bool) (*escapePair, bool) {
	for _, pr := range e.pairs {
		if pr.add(pr.on(chs)) {
			return pr, true
		}
	}
	if !open {
		return nil, false
	}
	sl, vl, ok := e.spare(slUsed())
	if !ok {
		return nil, false
	}
	pr := newPair(sl, vl)
	e.pairs = append(e.pairs, pr)
	e.bySL[sl] = pr
	e.fresh++
	pr.add(pr.on(chs)) // a route alone is a simple path: no cycle
	return pr, true
}

// spare returns an SL and a VL that neither a path SL nor a pair uses.
func (e *escapes) spare(slUsed *[16]bool) (uint8, uint8, bool) {
	if e.vlUsed == nil {
		e.vlUsed = e.m.vlsReached(e.sl2vl, slUsed)
		if _, _, hops := e.hopColours(e.pairSLs()); hops {
			e.vlUsed[fourthVL] = false // only last hops (see fourHops)
		}
	}
	sl, vl := -1, -1
	for x := 15; x >= 1; x-- {
		if !slUsed[x] && !e.taken(uint8(x), true) {
			sl = x
		}
	}
	for x := 1; x < min(e.vls, 15); x++ {
		if !e.vlUsed[x] && !e.taken(uint8(x), false) {
			vl = x
			break
		}
	}
	if sl < 0 || vl < 0 {
		return 0, 0, false
	}
	return uint8(sl), uint8(vl), true
}

func (e *escapes) taken(x uint8, isSL bool) bool {
	for _, pr := range e.pairs {
		if (isSL && pr.sl == x) || (!isSL && pr.vl == x) {
			return true
		}
	}
	return false
}

// vlFrom returns the VL the pair's SL goes to from an in port fed by a
// switch (fromSwitch) or not.
func (pr *escapePair) vlFrom(fromSwitch bool) uint8 {
	if fromSwitch || pr.first {
		return pr.vl
	}
	return 0
}

// on returns the channels of a route through chs that are on the pair's
// VL: all but the first unless first.
func (pr *escapePair) on(chs []int32) []int32 {
	if pr.first || len(chs) == 0 {
		return chs
	}
	return chs[1:]
}

// add adds the dependencies of the route through chs, one by one, each
// new one only if the graph has no path back from its head to its tail
// (which would close a cycle, with the pair's routes or the route's own
// earlier dependencies); if one would, it takes back those it added and
// reports false.
func (pr *escapePair) add(chs []int32) bool {
	for i := 0; i+1 < len(chs); i++ {
		d := [2]int32{chs[i], chs[i+1]}
		if pr.deps[d] == 0 && pr.reaches(d[1], d[0]) {
			pr.remove(chs[:i+1])
			return false
		}
		pr.count(d, 1)
	}
	return true
}

// remove takes the dependencies of the route through chs away.
func (pr *escapePair) remove(chs []int32) {
	for i := 0; i+1 < len(chs); i++ {
		pr.count([2]int32{chs[i], chs[i+1]}, -1)
	}
}

func (pr *escapePair) count(d [2]int32, by int32) {
	n := pr.deps[d] + by
	switch {
	case n > 0 && n-by == 0:
		pr.next[d[0]] = append(pr.next[d[0]], d[1])
	case n == 0:
		next := pr.next[d[0]]
		for i, c := range next {
			if c == d[1] {
				next[i] = next[len(next)-1]
				pr.next[d[0]] = next[:len(next)-1]
				break
			}
		}
	}
	if n == 0 {
		delete(pr.deps, d)
	} else {
		pr.deps[d] = n
	}
}

func (pr *escapePair) reaches(from, to int32) bool {
	seen := map[int32]bool{from: true}
	stack := []int32{from}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c == to {
			return true
		}
		for _, d := range pr.next[c] {
			if !seen[d] {
				seen[d] = true
				stack = append(stack, d)
			}
		}
	}
	return false
}

// recognise finds the pairs of the previous tables: an SL some path uses
// (not SL 0) that goes to one VL v ≥ 1 from every in port with a cable
// from a switch to every other out port with a cable, and to v or VL 0
// from in ports with a cable from an HCA, where no other SL in use goes
// to v. The dependencies of the routes on them are added by
// routesOnPairs.
func (e *escapes) recognise(slUsed *[16]bool) {
	var vlOf, hcaVL [16]int
	for sl := range vlOf {
		vlOf[sl], hcaVL[sl] = -1, -1
		if !slUsed[sl] || sl == 0 {
			vlOf[sl] = -2 // not a candidate
		}
	}
	var reached [16][16]bool // [vl][sl]: some entry puts sl on vl
	m := e.m
	for s := range m.switches {
		e.eachCarried(s, func(in, _ int, row []uint8) bool {
			for sl, vl := range row {
				vl &= 15
				reached[vl][sl] = true
				switch {
				case vlOf[sl] == -2:
				case m.nbr[s][in] < 0:
					hcaVL[sl] = max(hcaVL[sl], int(vl)) // checked below
				case vlOf[sl] == -1:
					vlOf[sl] = int(vl)
				case vlOf[sl] != int(vl):
					vlOf[sl] = -2
				}
			}
			return true
		})
	}
	// under hop-indexed tables the other SLs reach VL 3 only on a route's
	// last hop, which adds no dependency on VL 3 (see fourHops)
	var cand [16]bool
	for sl, vl := range vlOf {
		cand[sl] = vl >= 1 && (hcaVL[sl] == 0 || hcaVL[sl] == vl)
	}
	_, _, hops := e.hopColours(&cand)
	for sl, vl := range vlOf {
		if !cand[sl] {
			continue
		}
		alone := true
		for other := range 16 {
			last := hops && vl == fourthVL && !cand[other]
			alone = alone && (other == sl || !slUsed[other] || !reached[vl][other] || last)
		}
		if alone {
			pr := newPair(uint8(sl), uint8(vl))
			pr.first = hcaVL[sl] == vl
			e.pairs = append(e.pairs, pr)
			e.bySL[sl] = pr
		}
	}
}

// routesOnPairs adds to each recognised pair the dependencies of the
// routes the carried tables put on it (as far as each leads: a route over
// a gone cable is repaired, and its dependencies taken away, later).
func (r *rerouter) routesOnPairs() {
	if len(r.esc.pairs) == 0 {
		return
	}
	for s, rows := range r.slRows {
		for _, row := range rows {
			for lid, sl := range row.sl {
				pr := r.esc.bySL[sl&15]
				if pr == nil || !r.carried(int32(s), lft.LID(lid)) {
					continue // a route back in is chosen afresh
				}
				if !pr.add(pr.on(r.oldChannels(int32(s), lft.LID(lid)))) {
					r.esc.drop(pr) // a cycle already: put nothing more on it
				}
			}
		}
	}
}

// eachCarried calls fn with the SL-to-VL row (a VL per SL) of every in
// port of switch s with a cable toward every other out port with a cable,
// leaving out the ports back in (fresh), whose entries are base's. It
// stops when fn returns false, and reports whether it went through.
func (e *escapes) eachCarried(s int, fn func(in, out int, row []uint8) bool) bool {
	m, t := e.m, &e.sl2vl[s]
	fresh := func(p int) bool { return t.fresh != nil && t.fresh[p] }
	for in := range t.of {
		if m.back[s][in] < 0 || fresh(in) {
			continue // no packet enters there, or base's entries
		}
		for out := 1; out < len(t.of); out++ {
			if m.back[s][out] >= 0 && out != in && !fresh(out) && !fn(in, out, t.tables[t.of[in]][out*16:out*16+16]) {
				return false
			}
		}
	}
	return true
}

// pairSLs marks the SLs of the pairs.
func (e *escapes) pairSLs() *[16]bool {
	var p [16]bool
	for sl, pr := range e.bySL {
		p[sl] = pr != nil
	}
	return &p
}

// drop takes pair pr out of use.
func (e *escapes) drop(pr *escapePair) {
	e.pairs = slices.DeleteFunc(e.pairs, func(x *escapePair) bool { return x == pr })
	e.bySL[pr.sl] = nil
}

// vlsReached returns the VLs the previous SL2VL tables put packets of the
// SLs in use on, on any switch, in port and out port that has a cable.
func (m *match) vlsReached(tabs []switchSL2VL, slUsed *[16]bool) *[16]bool {
	var used [16]bool
	used[0] = true
	for s := range m.switches {
		for _, tab := range tabs[s].tables {
			for out := 1; out*16 < len(tab); out++ {
				if m.back[s][out] < 0 {
					continue
				}
				for sl, vl := range tab[out*16 : out*16+16] {
					if slUsed[sl] {
						used[vl&15] = true
					}
				}
			}
		}
	}
	return &used
}
