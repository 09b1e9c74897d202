package layers

import (
	"cmp"
	"slices"
)

// Unloading the hot channels of regrown layers (unless Options.NoRegrow).
//
// A regrown tree that leaves a cable alone delivering in a layer sends the
// whole tree's routes of that layer over it, and the balancing pass, which
// moves one switch at a time and may not cost a pair a path, cannot take
// the other destinations' transit routes off that cable: a switch moved
// off it usually needs a neighbour to move as well for its paths to stay
// disjoint. unload makes those moves, in the regrower's trees (growTree:
// disjointness in O(1) per switch): for every channel of a layer ≥ 1
// above unloadTarget × the layer's mean, hottest first, the trees that
// cross it offer
//
//   - a switch behind the channel taking another next switch, or
//   - the same after one of its neighbours has taken another next switch
//     (the move of two switches),
//
// and the best move that takes routes off the channel is made if no
// channel it loads ends above the target (or above the busiest channel
// over all layers), the switches whose routes it changes keep, summed
// over their pairs, as many disjoint paths as before, and it saves more
// load cost (regrow's, overlaps included: lapWeight) than it adds. A
// tree whose moves leave more of its pairs short of three paths than
// before is put back. A second phase does the same for the channels whose
// load over all layers is above totalTarget × its mean, with that as the
// cap over all layers. The moves are tried in switch and port order and
// the pass is sequential: the tables are the same on any number of
// cores.

const (
	// unloadTarget is the load, over its layer's mean, that the pass
	// brings a channel down to where it can: under issue 15's 1.3, and
	// above balance's 1.25 (the channels balance fills to its target are
	// room left for these moves).
	unloadTarget permille = 1290
	// totalTarget is the load over all layers, over its mean, that the
	// second phase brings channels down to where it can (all-to-all
	// traffic, which splits every flow over the layers, loads a channel
	// by that sum). 1.13 since the Slim Flies route under their shears:
	// with 1.15 q = 11's regrown layers ended at 1.135 × the mean (the
	// construction alone at 1.117; all-to-all 1.554 against 1.528);
	// 1.10 took more overlaps' room (random permutations 3.785 against
	// 3.695).
	totalTarget permille = 1130
	// unloadRounds bounds the sweeps over the hot channels of a phase; a
	// sweep that moves nothing ends it.
	unloadRounds = 5
)

// unload moves routes of layers ≥ 1 off their hot channels (see above),
// then, if unlap, takes overlaps off them (unlap.go), weighing led's
// loads and keeping them current. The caller has checked regrowApplies.
func unload(g *graph, r *Routing, seed uint64, unlap bool, led *ledger) {
	rg := newRegrower(g, r, seed, led)
	for i := range rg.nbIdx {
		rg.nbIdx[i] = -1
	}
	for k := 1; k < r.layers; k++ {
		rg.target[k] = mulDiv(slackTarget(rg.layer[k]), int64(unloadTarget), int64(balanceSlack))
	}
	rg.capTotal = slices.Max(rg.total)
	for round, moved := 0, true; round < unloadRounds && moved; round++ {
		moved = false
		for k := 1; k < r.layers; k++ {
			for _, c := range hotChannels(rg.layer[k], rg.target[k]) {
				moved = rg.unloadChannel(k, c, func() bool { return rg.layer[k][c] > rg.target[k] }) || moved
			}
		}
	}
	var sum int64
	for _, v := range rg.total {
		sum += v
	}
	rg.capTotal = min(rg.capTotal, mulDiv(sum, int64(totalTarget), 1000*int64(len(rg.total))))
	for round, moved := 0, true; round < unloadRounds && moved; round++ {
		moved = false
		for _, c := range hotChannels(rg.total, rg.capTotal) {
			for k := 1; k < r.layers; k++ {
				moved = rg.unloadChannel(k, c, func() bool { return rg.total[c] > rg.capTotal }) || moved
			}
		}
	}
	if unlap {
		// taking overlaps off may not raise the busiest channel over all
		// layers (what all-to-all traffic sees), even where it is below
		// the cap of the second phase
		rg.capTotal = min(rg.capTotal, slices.Max(rg.total))
		rg.unlap()
	}
}

// hotChannels lists the channels whose load is above limit, hottest
// first (ties in channel order).
func hotChannels(load []int64, limit int64) []int32 {
	var out []int32
	for c, v := range load {
		if v > limit {
			out = append(out, int32(c))
		}
	}
	slices.SortStableFunc(out, func(x, y int32) int { return cmp.Compare(load[y], load[x]) })
	return out
}

// unloadChannel moves layer k's routes off channel c, tree by tree, while
// it is above the target, and reports whether it moved any.
func (rg *regrower) unloadChannel(k int, c int32, over func() bool) (moved bool) {
	g, S := rg.g, len(rg.g.adj)
	u := int32(g.tail(int(c)))
	h := g.peer[c]
	for d := 0; d < g.nEP && over(); d++ {
		if rg.r.share[d] != d || !g.searched(d) || g.dests[d].Switch == int(u) || g.peer[g.chOff[u]+int(rg.r.next[k][d*S+int(u)])] != h {
			continue
		}
		moved = rg.rework(d, func(gt *growTree) (changed bool) {
			for over() && gt.par[k][u] == h && rg.bestMove(gt, k, c) {
				changed = true
			}
			return changed
		}) || moved
	}
	return moved
}

// rework reads endpoint d's tree into rg.cur, with its colouring fixed,
// lets change change it, and writes it to the tables if it changed and
// leaves no more pairs short than before; otherwise the tree stays as it
// was. It reports whether the tables changed.
func (rg *regrower) rework(d int, change func(gt *growTree) bool) bool {
	gt := &rg.cur
	rg.focus(rg.g.dests[d].Switch)
	rg.read(gt, d)
	rg.fixDeliverers(gt)
	before := gt.short(rg.want())
	if !change(gt) {
		return false
	}
	if gt.short(rg.want()) <= before {
		rg.write(gt)
		return true
	}
	rg.addTree(gt, -1) // back to the tables
	rg.read(gt, d)
	rg.addTree(gt, 1)
	return false
}

// focus sets the distances to destination switch t.
func (rg *regrower) focus(t int) {
	rg.order = rg.g.bfs(t, rg.dist, rg.order)
}

// fixDeliverers fixes, in layers ≥ 1, the neighbours of t that deliver:
// the tree's colouring stays.
func (rg *regrower) fixDeliverers(gt *growTree) {
	for k := 1; k < len(gt.par); k++ {
		for s, p := range gt.par[k] {
			gt.fixed[k][s] = s == gt.t || int(p) == gt.t
		}
	}
}

// unloadMove is a candidate: v takes next switch to, after y (when ≥ 0)
// took next switch m.
type unloadMove struct {
	v, to, y, m int32
	gain        cost
}

// bestMove makes the best qualifying move of gt's layer k that takes
// routes off channel c, and reports whether there was one.
func (rg *regrower) bestMove(gt *growTree, k int, c int32) bool {
	g := rg.g
	u := int32(g.tail(int(c)))
	best := unloadMove{v: -1}
	behind := gt.lay[k].subtree(u, nil)
	for _, v := range behind {
		for _, to := range g.peer[g.chOff[v]:g.chOff[v+1]] {
			if gain, ok := rg.tryMove(gt, k, c, unloadMove{v: v, to: to, y: -1}); ok && gain > best.gain {
				best = unloadMove{v, to, -1, -1, gain}
			}
			if to == gt.par[k][v] || int(to) == gt.t {
				continue
			}
			for _, m := range g.peer[g.chOff[to]:g.chOff[to+1]] {
				mv := unloadMove{v: v, to: to, y: to, m: m}
				if gain, ok := rg.tryMove(gt, k, c, mv); ok && gain > best.gain {
					best = mv
					best.gain = gain
				}
			}
		}
	}
	if best.v < 0 {
		return false
	}
	rg.doMove(gt, k, best)
	return true
}

// tryMove makes mv in the tree, judges it and undoes it, the loads left
// as they are (the first switch's change of a two-switch move is pending
// while the second is judged): its gain is the load cost it saves; ok
// when it takes routes off c, loads no channel above the target and
// costs no disjoint path.
func (rg *regrower) tryMove(gt *growTree, k int, c int32, mv unloadMove) (cost, bool) {
	oldV, oldY := gt.par[k][mv.v], int32(-1)
	var gain cost
	paths := 0
	if mv.y >= 0 {
		oldY = gt.par[k][mv.y]
		if oldY == mv.m || mv.m == mv.v {
			return 0, false
		}
		p, price, ok := rg.unloadStepTree(gt, k, int(mv.y), mv.m)
		if !ok {
			return 0, false
		}
		rg.pending = append(rg.pending[:0], rg.deltas...)
		q, price2, ok := rg.unloadStepTree(gt, k, int(mv.v), mv.to)
		rg.pending = append(rg.pending, rg.deltas...)
		if !ok {
			rg.pending = rg.pending[:0]
			rg.unstep(gt, k, int(mv.y), oldY)
			return 0, false
		}
		gain, paths = -price-price2, p+q
	} else {
		p, price, ok := rg.unloadStepTree(gt, k, int(mv.v), mv.to)
		if !ok {
			return 0, false
		}
		rg.pending = append(rg.pending[:0], rg.deltas...)
		gain, paths = -price, p
	}
	onC := rg.pend(int32(rg.g.chanRep(int(c))))
	rg.pending = rg.pending[:0]
	rg.unstep(gt, k, int(mv.v), oldV)
	if mv.y >= 0 {
		rg.unstep(gt, k, int(mv.y), oldY)
	}
	return gain, onC < 0 && paths >= 0 && gain > 0
}

// pend returns the pending change of channel c's load (c an orbit's
// channel, as deltas key them).
func (rg *regrower) pend(c int32) int64 {
	var v int64
	for _, d := range rg.pending {
		if d.c == c {
			v += d.v
		}
	}
	return v
}

// doMove makes mv; it returns the load cost saved, the disjoint paths
// gained, and false (having made nothing) when the tree or the target
// does not allow it.
func (rg *regrower) doMove(gt *growTree, k int, mv unloadMove) (gain cost, paths int, ok bool) {
	if mv.y >= 0 {
		oldY := gt.par[k][mv.y]
		p, cost, ok := rg.unloadStep(gt, k, int(mv.y), mv.m)
		if !ok {
			return 0, 0, false
		}
		q, cost2, ok := rg.unloadStep(gt, k, int(mv.v), mv.to)
		if !ok {
			rg.undo(gt, k, int(mv.y), oldY)
			return 0, 0, false
		}
		return -cost - cost2, p + q, true
	}
	p, cost, ok := rg.unloadStep(gt, k, int(mv.v), mv.to)
	return -cost, p, ok
}

// unloadStep makes u v's next switch in layer k if the tree allows it
// and no channel it loads ends above the target or the cap; it returns
// the disjoint paths gained behind v and the load cost.
func (rg *regrower) unloadStep(gt *growTree, k, v int, u int32) (paths int, price cost, ok bool) {
	paths, price, ok = rg.unloadStepTree(gt, k, v, u)
	if ok {
		rg.shiftLoads(k)
	}
	return paths, price, ok
}

// unloadStepTree is unloadStep in the tree only: the loads (with the
// pending changes) are read, not moved; rg.deltas holds the change.
func (rg *regrower) unloadStepTree(gt *growTree, k, v int, u int32) (paths int, price cost, ok bool) {
	if v == gt.t || gt.fixed[k][v] || !rg.canMove(gt, k, v, u) {
		return 0, 0, false
	}
	rg.shiftDeltas(gt, k, v, u)
	for _, d := range rg.deltas {
		p := rg.pend(d.c)
		if d.v > 0 && (rg.layer[k][d.c]+p+d.v > rg.target[k] || rg.total[d.c]+p+d.v > rg.capTotal) {
			return 0, 0, false
		}
	}
	price, _ = rg.price(k)
	paths, laps := rg.relinkRescored(gt, k, v, u)
	return paths, price + cost(lapWeight*laps)*pathUnit, true
}
