package layers

import "slices"

// The moves of the traffic pass (traffic.go).

// trafficMove gives switch x the channel e as next hop; with via ≥ 0 the
// switch y that e leads to takes channel via first (x then goes over y
// and y's new next switch: a route two switches of the tree make).
type trafficMove struct {
	x, e, via int
}

// improveTree moves next hops of destination d's tree in layer k while a
// move lowers the cost, switch by switch; it returns the moves.
func (tp *trafficPass) improveTree(k, d int) int {
	g := tp.g
	tp.order = g.bfs(g.dests[d].Switch, tp.dist, tp.order)
	tp.readTree(k, d)
	tp.readOthers(k, d)
	moves := 0
	for x := range g.adj {
		if x == g.dests[d].Switch || !slices.ContainsFunc(tp.through[x], func(v int64) bool { return v != 0 }) {
			continue
		}
		if mv, lost, ok := tp.bestMove(k, d, x); ok && tp.make(k, d, mv, lost) {
			moves++
		}
	}
	return moves
}

// bestMove returns x's move toward d in layer k that lowers the cost
// most and keeps the rules, if any: a new next switch with its route as
// it is, or, where none lowers the cost, a new next switch y that takes
// a new next switch itself; and the pairs it takes below keepPaths
// (allowed).
func (tp *trafficPass) bestMove(k, d, x int) (found trafficMove, lost int, ok bool) {
	g := tp.g
	behindX := tp.lazyBehind(k, d, x)
	best := int64(0)
	cur := int(tp.r.entry(k, x, d))
	for e := range g.adj[x] {
		if e == cur {
			continue
		}
		mv, l := trafficMove{x: x, e: e, via: -1}, 0
		if gain := tp.trial(mv); gain < best && tp.allowed(k, d, mv, behindX(), &l) {
			best, found, lost = gain, mv, l
		}
	}
	if best < 0 || tp.trials > trafficTrials/2 {
		return found, lost, best < 0
	}
	for e, c := range g.adj[x] {
		y := c.Peer
		if e == cur || y == g.dests[d].Switch || slices.Contains(tp.via[x], int32(y)) || slices.Contains(tp.via[y], int32(x)) {
			continue // (y on x's route or behind it: their traffic would mix)
		}
		behindY := tp.lazyBehind(k, d, y)
		yCur := int(tp.r.entry(k, y, d))
		for f := range g.adj[y] {
			mv, l := trafficMove{x: x, e: e, via: f}, 0
			if f == yCur || g.adj[y][f].Peer == x {
				continue
			}
			if gain := tp.trial(mv); gain < best && tp.allowed(k, d, mv, behindX(), &l) && tp.allowed(k, d, trafficMove{x: y, e: f, via: -1}, behindY(), &l) {
				best, found, lost = gain, mv, l
			}
		}
	}
	return found, lost, best < 0
}

// lazyBehind returns behind(k, d, x), computed on first call.
func (tp *trafficPass) lazyBehind(k, d, x int) func() []behindSwitch {
	var b []behindSwitch
	done := false
	return func() []behindSwitch {
		if !done {
			b, done = tp.behind(k, d, x), true
		}
		return b
	}
}

// shifts lists what a move does to the jobs' loads: each switch it gives
// a new next hop takes the traffic through it off its old route and onto
// its new one. The result and its routes are scratch, valid until the
// next call.
func (tp *trafficPass) shifts(mv trafficMove) []shift {
	g := tp.g
	y := g.adj[mv.x][mv.e].Peer
	xNew := append(tp.routeBuf[:0], int32(g.chOff[mv.x]+mv.e))
	if mv.via >= 0 {
		xNew = append(xNew, int32(g.chOff[y]+mv.via))
		xNew = append(xNew, tp.path[g.adj[y][mv.via].Peer]...)
	} else {
		xNew = append(xNew, tp.path[y]...)
	}
	tp.routeBuf = xNew
	out := append(tp.shiftBuf[:0], shift{tp.path[mv.x], tp.through[mv.x], -1}, shift{xNew, tp.through[mv.x], 1})
	if mv.via >= 0 {
		out = append(out, shift{tp.path[y], tp.through[y], -1}, shift{xNew[1:], tp.through[y], 1})
	}
	tp.shiftBuf = out
	return out
}

// shift adds sign × w (per job) to the channels chs.
type shift struct {
	chs  []int32
	w    []int64
	sign int64
}

// newRoute returns the channels of the route the switch x's move leads
// to, after x's own hop: y's route, or y's new hop and its next switch's.
func (tp *trafficPass) newRoute(mv trafficMove) []int32 {
	g := tp.g
	y := g.adj[mv.x][mv.e].Peer
	if mv.via < 0 {
		return tp.path[y]
	}
	m := g.adj[y][mv.via].Peer
	return append([]int32{int32(g.chOff[y] + mv.via)}, tp.path[m]...)
}

// trial returns what move mv changes the cost by: on each channel it
// touches, with δ the change of the jobs' loads there and l the loads,
// Σ_i δ_i (2 Σ_j κ_ij l_j + Σ_j κ_ij δ_j), plus sharePenalty for each
// pair of jobs apart that comes to share it (less for each that stops).
func (tp *trafficPass) trial(mv trafficMove) int64 {
	tp.trials++
	J := tp.J
	chs, ds := tp.trialChs[:0], tp.trialDs[:0]
	for _, s := range tp.shifts(mv) {
		for _, ch := range s.chs {
			i := slices.Index(chs, ch)
			if i < 0 {
				i = len(chs)
				chs = append(chs, ch)
				ds = append(ds, make([]int64, J)...)
			}
			for j, w := range s.w {
				ds[i*J+j] += s.sign * w
			}
		}
	}
	tp.trialChs, tp.trialDs = chs, ds
	var c int64
	for i, ch := range chs {
		c += tp.channelDelta(ch, ds[i*J:(i+1)*J])
	}
	return c
}

// channelDelta is trial's sum on channel ch, δ its change per job.
func (tp *trafficPass) channelDelta(ch int32, δ []int64) int64 {
	var c int64
	for i, di := range δ {
		if di == 0 {
			continue
		}
		row := tp.kappa[i*tp.J : (i+1)*tp.J]
		var lin, quad int64
		for j, k := range row {
			lin += k * tp.load[j][ch]
			quad += k * δ[j]
		}
		c += di * (2*lin + quad)
	}
	if tp.sharePenalty > 0 {
		c += tp.sharePenalty * tp.apartChange(ch, δ)
	}
	if tp.peak > 0 { // shaving
		sum, change := tp.total(int(ch)), int64(0)
		for _, di := range δ {
			change += di
		}
		c += peakWeight * (overPeak(sum+change, tp.peak) - overPeak(sum, tp.peak))
	}
	return c
}

// overPeak is the square of how far load is above peak.
func overPeak(load, peak int64) int64 {
	if load <= peak {
		return 0
	}
	return (load - peak) * (load - peak)
}

// make carries out move mv on destination d's tree in layer k, unless it
// would raise some job's contention factor above what it was before the
// pass (tp.before): then it leaves everything as it was and reports
// false. lost is the pairs it takes below keepPaths disjoint routes.
func (tp *trafficPass) make(k, d int, mv trafficMove, lost int) bool {
	g, S := tp.g, len(tp.g.adj)
	sh := tp.shifts(mv)
	for _, s := range sh {
		tp.apply(s.chs, s.w, s.sign)
	}
	if tp.raisesAFactor() {
		for _, s := range sh {
			tp.apply(s.chs, s.w, -s.sign)
		}
		return false
	}
	tp.lost += lost
	row := tp.r.next[k][d*S : (d+1)*S]
	if _, ok := tp.saved[treeKey{d, k}]; !ok {
		tp.saved[treeKey{d, k}] = slices.Clone(row)
	}
	row[mv.x] = uint8(mv.e)
	if mv.via >= 0 {
		row[g.adj[mv.x][mv.e].Peer] = uint8(mv.via)
	}
	tp.readTree(k, d)
	return true
}

// behindSwitch is a switch whose route toward the destination passes x
// (or is x): the channels of its route before x and, for a switch with
// hosts, its routes in the other layers, how many of its routes are
// disjoint now, and whether it sends the jobs' traffic to the destination
// (such a pair may trade disjoint paths for the jobs' loads; the others
// keep theirs).
type behindSwitch struct {
	z      int
	prefix []int32
	hosts  bool
	other  [][]int32 // per layer; the layer being improved left nil
	paths  int
	sends  bool
}

// behind lists the switches whose route toward d in layer k passes x
// (tp.under, from readTree), with their routes in the other layers
// (tp.others).
func (tp *trafficPass) behind(k, d, x int) []behindSwitch {
	var out []behindSwitch
	for _, z32 := range tp.under[x] {
		z := int(z32)
		b := behindSwitch{z: z, hosts: tp.g.hosts[z] > 0}
		for i, s := range append([]int32{int32(z)}, tp.via[z]...) {
			if int(s) == x {
				break
			}
			b.prefix = append(b.prefix, tp.path[z][i])
		}
		if b.hosts {
			b.other, b.sends = slices.Clone(tp.others[z]), tp.sends(z, d)
			b.other[k] = tp.path[z]
			b.paths = disjointRoutes(b.other)
			b.other[k] = nil
		}
		out = append(out, b)
	}
	return out
}

// sends tells whether switch z sends the jobs' traffic to destination d.
func (tp *trafficPass) sends(z, d int) bool {
	return slices.ContainsFunc(tp.flows[d], func(f srcFlow) bool { return f.s == z })
}

// allowed tells whether switch x may make move mv (its own hop; a
// compound move's other switch is asked for separately): the route it
// leads to does not come back through x, every switch behind x keeps its
// length within the layer's rules, every one with hosts that sends none
// of the jobs' traffic to d its disjoint paths, and one that sends some
// keeps keepPaths of them if it has them, unless the pass's budget of
// such pairs (lossBudget) allows: *lost counts the pairs the move takes
// below keepPaths.
func (tp *trafficPass) allowed(k, d int, mv trafficMove, behind []behindSwitch, lost *int) bool {
	g := tp.g
	y := g.adj[mv.x][mv.e].Peer
	rest := tp.newRoute(mv)
	if mv.via < 0 && (len(tp.path[y]) == 0 && y != g.dests[d].Switch || slices.Contains(tp.via[y], int32(mv.x))) {
		return false
	}
	if mv.via >= 0 {
		m := g.adj[y][mv.via].Peer
		if len(tp.path[m]) == 0 && m != g.dests[d].Switch || slices.Contains(tp.via[m], int32(mv.x)) || slices.Contains(tp.via[m], int32(y)) {
			return false
		}
	}
	shift := 1 + len(rest) - len(tp.path[mv.x])
	tail := append([]int32{int32(g.chOff[mv.x] + mv.e)}, rest...)
	for _, b := range behind {
		was := len(tp.path[b.z])
		if !tp.lengthOK(k, b.z, was, was+shift) {
			return false
		}
		if !b.hosts {
			continue
		}
		if tp.dfGroup != nil && !dragonflyShape(g, tp.dfGroup, tp.dfLeaf, b.prefix, tail) {
			return false
		}
		b.other[k] = append(slices.Clip(b.prefix), tail...)
		n := disjointRoutes(b.other)
		b.other[k] = nil
		if n >= b.paths {
			continue
		}
		if !b.sends {
			return false
		}
		if b.paths >= keepPaths && n < keepPaths {
			if *lost++; tp.lost+*lost > tp.lossBudget {
				return false
			}
		}
	}
	return tp.guard == nil || tp.guard.allows(k, d, mv, g)
}

// lengthOK tells whether switch z's route may go from was to now hops in
// layer k: layer 0 (and every layer of a fat tree) minimal, the others
// within their bounds, or no further out of them than before.
func (tp *trafficPass) lengthOK(k, z, was, now int) bool {
	dist := int(tp.dist[z])
	if k == 0 || tp.r.fatTree {
		return now == dist
	}
	lo, hi := tp.r.Bounds.of(dist)
	if now >= lo && now <= hi {
		return true
	}
	return was == now
}

// dragonflyShape tells whether the route of channels a then b keeps the
// shapes deadlock.AssignDragonfly's VLs are proven for on a Dragonfly+
// (group and leaf per switch): the VL counts the global cables crossed
// before a hop, and within a VL the hops rise in the order up (leaf to
// spine) < down (spine to leaf) < global on VL 0, down < up < global on
// the others; at most two global cables (three VLs). A move of the
// traffic pass that would leave it (a route down into a leaf of its
// first group and up again) could close a credit loop.
func dragonflyShape(g *graph, group []int32, leaf []bool, a, b []int32) bool {
	vl, last := 0, -1
	for _, chs := range [2][]int32{a, b} {
		for _, c := range chs {
			x, y := g.tail(int(c)), int(g.peer[c])
			rank := 2 // global
			switch {
			case group[x] != group[y]:
			case leaf[x] == (vl == 0): // up on VL 0, down on the others
				rank = 0
			default:
				rank = 1
			}
			if rank < last {
				return false
			}
			last = rank
			if rank == 2 {
				vl, last = vl+1, -1
			}
		}
	}
	return vl <= 2
}
