package layers

import (
	"slices"

	"slimroute/fabric"
)

// Dragonfly+ fabrics: groups whose leaves (the switches with hosts) each
// join every spine of their group, and whose spines join other groups'
// spines by global cables, at least one between every two groups,
// recognised from the switch graph alone (dfPlusOf). Between two groups a
// leaf's minimal route is three hops; within four, only through a spine
// cabled to both groups (on the builder's wiring 40 % of the group pairs
// have one); the design's second path is Valiant's, through a third
// group, six hops (docs/designs.md).
//
// Layer 0 is minimal (routeMinimal). In layer k ≥ 1, for destination
// endpoint d on leaf t of group B, the groups are split: a third of them
// (by (A − B + d) mod (L−1) = k−1) route as in layer 0 ("direct"), the
// others take, for all their leaves alike, a route over a spine a of
// theirs not cabled to B — through a spine Z cabled to B (four hops), or
// across to a spine z of a direct group C not cabled to B, down to a
// leaf of C, and on along C's direct route (six hops, Valiant-style).
// A group's routes in all layers are chosen together (dfChoose): the
// combination sharing fewest spines and channels with each other and with
// layer 0's, then the least loaded. Leaves of B take B's spines in turn.
// The trees stay trees: spines cabled to B keep their layer-0 next hops
// (they are others' Z and C's exits), a spine not cabled to B gets a next
// hop only from its own group's choice or, in a direct group, as a z (one
// leaf per z and layer: zLeaf). Their VLs: deadlock.AssignDragonfly.
// The destinations go in fixed batches of two (inBatches), one from each
// half of the endpoints (two on one leaf would make the same choices
// unseen by each other). Cost: O(endpoints × groups × candidates^(L−1))
// while that is at most dfChooseMax per group, else O(endpoints × groups
// × candidates × L).

// dfPlusShape is a recognised Dragonfly+.
type dfPlusShape struct {
	group  []int32   // per switch
	leaf   []bool    // per switch
	spines [][]int32 // per group, ascending
	leaves [][]int32 // per group, ascending
}

// dfPlusOf recognises a Dragonfly+ in g, or returns nil: every switch
// with hosts a leaf whose peers are all spines (switches without hosts);
// the groups, joined by the leaf–spine cables, each complete bipartite;
// spine–spine cables only between groups; every two groups cabled.
func dfPlusOf(S int, peers func(s int) []int32, hosts func(s int) int) *dfPlusShape {
	sh := &dfPlusShape{group: make([]int32, S), leaf: make([]bool, S)}
	for s := range sh.leaf {
		sh.leaf[s] = hosts(s) > 0
		sh.group[s] = -1
		for i, y := range peers(s) {
			if slices.Contains(peers(s)[:i], y) {
				return nil // parallel cables
			}
		}
	}
	for s := 0; s < S; s++ { // groups: from each leaf not yet placed
		if !sh.leaf[s] || sh.group[s] >= 0 {
			continue
		}
		gr := int32(len(sh.leaves))
		sh.leaves, sh.spines = append(sh.leaves, nil), append(sh.spines, nil)
		for _, y := range peers(s) {
			if sh.leaf[y] || sh.group[y] >= 0 {
				return nil
			}
			sh.group[y] = gr
			sh.spines[gr] = append(sh.spines[gr], y)
		}
		if len(sh.spines[gr]) == 0 {
			return nil // a switch of its own
		}
		slices.Sort(sh.spines[gr])
		for _, x := range peers(int(sh.spines[gr][0])) {
			if sh.leaf[x] {
				if sh.group[x] >= 0 {
					return nil
				}
				sh.group[x] = gr
				sh.leaves[gr] = append(sh.leaves[gr], x)
			}
		}
		slices.Sort(sh.leaves[gr])
	}
	G := len(sh.leaves)
	if G < 2 {
		return nil
	}
	cabled := make([]int, G*G)
	for s := 0; s < S; s++ {
		if sh.group[s] < 0 {
			return nil // a spine without leaves
		}
		leaves := 0
		for _, y := range peers(s) {
			switch {
			case sh.group[y] < 0:
				return nil // a switch in no group
			case sh.leaf[s] && (sh.leaf[y] || sh.group[y] != sh.group[s]):
				return nil
			case !sh.leaf[s] && sh.leaf[y] && sh.group[y] != sh.group[s]:
				return nil
			case !sh.leaf[s] && !sh.leaf[y]:
				if sh.group[y] == sh.group[s] {
					return nil
				}
				cabled[int(sh.group[s])*G+int(sh.group[y])]++
			default:
				leaves++
			}
		}
		want := len(sh.spines[sh.group[s]]) // a leaf: every spine of its group
		if !sh.leaf[s] {
			want = len(sh.leaves[sh.group[s]])
		}
		if leaves != want {
			return nil
		}
	}
	for a := 0; a < G; a++ {
		for b := 0; b < G; b++ {
			if a != b && cabled[a*G+b] == 0 {
				return nil
			}
		}
	}
	return sh
}

// DragonflyPlusBounds are the path lengths of layers ≥ 1 on a Dragonfly+
// (what Compute routes such a fabric with by default): up to the six
// hops of a Valiant route through a third group.
var DragonflyPlusBounds = Bounds{Min: 2, Max: 6}

// IsDragonflyPlus tells whether v's switch graph is a Dragonfly+ that
// Compute routes group pair by group pair (dfPlusOf).
func IsDragonflyPlus(v *fabric.SwitchView) bool {
	peers := make([][]int32, len(v.Adj))
	for s, chs := range v.Adj {
		for _, c := range chs {
			peers[s] = append(peers[s], int32(c.Peer))
		}
	}
	return dfPlusOf(len(v.Adj), func(s int) []int32 { return peers[s] }, func(s int) int { return len(v.Endpoints[s]) }) != nil
}

// dfRoute is a route shape from a source group to a destination leaf:
// the spine a of the source group its leaves go up to, and the channels
// after a: a's global cable, Z's global cable when through Z (else -1),
// and the spine of the destination group's cable down to the leaf.
type dfRoute struct {
	a   int32
	z   int32    // the spine of an intermediate group that goes down to its leaf, -1 none
	chs [5]int32 // the channels after a, n of them
	n   int8
}

// route returns rt's channels after a.
func (rt *dfRoute) route() []int32 { return rt.chs[:rt.n] }

// dfRouteOf returns the route shape over a and chs.
func dfRouteOf(a, z int32, chs ...int32) dfRoute {
	rt := dfRoute{a: a, z: z, n: int8(len(chs))}
	copy(rt.chs[:], chs)
	return rt
}

// routeDragonflyPlus builds layers ≥ 1 of a recognised Dragonfly+ (layer
// 0 routed) and reports whether it did.
func routeDragonflyPlus(g *graph, r *Routing) bool {
	sh := dfPlusOf(len(g.adj), func(s int) []int32 { return g.peer[g.chOff[s]:g.chOff[s+1]] }, func(s int) int { return g.hosts[s] })
	if sh == nil || !r.Bounds.PerPair {
		return false
	}
	S, L := len(g.adj), r.layers
	load := make([]int64, g.chOff[S]) // over all layers
	for d := 0; d < g.nEP; d++ {
		for s := 0; s < S; s++ {
			if g.hosts[s] > 0 {
				w := int64(g.hosts[s])
				r.walk(0, s, d, func(x, e int) { load[g.chOff[x]+e] += w })
			}
		}
	}
	var ws [batch]*loads
	var scratch [batch]*dfScratch
	for w := range ws {
		l := newLoads(load)
		ws[w] = &l
		scratch[w] = &dfScratch{per: make([][]dfRoute, L), marks: &dfMarks{spine: make([]int32, S), chans: make([]int32, g.chOff[S])}}
	}
	// a batch's two destinations from the two halves of the endpoints, so
	// not on the same leaf: those would make the same choices unseen
	half := (g.nEP + 1) / 2
	// (in parallel where there is enough to share: a batch's goroutines
	// cost more than the radix-8 Dragonfly+'s destinations take)
	inBatches(g.nEP, g.parallel && g.nEP >= dfParallelFrom, ws, func(w, i int) {
		d := i/2 + (i%2)*half
		routeDragonflyPlusDest(g, r, sh, d, ws[w], scratch[w])
	})
	r.Trees = -1
	r.Bounds = DragonflyPlusBounds
	r.dfGroup, r.dfLeaf = sh.group, sh.leaf
	recountStats(g, r)
	return true
}

// dfParallelFrom is the fewest endpoints at which routeDragonflyPlus
// routes a batch's destinations in parallel: radix 8 (272) took 9 ms on
// one goroutine and 12 on two, radix 12 (1,332) 315 and 239 ms. The
// tables are the same either way (inBatches).
const dfParallelFrom = 1000

// dfScratch is one worker's scratch space for routeDragonflyPlusDest.
type dfScratch struct {
	per   [][]dfRoute // per layer: a source group's candidates
	ks    []int
	marks *dfMarks
}

// routeDragonflyPlusDest routes layers ≥ 1 toward destination endpoint d
// (layer 0 routed), charging its routes to ld.
func routeDragonflyPlusDest(g *graph, r *Routing, sh *dfPlusShape, d int, ld *loads, sc *dfScratch) {
	S, L, per := len(g.adj), r.layers, sc.per
	r.share[d] = d
	t := int32(g.dests[d].Switch)
	row0 := r.next[0][d*S : (d+1)*S]
	via := func(x int32) int32 { return g.peer[g.chOff[x]+int(row0[x])] }
	for k := 1; k < L; k++ {
		copy(r.next[k][d*S:(d+1)*S], row0)
	}
	set := func(k int, x, y int32, w int64) {
		c := dfChannel(g, x, y)
		r.next[k][d*S+int(x)] = uint8(int(c) - g.chOff[x])
		ld.add(g, int(c), w)
	}
	sp := sh.spines[sh.group[t]]
	for _, x := range sh.leaves[sh.group[t]] { // the spines of t's group in turn
		if x != t {
			i0 := slices.Index(sp, via(x))
			for k := 1; k < L; k++ {
				y := sp[(i0+k)%len(sp)]
				set(k, x, y, int64(g.hosts[x]))
				ld.add(g, int(dfChannel(g, y, t)), int64(g.hosts[x]))
			}
		}
	}
	B := sh.group[t]
	G := int32(len(sh.leaves))
	direct := func(A int32, k int) bool { return L < 3 || int(A+G-B+int32(d))%(L-1) == (k-1)%(L-1) }
	zLeaf := make([]map[int32]int32, L) // per layer: the leaf each z goes down to
	for k := range zLeaf {
		zLeaf[k] = map[int32]int32{}
	}
	for A := int32(0); A < G; A++ {
		if A == B {
			continue
		}
		var w int64
		for _, x := range sh.leaves[A] {
			w += int64(g.hosts[x])
		}
		a0 := via(sh.leaves[A][0]) // the spine every leaf of A goes up to in layer 0
		first := dfRouteOf(a0, -1, dfChannel(g, a0, via(a0)), dfChannel(g, via(a0), t))
		sc.ks = sc.ks[:0]
		for k := 1; k < L; k++ {
			if direct(A, k) {
				per[k] = append(per[k][:0], first)
			} else {
				per[k] = dfCandidates(g, sh, row0, A, t, func(C int32) bool { return direct(C, k) }, zLeaf[k], ld.load, per[k][:0])
			}
			sc.ks = append(sc.ks, k)
		}
		pick := dfChoose(per, sc.ks, a0, first.route(), ld.load, sc.marks)
		for _, k := range sc.ks {
			rt := per[k][pick[k]]
			for _, x := range sh.leaves[A] {
				set(k, x, rt.a, int64(g.hosts[x]))
			}
			r.next[k][d*S+int(rt.a)] = uint8(int(rt.route()[0]) - g.chOff[rt.a])
			if rt.z >= 0 { // through a leaf of a direct group: z goes down to it
				r.next[k][d*S+int(rt.z)] = uint8(int(rt.route()[1]) - g.chOff[rt.z])
				zLeaf[k][rt.z] = g.peer[rt.route()[1]]
			}
			for _, c := range rt.route() {
				ld.add(g, int(c), w)
			}
			if !direct(A, k) {
				dfSpineRows(g, sh, row0, r.next[k][d*S:(d+1)*S], A, t, rt.a, func(C int32) bool { return direct(C, k) }, zLeaf[k])
			}
		}
	}
}

// dfChannel returns the channel from x to its peer y.
func dfChannel(g *graph, x, y int32) int32 {
	return int32(g.chOff[x] + slices.Index(g.peer[g.chOff[x]:g.chOff[x+1]], y))
}

// dfCandidates lists the route shapes from group A to leaf t, via giving
// each switch's next hop in layer 0: straight over each spine of A cabled
// to t's group B but layer 0's (where two groups share more than one
// global cable); through Z, over each spine a of A not cabled to B and
// each Z cabled to B; and through a group
// C that routes as in layer 0 in this layer (direct(C)), over a spine z
// of C not cabled to B, down to a leaf of C (zLeaf's, when z goes down
// already), up to C's spine cabled to B. The spines cabled to B keep
// their layer-0 next hops in every layer (they are others' Z), so a
// spine's next hop is chosen by its own group's routes alone.
func dfCandidates(g *graph, sh *dfPlusShape, row0 []uint8, A, t int32, direct func(C int32) bool, zLeaf map[int32]int32, load []int64, out []dfRoute) []dfRoute {
	B := sh.group[t]
	hop := func(x int32) int32 { return int32(g.chOff[x] + int(row0[x])) } // x's channel in layer 0
	via := func(x int32) int32 { return g.peer[hop(x)] }
	toB := func(x int32) bool { y := via(x); return !sh.leaf[y] && sh.group[y] == B }
	a0 := via(sh.leaves[A][0]) // the spine A's leaves go up to in layer 0
	for _, a := range sh.spines[A] {
		if toB(a) {
			if a != a0 { // another global cable to B: minimal, beside layer 0's
				out = append(out, dfRouteOf(a, -1, hop(a), hop(via(a))))
			}
			continue
		}
		for i, z := range g.peer[g.chOff[a]:g.chOff[a+1]] {
			C, az := sh.group[z], int32(g.chOff[a]+i)
			switch {
			case sh.leaf[z] || C == A || C == B:
			case toB(z):
				out = append(out, dfRouteOf(a, -1, az, hop(z), hop(via(z))))
			case direct(C):
				zl := int32(-1) // z's channel down to the leaf
				if l, ok := zLeaf[z]; ok {
					zl = dfChannel(g, z, l)
				} else {
					for j, x := range g.peer[g.chOff[z]:g.chOff[z+1]] {
						if c := int32(g.chOff[z] + j); sh.leaf[x] && (zl < 0 || load[c] < load[zl]) {
							zl = c
						}
					}
				}
				l := g.peer[zl]
				c := via(l)
				out = append(out, dfRouteOf(a, z, az, zl, hop(l), hop(c), hop(via(c))))
			}
		}
	}
	if len(out) == 0 { // no other way: as in layer 0
		for _, a := range sh.spines[A] {
			if toB(a) {
				out = append(out, dfRouteOf(a, -1, hop(a), hop(via(a))))
				break
			}
		}
	}
	return out
}

// dfSpineRows gives the spines of group A other than a and not cabled to
// t's group, whose layer-0 next hop is down into a leaf of A, a next hop
// of their own in row (layer k's, in which A's leaves go up to a): across
// to a spine Z cabled to t's group, or to a spine z of a direct group,
// down as z goes (zLeaf: to its group's first leaf if z goes down for
// none yet), else as they are. Down into A's leaves
// their routes would go on over a, seven hops; they carry no hosts'
// traffic but must keep within the bounds.
func dfSpineRows(g *graph, sh *dfPlusShape, row0, row []uint8, A, t, a int32, direct func(C int32) bool, zLeaf map[int32]int32) {
	B := sh.group[t]
	via := func(x int32) int32 { return g.peer[g.chOff[x]+int(row0[x])] }
	toB := func(x int32) bool { y := via(x); return !sh.leaf[y] && sh.group[y] == B }
	for _, x := range sh.spines[A] {
		if x == a || toB(x) || !sh.leaf[via(x)] {
			continue
		}
		pick := -1
		for i, z := range g.peer[g.chOff[x]:g.chOff[x+1]] {
			C := sh.group[z]
			if sh.leaf[z] || C == A || C == B {
				continue
			}
			if toB(z) {
				pick = i
				break
			}
			if direct(C) && pick < 0 {
				pick = i
			}
		}
		if pick < 0 {
			continue
		}
		row[x] = uint8(pick)
		if z := g.peer[g.chOff[x]+pick]; !toB(z) {
			if _, ok := zLeaf[z]; !ok { // z goes down to its group's first leaf
				l := sh.leaves[sh.group[z]][0]
				zLeaf[z] = l
				row[z] = uint8(int(dfChannel(g, z, l)) - g.chOff[z])
			}
		}
	}
}

// dfChoose picks a candidate per layer of ks (per[k] lists layer k's)
// for one source group: the combination whose routes share fewest spines
// and channels with each other and with the pair's routes so far (a0 and
// chans: layer 0's), then the least loaded, then the first; exhaustively
// while there are at most dfChooseMax combinations, else layer by layer
// (dfPick). It returns the index chosen per layer; m is all zero before
// and after.
func dfChoose(per [][]dfRoute, ks []int, a0 int32, chans []int32, load []int64, m *dfMarks) []int {
	pick := make([]int, len(per))
	m.add(a0, chans, 1)
	defer m.add(a0, chans, -1)
	n := 1
	for _, k := range ks {
		n *= len(per[k])
	}
	if n > dfChooseMax {
		for _, k := range ks {
			pick[k] = dfPick(per[k], m, load)
			m.add(per[k][pick[k]].a, per[k][pick[k]].route(), 1)
		}
		for _, k := range ks {
			m.add(per[k][pick[k]].a, per[k][pick[k]].route(), -1)
		}
		return pick
	}
	best, bestShared, bestPeak := slices.Clone(pick), -1, int64(0)
	cur := make([]int, len(per))
	var walk func(i, shared int, peak int64)
	walk = func(i, shared int, peak int64) {
		if bestShared >= 0 && (shared > bestShared || shared == bestShared && peak >= bestPeak) {
			return // (neither term falls further down)
		}
		if i == len(ks) {
			copy(best, cur)
			bestShared, bestPeak = shared, peak
			return
		}
		k := ks[i]
		for j := range per[k] {
			rt := &per[k][j]
			sh, pk := m.shared(rt, load)
			cur[k] = j
			m.add(rt.a, rt.route(), 1)
			walk(i+1, shared+sh, peak+pk)
			m.add(rt.a, rt.route(), -1)
		}
	}
	walk(0, 0, 0)
	return best
}

// dfChooseMax bounds the combinations dfChoose weighs.
const dfChooseMax = 1 << 10

// dfMarks counts, per switch and per channel, how many of the routes
// dfChoose holds chosen go up to that spine or over that channel.
type dfMarks struct{ spine, chans []int32 }

// add counts (d = 1) or uncounts (d = −1) a route up to spine a over chs.
func (m *dfMarks) add(a int32, chs []int32, d int32) {
	m.spine[a] += d
	for _, c := range chs {
		m.chans[c] += d
	}
}

// shared returns how many of rt's spine and channels the routes held use,
// and rt's busiest channel's load.
func (m *dfMarks) shared(rt *dfRoute, load []int64) (shared int, peak int64) {
	if m.spine[rt.a] > 0 {
		shared++ // the leaves' uplink to a
	}
	for _, c := range rt.route() {
		peak = max(peak, load[c])
		if m.chans[c] > 0 {
			shared++
		}
	}
	return shared, peak
}

// dfPick returns the candidate for the next layer: fewest spines and
// channels shared with the routes m holds, then the least loaded busiest
// channel, then the first.
func dfPick(cands []dfRoute, m *dfMarks, load []int64) int {
	best, bestShared, bestPeak := -1, 0, int64(0)
	for i := range cands {
		shared, peak := m.shared(&cands[i], load)
		if best < 0 || shared < bestShared || shared == bestShared && peak < bestPeak {
			best, bestShared, bestPeak = i, shared, peak
		}
	}
	return best
}
