package repair

import (
	"cmp"
	"fmt"
	"slices"

	"slimroute/lft"
)

// Switch states toward one destination LID.
const (
	unknown  uint8 = iota
	walking        // on the walk being followed
	intact         // its previous path still reaches the destination
	broken         // its previous path crossed what is gone
	repaired       // given a new next hop
	unusable       // its previous path leads nowhere (a drop, a loop)
)

// rerouter gives new next hops to the switches whose routes toward a LID
// broke. It works on the new tables' LFT rows in place and keeps, per
// channel, how many LIDs are routed over it (for tie-breaking), counted
// only for the switches it reroutes.
type rerouter struct {
	m    *match
	rows [][]uint8 // per switch index: the LFT being built
	// scratch, per switch index, reset per LID
	state []uint8
	dist  []int32 // hops to the destination switch (intact, repaired) or the best offer so far (broken)
	stack []int32
	brk   []int32 // the broken switches of the current LID
	queue [][]int32
	cands []int32
	group []int32
	sls   []uint8
	chs   []int32
	old   []int32 // scratch of oldChannels
	sib   []int32 // channels of the routes to the sibling LIDs (siblingChannels)
	sibAt []int   // where each sibling route's channels end in sib
	share []int32 // per port of the switch being repaired: channels shared with sib
	// mending (Options.Mend): the pairs whose routes broke
	mending bool
	touched []touched
	// held, per switch index: its choice was put off to the end of its
	// hop count's turn once (grow)
	held []bool
	// wide: the switch graph is designed with diameter 2
	// (layers.DesignedDiameter2), so routes of LID offsets ≥ 1 may take
	// three hops whatever the fewest (found on first use: wideKnown)
	wide, wideKnown bool
	// the path-SL rows of each switch's HCAs, the SLs they use before the
	// repair, and the spare (SL, VL) pairs
	slRows [][]*slRow
	slUsed *[16]bool
	esc    *escapes
	load   [][]int32 // per switch index and port; nil until needed
	// restore: give back base's routes that are whole again (restoreLID);
	// whole: its scratch
	restore bool
	fourOn  bool // the four-hop rule is on (fourHops)
	whole   []int8
	up      []int32
	lids    *lft.LIDs // the new LID plan
}

func newRerouter(m *match, rows [][]uint8, slRows [][]*slRow, sl2vl []switchSL2VL, vls int) *rerouter {
	S := len(m.switches)
	return &rerouter{m: m, rows: rows, slRows: slRows, esc: &escapes{m: m, vls: vls, sl2vl: sl2vl},
		state: make([]uint8, S), dist: make([]int32, S), load: make([][]int32, S), held: make([]bool, S)}
}

// root returns the switch index a LID's packets leave the fabric at and
// the port they leave on (0: the switch's own LID), or ok false when the
// LID's port hangs off no switch.
func (r *rerouter) root(lids *lft.LIDs, lid lft.LID) (int32, uint8, bool) {
	pl, _, ok := lids.Owner(lid)
	if !ok {
		return 0, 0, false
	}
	if pl.Port.Port == 0 {
		return r.m.index[pl.Port.Node], 0, true
	}
	peer, ok := r.m.f.Peer(pl.Port)
	if !ok || r.m.index[peer.Node] < 0 {
		return 0, 0, false
	}
	return r.m.index[peer.Node], uint8(peer.Port), true
}

// step returns the switch the previous route of switch s leaves port p
// toward, if that cable is still the same and leads to a switch.
func (r *rerouter) step(s int32, p uint8) (int32, bool) {
	if p == 0 || int(p) >= len(r.m.nbr[s]) || !r.m.same[s][p] {
		return 0, false
	}
	n := r.m.nbr[s][p]
	return n, n >= 0
}

// classify marks broken the switches whose previous route toward lid
// crossed what is gone: the seeds, whose own entry names a port whose
// cable is gone or different, and every switch whose route leads into a
// broken one. A switch's next hop is a neighbour, so the search goes
// upstream from the seeds over the new fabric's cables (a switch that
// pointed over a gone cable is a seed itself); it reads the entries of
// the broken switches' neighbours only, not every switch's. The other
// switches are intact; their hop counts are found when needed (reach).
func (r *rerouter) classify(lid lft.LID, root int32, rootPort uint8, seeds []int32) {
	clear(r.state)
	r.brk = r.brk[:0]
	r.state[root], r.dist[root] = intact, 0
	r.rows[root][lid] = rootPort
	for _, s := range seeds {
		if s != root && r.state[s] != broken {
			r.state[s] = broken
			r.brk = append(r.brk, s)
		}
	}
	for i := 0; i < len(r.brk); i++ {
		x := r.brk[i]
		for _, y := range r.m.nbr[x] {
			if y < 0 || r.state[y] != unknown {
				continue
			}
			if n, ok := r.step(y, r.rows[y][lid]); ok && n == x {
				r.state[y] = broken
				r.brk = append(r.brk, y)
			}
		}
	}
	slices.Sort(r.brk)
}

// usable says whether switch n has a route to lid a broken switch may
// join: intact or repaired. An intact switch's hop count is found on first
// use by following its route (memoised); a route that meets a drop, a
// loop or a port leading to no switch short of the destination is not
// usable.
func (r *rerouter) usable(n int32, lid lft.LID) bool {
	if r.state[n] == unknown {
		r.reach(n, lid)
	}
	return r.state[n] == intact || r.state[n] == repaired
}

func (r *rerouter) reach(n int32, lid lft.LID) {
	r.stack = r.stack[:0]
	cur := n
	for r.state[cur] == unknown {
		r.state[cur] = walking
		r.stack = append(r.stack, cur)
		next, ok := r.step(cur, r.rows[cur][lid])
		if !ok {
			break
		}
		cur = next
	}
	good, d := r.state[cur] == intact, r.dist[cur]
	for i := len(r.stack) - 1; i >= 0; i-- {
		w := r.stack[i]
		r.state[w] = unusable
		if good {
			d++
			r.state[w], r.dist[w] = intact, d
		}
	}
}

// grow gives every broken switch a new next hop, growing outward from the
// intact switches as a multi-source breadth-first search on the new
// fabric (a bucket queue by hop count, since the intact switches start at
// different distances): a broken switch takes a neighbour, over a cable
// of the new fabric, that already has an intact or repaired route, with
// the fewest resulting hops; among those the channel with the fewest LIDs
// routed over it, then the lowest port. Each switch points to one that is
// one hop closer and already reaches the destination, so the routes to
// lid stay a tree and cannot loop. choose picks among the neighbours and
// sets the path SLs. At a LID offset ≥ 1 a switch that no neighbour
// repaired so far gives disjoint routes (satisfied), while a broken
// neighbour will be repaired at the same hop count, chooses once the
// others of that hop count have: their routes are one hop longer options
// (Slim Fly q = 5 and 7, chains of 8 cables: up to 0.75 points more pairs
// with three disjoint paths, docs/quality.md).
func (r *rerouter) grow(lid lft.LID, slRows [][]*slRow, st *Stats) error {
	const inf = int32(1 << 30)
	for _, b := range r.brk {
		r.dist[b] = inf
		for _, n := range r.m.nbr[b] {
			if n >= 0 && r.state[n] != repaired && r.usable(n, lid) {
				r.dist[b] = min(r.dist[b], r.dist[n]+1)
			}
		}
		r.push(b, r.dist[b])
	}
	own, off, _ := r.lids.Owner(lid)
	hold := off > 0 && own.Base != 0 && own.Port.Port != 0 && own.LMC <= 3
	defer func() {
		for _, b := range r.brk {
			r.held[b] = false
		}
	}()
	for d := 0; d < len(r.queue); d++ {
		bucket := r.queue[d]
		slices.Sort(bucket)
		for i := 0; i < len(bucket); i++ {
			b := bucket[i]
			if r.state[b] != broken || r.dist[b] != int32(d) {
				continue
			}
			if hold && !r.held[b] && r.waitFor(b, int32(d)) && !r.satisfied(b, lid, own) {
				r.held[b] = true
				bucket = append(bucket, b)
				continue
			}
			if err := r.choose(b, lid, slRows[b], st); err != nil {
				return err
			}
			for _, n := range r.m.nbr[b] {
				if n >= 0 && r.state[n] == broken && r.dist[n] > r.dist[b]+1 {
					r.dist[n] = r.dist[b] + 1
					r.push(n, r.dist[n])
				}
			}
		}
		r.queue[d] = bucket[:0]
	}
	for _, b := range r.brk {
		if r.state[b] != repaired {
			return fmt.Errorf("%s has no path to LID 0x%04x in the new fabric: the switches are split", r.m.f.Name(r.m.switches[b]), lid)
		}
	}
	return nil
}

func (r *rerouter) push(s, d int32) {
	if d >= int32(len(r.m.switches)) {
		return // unreachable: no switch is that far
	}
	for int(d) >= len(r.queue) {
		r.queue = append(r.queue, nil)
	}
	r.queue[d] = append(r.queue[d], s)
}

// choose gives broken switch b a next hop toward lid among its
// neighbours that already reach it (intact or repaired: none of their
// routes passes b, so no loop can form) and sets the path SLs of b's
// HCAs. The route must get increasing VLs under the kept SL2VL tables
// (fitSLs); among the neighbours that give one it prefers the fewest
// resulting hops (at a LID offset ≥ 1, up to one more, within 3), then —
// within those hops — the route sharing the fewest channels with b's
// routes to the destination's other LIDs (its other layers: the pair
// keeps its disjoint paths), then keeping the previous SLs, then fewer
// hops, then the channel with the fewest LIDs routed over it, then the
// lowest port. (Keeping the SLs before sharing fewer channels changed
// less than half the path SLs, and left Slim Fly q = 5 4.6 points fewer
// pairs with three disjoint paths after 8 cables: docs/quality.md.) A
// route no SL in use fits goes on a spare pair (on DFSSSP's tables: one
// of its layers), the fewest hops first, then again the fewest channels
// shared with the pair's other routes, the least loaded, the lowest port
// (ordered by load alone, a three-level fat tree's chain of failures
// ended 3.8 points under a full recompute: TestChainOfRepairsAgainstAFullRecompute).
func (r *rerouter) choose(b int32, lid lft.LID, rows []*slRow, st *Stats) error {
	load := r.loadOf(b)
	cands := r.cands[:0]
	for p, n := range r.m.nbr[b] {
		if n >= 0 && r.usable(n, lid) {
			cands = append(cands, int32(p))
		}
	}
	r.cands = cands
	hops := func(p int32) int32 { return r.dist[r.m.nbr[b][p]] + 1 }
	old := r.rows[b][lid]
	// groups of candidates by resulting hops, fewest first; each group in
	// (shared channels, hops, load, port) order. At a LID offset ≥ 1 (an
	// almost-minimal layer) the first group also takes the routes one hop
	// longer than the fewest, as the layer's own search would (on a
	// fabric designed with diameter 2: any of up to three hops, the
	// lengths its layers ≥ 1 take), up to 3 hops (longer ones would not
	// fit the three VLs of the hop-indexed scheme and take the spare
	// SLs, which a later repair may need).
	own, off, _ := r.lids.Owner(lid)
	extra := int32(0)
	if off > 0 {
		extra = 1
		if r.diameter2() {
			extra = 2
		}
	}
	sibs := false // r.sib holds b's sibling channels
	if len(r.share) < len(r.m.nbr[b]) {
		r.share = make([]int32, len(r.m.nbr[b]))
	}
	group := r.group[:0]
	for last := int32(-1); ; {
		h := int32(1 << 30)
		for _, p := range cands {
			if hp := hops(p); hp > last && hp < h {
				h = hp
			}
		}
		if h == 1<<30 {
			break
		}
		group = group[:0]
		for _, p := range cands {
			if hp := hops(p); hp == h || hp > h && hp <= h+extra && hp <= 3 {
				group = append(group, p)
			}
		}
		if len(group) > 1 && !sibs {
			r.siblingChannels(b, lid, own)
			sibs = true
		}
		for _, p := range group {
			r.share[p] = 0
			if len(group) > 1 {
				r.share[p] = r.shared(b, p, lid)
			}
		}
		slices.SortFunc(group, func(x, y int32) int {
			return cmp.Or(cmp.Compare(r.share[x], r.share[y]), cmp.Compare(hops(x), hops(y)), cmp.Compare(load[x], load[y]), cmp.Compare(x, y))
		})
		// the fewest shared channels first; among routes sharing as many,
		// one that keeps the previous SLs
		for i, j := 0, 0; i < len(group); i = j {
			for j = i + 1; j < len(group) && r.share[group[j]] == r.share[group[i]]; j++ {
			}
			for _, keep := range []bool{true, false} {
				for _, p := range group[i:j] {
					r.rows[b][lid] = uint8(p)
					if sls, ok := r.fitSLs(b, lid, rows, keep); ok {
						r.commit(b, lid, old, p, rows, sls, st)
						return nil
					}
				}
			}
		}
		last, extra = max(h, min(h+extra, 3)), 0
	}
	r.group = group
	r.forPairs(b, lid, own, cands, load, sibs)
	if len(cands) == 0 {
		r.rows[b][lid] = old
		return fmt.Errorf("%s has no neighbour that reaches LID 0x%04x", r.m.f.Name(r.m.switches[b]), lid)
	}
	// every candidate on the pairs open so far before a new pair
	for _, open := range []bool{false, true} {
		if len(rows) == 0 {
			break // no path SL to give: nothing to place
		}
		if r.placeOnPair(b, lid, old, cands, rows, open, st) {
			return nil
		}
	}
	if r.fourHops() {
		st.FourHops = true
		r.rows[b][lid] = old
		return r.choose(b, lid, rows, st)
	}
	r.rows[b][lid] = uint8(cands[0])
	return r.noSLError(b, lid)
}

// forPairs orders b's candidates for a spare pair: the fewest hops, then
// the fewest channels shared with b's routes to the other LIDs of lid's
// port own (collected in r.sib unless sibs says they are), the least
// loaded, the lowest port.
func (r *rerouter) forPairs(b int32, lid lft.LID, own lft.PortLIDs, cands, load []int32, sibs bool) {
	if len(cands) > 1 && !sibs {
		r.siblingChannels(b, lid, own)
	}
	for _, p := range cands {
		r.share[p] = 0
		if len(cands) > 1 {
			r.share[p] = r.shared(b, p, lid)
		}
	}
	hops := func(p int32) int32 { return r.dist[r.m.nbr[b][p]] + 1 }
	slices.SortFunc(cands, func(x, y int32) int {
		return cmp.Or(cmp.Compare(hops(x), hops(y)), cmp.Compare(r.share[x], r.share[y]), cmp.Compare(load[x], load[y]), cmp.Compare(x, y))
	})
}

// placeOnPair gives the first of cands whose route a spare pair takes
// (opening one if open) to lid at b, on that pair's SL, and reports
// whether one did.
func (r *rerouter) placeOnPair(b int32, lid lft.LID, old uint8, cands []int32, rows []*slRow, open bool, st *Stats) bool {
	for _, p := range cands {
		r.rows[b][lid] = uint8(p)
		if pr, ok := r.esc.place(r.channels(b, lid), r.slsInUse, open); ok {
			st.Escaped++
			sls := r.sls[:0]
			for range rows {
				sls = append(sls, pr.sl)
			}
			r.commit(b, lid, old, p, rows, sls, st)
			return true
		}
	}
	return false
}

// channels lists the switch-to-switch channels of the new route from src
// to lid.
func (r *rerouter) channels(src int32, lid lft.LID) []int32 {
	chs := r.chs[:0]
	for s := src; s >= 0 && !r.isRoot(s) && len(chs) <= len(r.m.switches); s = r.next(s, lid) {
		chs = append(chs, channel(s, int(r.rows[s][lid])))
	}
	r.chs = chs
	return chs
}

// next returns the switch after s on the new route to lid, -1 if none.
func (r *rerouter) next(s int32, lid lft.LID) int32 {
	p := r.rows[s][lid]
	if int(p) >= len(r.m.nbr[s]) {
		return -1
	}
	return r.m.nbr[s][p]
}

// slsInUse returns the SLs the previous tables give any path (and SL 0)
// but for the pairs' SLs, found on first use: only these may be picked
// for a new route under the kept SL2VL tables.
func (r *rerouter) slsInUse() *[16]bool {
	if r.slUsed == nil {
		used := r.pathSLs()
		for _, pr := range r.esc.pairs {
			used[pr.sl] = false // only routes on the pair carry it
		}
		r.slUsed = &used
	}
	return r.slUsed
}

// pathSLs returns the SLs the carried path-SL rows hold, and SL 0.
func (r *rerouter) pathSLs() [16]bool {
	var used [16]bool
	used[0] = true
	for _, rows := range r.slRows {
		for _, row := range rows {
			for _, sl := range row.sl {
				used[sl&15] = true
			}
		}
	}
	return used
}

// commit makes port p broken switch b's next hop toward lid, with path
// SLs sls for its rows, and counts what changed.
func (r *rerouter) commit(b int32, lid lft.LID, old uint8, p int32, rows []*slRow, sls []uint8, st *Stats) {
	load := r.load[b]
	if int(old) < len(load) {
		load[old]--
	}
	load[p]++
	r.rows[b][lid] = uint8(p)
	r.state[b], r.dist[b] = repaired, r.dist[r.m.nbr[b][p]]+1
	if old != uint8(p) {
		st.Changed++
	}
	for i, row := range rows {
		st.Paths++
		if row.sl[lid] != sls[i] {
			row.sl[lid] = sls[i]
			st.PathSLs++
		}
	}
}

// loadOf returns how many LIDs switch s routes over each of its ports,
// counted from its table on first use.
func (r *rerouter) loadOf(s int32) []int32 {
	if r.load[s] == nil {
		l := make([]int32, len(r.m.nbr[s]))
		for _, p := range r.rows[s] {
			if int(p) < len(l) {
				l[p]++
			}
		}
		r.load[s] = l
	}
	return r.load[s]
}

// siblingChannels collects in r.sib the channels of b's routes to the
// other LIDs of lid's port own (its LID offsets under LMC: the other
// layers; none for a switch's single LID).
func (r *rerouter) siblingChannels(b int32, lid lft.LID, own lft.PortLIDs) {
	r.sib, r.sibAt = r.sib[:0], r.sibAt[:0]
	if own.Base == 0 {
		return // a LID no port holds
	}
	for l := own.Base; l <= own.Top(); l++ {
		if l != lid {
			r.walk(b, l, func(ch int32) { r.sib = append(r.sib, ch) })
			r.sibAt = append(r.sibAt, len(r.sib))
		}
	}
}

// shared counts the channels of b's route to lid over port p, as it would
// be, that b's routes to the sibling LIDs use.
func (r *rerouter) shared(b, p int32, lid lft.LID) int32 {
	n := int32(0)
	if slices.Contains(r.sib, channel(b, int(p))) {
		n++
	}
	r.walk(r.m.nbr[b][p], lid, func(ch int32) {
		if slices.Contains(r.sib, ch) {
			n++
		}
	})
	return n
}

// walk calls fn with each switch-to-switch channel of the route from
// switch s to lid in the tables being built, as far as it leads (at most
// one channel per switch).
func (r *rerouter) walk(s int32, lid lft.LID, fn func(ch int32)) {
	for i := 0; s >= 0 && i < len(r.m.switches); i++ {
		p := int(r.rows[s][lid])
		if p >= len(r.m.nbr[s]) || r.m.nbr[s][p] < 0 {
			return
		}
		fn(channel(s, p))
		s = r.m.nbr[s][p]
	}
}

// oldChannels lists the switch-to-switch channels of the route from s to
// lid in the tables as they are (before lid's repair), in a scratch slice.
func (r *rerouter) oldChannels(s int32, lid lft.LID) []int32 {
	chs := r.old[:0]
	r.walk(s, lid, func(ch int32) { chs = append(chs, ch) })
	r.old = chs
	return chs
}
