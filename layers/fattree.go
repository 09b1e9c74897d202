package layers

import (
	"slices"
	"sort"
)

// Fat trees and folded Clos fabrics get their own construction: in every
// layer, destination-based up/down routing in the manner of D-mod-K
// (Zahavi, Johnson, Kerbyson, Lang, "Optimized InfiniBand fat-tree routing
// for shift all-to-all communication patterns", Concurrency and
// Computation 22(2), 2010). A packet climbs only while its destination is
// not below it, and the up-link it takes at level l follows digit l of
// the destination's index j — ⌊j / (p_1 ⋯ p_{l−1})⌋ mod p_l, p_i being the
// up-links per switch of level i (see fatTree.period for the exceptions)
// — so the endpoints of one leaf leave it,
// and reach it, over distinct cables, and every shift permutation over the
// endpoints in index order crosses each cable at most once on a
// non-blocking tree. Layer k rotates each digit within blocks of L
// consecutive values (L the number of layers; the last block also takes
// the w mod L values left over): every layer keeps the property, and a
// cable collects in its L layers the destinations of L different digit
// values, always from the same block. Under a random permutation its load
// is then a mean over L values of one block; rotating over all w values
// instead would give each cable a different set and a higher maximum
// (radix 24: 2.11 against 1.94 mean max load; a leftover block of 2 on
// radix 36 gives 2.57 against 2.30 merged).
//
// The structure is read from the fabric alone: leaves are the switches with
// endpoints, a switch's level is one more than its hop distance from the
// nearest leaf, and the fabric is a fat tree when every cable joins
// adjacent levels and, for every destination switch, the up/down route of
// every switch with endpoints is as short as its shortest path. Anything
// else — a Slim Fly, a fat tree whose failed cables leave a switch with
// endpoints without an up/down route of minimal length — is routed by the
// general algorithm.

// fatTree is the level structure of a fabric recognised as a fat tree.
type fatTree struct {
	g     *graph
	level []int32 // 1 for leaves (switches with endpoints), then upwards
	// up lays out each switch's up-links in slots (channel indices, gone
	// for a missing cable) so that slot i means the same plane at every
	// switch of a group of siblings (see orderChannels); down lists its
	// channels down
	up, down [][]uint8
	upPeer   [][]int32 // the parent each slot of up is for
	width    []int     // per level: the most up-links of a switch there
	// period is how many values digit l takes: the up-links w_l, or
	// fewer where a switch of the level has fewer groups of endpoints
	// below it than up-links (a leaf with 5 HCAs and 7 up-links): digit 1
	// is then j mod 5, so that any window of consecutive indices, also
	// one wrapping from the last endpoint to the first, leaves a leaf on
	// distinct up-links
	period []int
	stride []int // per level: the product of the periods below, capped
	rank   []int // per endpoint destination: its index j
	// topDown lists the switches by level, top first
	topDown []int32
}

// detectFatTree returns the fat-tree structure of g for L layers, or nil
// when g has no levels with every cable between adjacent ones.
func detectFatTree(g *graph, L int) *fatTree {
	S := len(g.adj)
	level := make([]int32, S)
	var queue []int32
	for s := 0; s < S; s++ {
		if g.hosts[s] > 0 {
			level[s] = 1
			queue = append(queue, int32(s))
		}
	}
	if len(queue) == 0 || len(queue) == S {
		return nil
	}
	for h := 0; h < len(queue); h++ {
		u := queue[h]
		for _, y := range g.peer[g.chOff[u]:g.chOff[u+1]] {
			if level[y] == 0 {
				level[y] = level[u] + 1
				queue = append(queue, y)
			}
		}
	}
	top := int32(0)
	for s := 0; s < S; s++ {
		top = max(top, level[s])
		for _, y := range g.peer[g.chOff[s]:g.chOff[s+1]] {
			if d := level[y] - level[s]; d != 1 && d != -1 {
				return nil
			}
		}
	}
	ft := &fatTree{g: g, level: level, up: make([][]uint8, S), down: make([][]uint8, S),
		upPeer: make([][]int32, S), topDown: queue}
	slices.Reverse(ft.topDown) // the BFS from the leaves met the levels in order
	ft.orderChannels()
	ft.width = make([]int, top+1)
	for s := 0; s < S; s++ {
		ft.width[level[s]] = max(ft.width[level[s]], len(ft.up[s]))
	}
	below := ft.endpointsBelow()
	ft.stride, ft.period = make([]int, top+1), make([]int, top+1)
	for l, p := 1, 1; l <= int(top); l++ {
		ft.stride[l] = p
		ft.period[l] = digitPeriod(ft.width[l], below[l]/p, L)
		p = min(p*ft.period[l], 1<<24) // beyond any LID count: digits above are 0
	}
	ft.rank = endpointRanks(g)
	return ft
}

// endpointsBelow returns per level the most endpoints a switch of that
// level reaches going down only.
func (ft *fatTree) endpointsBelow() []int {
	g := ft.g
	most := make([]int, len(ft.width))
	seen := make([]int32, len(g.adj))
	for i := range seen {
		seen[i] = -1
	}
	var stack []int32
	for _, s := range ft.topDown {
		n := 0
		stack = append(stack[:0], s)
		seen[s] = s
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			n += g.hosts[x]
			for _, i := range ft.down[x] {
				if y := g.adj[x][i].Peer; seen[y] != s {
					seen[y] = s
					stack = append(stack, int32(y))
				}
			}
		}
		most[ft.level[s]] = max(most[ft.level[s]], n)
	}
	return most
}

// orderChannels fills up and down. A switch's up-links are laid out in
// slots shared by its siblings (the switches of its level that share a
// parent with it, transitively: a pod's leaves): slot r·P + m is the m-th
// cable to the r-th parent of the siblings, P the most cables a sibling
// runs to one parent. A cable that is missing — failed, or avoided —
// leaves its slot gone, so the other slots keep the positions they have in
// the intact tree and a failure moves only the routes that crossed it.
// Parents rank by key, so that the spines of a pod sort by the plane of
// cores they reach, the same in every pod (see siblingKeys).
func (ft *fatTree) orderChannels() {
	g := ft.g
	for s := range g.adj {
		for i, c := range g.adj[s] {
			if ft.level[c.Peer] < ft.level[s] {
				ft.down[s] = append(ft.down[s], uint8(i))
			}
		}
	}
	groups := ft.siblings()
	key := siblingKeys(ft, groups)
	for _, group := range groups {
		ft.layOut(group, key)
	}
}

// siblingKeys gives every switch the key of its group of siblings: the
// least key of the group's parents, or its own index at the top. A whole
// group shares it, so one failed cable, which leaves the group its
// parents, changes no key.
func siblingKeys(ft *fatTree, groups [][]int32) []int {
	key := make([]int, len(ft.g.adj))
	byLevel := slices.Clone(groups)
	sort.SliceStable(byLevel, func(a, b int) bool { return ft.level[byLevel[a][0]] > ft.level[byLevel[b][0]] })
	for _, group := range byLevel {
		k := -1
		for _, s := range group {
			for _, y := range ft.neighbours(s, 1) {
				if k < 0 || key[y] < k {
					k = key[y]
				}
			}
		}
		for _, s := range group {
			key[s] = k
			if k < 0 {
				key[s] = int(s)
			}
		}
	}
	return key
}

// neighbours lists the switches cabled to s one level up (dir 1) or down
// (−1), once each, in index order.
func (ft *fatTree) neighbours(s int32, dir int32) []int32 {
	g := ft.g
	var out []int32
	for _, y := range g.peer[g.chOff[s]:g.chOff[s+1]] {
		if ft.level[y] == ft.level[s]+dir && !slices.Contains(out, y) {
			out = append(out, y)
		}
	}
	slices.Sort(out)
	return out
}

// siblings groups the switches that share a parent, transitively, each
// group in index order, the groups by their first switch.
func (ft *fatTree) siblings() [][]int32 {
	S := len(ft.g.adj)
	root := make([]int32, S)
	for i := range root {
		root[i] = int32(i)
	}
	find := func(x int32) int32 {
		for root[x] != x {
			root[x] = root[root[x]]
			x = root[x]
		}
		return x
	}
	for s := 0; s < S; s++ {
		kids := ft.neighbours(int32(s), -1)
		for _, y := range kids[min(1, len(kids)):] {
			a, b := find(kids[0]), find(y)
			root[max(a, b)] = min(a, b)
		}
	}
	at := make(map[int32]int, S)
	var groups [][]int32
	for s := int32(0); s < int32(S); s++ {
		r := find(s)
		i, ok := at[r]
		if !ok {
			i = len(groups)
			at[r] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], s)
	}
	return groups
}

// layOut fills the up slots of one group of siblings.
func (ft *fatTree) layOut(group []int32, key []int) {
	g := ft.g
	var parents []int32
	per := 0 // most cables from one sibling to one parent
	for _, s := range group {
		for _, y := range ft.neighbours(s, 1) {
			if !slices.Contains(parents, y) {
				parents = append(parents, y)
			}
			n := 0
			for _, z := range g.peer[g.chOff[s]:g.chOff[s+1]] {
				if z == y {
					n++
				}
			}
			per = max(per, n)
		}
	}
	sort.Slice(parents, func(a, b int) bool {
		x, y := parents[a], parents[b]
		return key[x] < key[y] || key[x] == key[y] && x < y
	})
	for _, s := range group {
		ft.up[s] = make([]uint8, len(parents)*per)
		ft.upPeer[s] = make([]int32, len(parents)*per)
		for r, y := range parents {
			m := 0
			for i, c := range g.adj[s] { // in port order
				if int32(c.Peer) == y {
					ft.up[s][r*per+m] = uint8(i)
					m++
				}
			}
			for ; m < per; m++ {
				ft.up[s][r*per+m] = gone
			}
			for m = 0; m < per; m++ {
				ft.upPeer[s][r*per+m] = y
			}
		}
	}
}

// gone marks the slot of a missing cable in up (and a candidate for it).
const gone = hopNone

// endpointRanks numbers the endpoints by HCA node, then port: the order a
// job launcher ranks hosts named in fabric order, which the shift
// permutations of collectives follow.
func endpointRanks(g *graph) []int {
	order := make([]int, g.nEP)
	for d := range order {
		order[d] = d
	}
	sort.Slice(order, func(a, b int) bool {
		x, y := g.dests[order[a]].Port, g.dests[order[b]].Port
		if x.Node != y.Node {
			return x.Node < y.Node
		}
		return x.Port < y.Port
	})
	rank := make([]int, g.nEP)
	for i, d := range order {
		rank[d] = i
	}
	return rank
}

// position is the up-link position that destination index j asks for at
// level l in layer k of L: digit l of j (see fatTree.period), rotated by
// k within its block of L consecutive values, and on switches with more
// up-links than digit values moved by k(w−p)/L so the layers share the
// spare up-links.
func (ft *fatTree) position(j, l, k, L int) int {
	w, p := ft.width[l], ft.period[l]
	if w == 0 {
		return 0
	}
	x := j / ft.stride[l] % p
	last := max(p/L-1, 0) * L // the last block takes the p mod L values left over
	base := min(x/L*L, last)
	size := L
	if base == last {
		size = p - base
	}
	return (base + (x-base+k)%size + k*max(w-p, 0)/L) % w
}

// digitPeriod is the period of a digit at a level of w up-links whose
// switches have up to avail groups of endpoints below them. With fewer
// groups than up-links, one per group. With more (an oversubscribed leaf),
// the up-links, or the least multiple of both w and L that fits: on 18
// HCAs over 6 up-links and 4 layers, digits mod 12 fall into three whole
// blocks of four, dealt twice over the up-links, where digits mod 6 would
// leave one block of six (random-permutation mean max load 3.97 against
// 4.07); a shift then loads an up-link with up to 4 flows instead of 3.
func digitPeriod(w, avail, L int) int {
	switch {
	case w == 0:
		return 1
	case avail <= w:
		return max(1, avail)
	}
	m := w
	for m%L != 0 {
		m += w
	}
	if m <= avail {
		return m
	}
	return w
}

// toward is one destination switch's up/down structure: the hops of every
// switch's route and the channels it chooses among.
type toward struct {
	t    int
	hops []int32 // up/down route length; unreachable for none
	anc  []bool  // t lies below the switch (or is it): the route goes down
	// cand lists switch s's channels at cand[candAt[s]:candAt[s+1]]: going
	// up, all its up-links, going down all its cables to the nearer child;
	// usable where the cable is there and keeps the route minimal (an
	// unusable one passes its turn to a usable one, see spare, so a failed
	// cable moves only the flows that crossed it)
	cand   []uint8
	usable []bool
	via    []int32 // the switch each candidate leads to
	candAt []int32
	dist   []int32
	order  []int32
}

// unreachable marks a switch with no up/down route to the destination.
const unreachable = int32(1 << 30)

func newToward(S int) *toward {
	return &toward{t: -1, hops: make([]int32, S), anc: make([]bool, S), candAt: make([]int32, S+1),
		dist: make([]int32, S), order: make([]int32, 0, S)}
}

// plan fills tw for destination switch t; false when a switch with
// endpoints, or one that other routes pass, has no up/down route as short
// as its shortest path.
func (ft *fatTree) plan(tw *toward, t int) bool {
	g := ft.g
	tw.t = t
	tw.order = g.bfs(t, tw.dist, tw.order)
	clear(tw.anc)
	tw.anc[t] = true
	for _, s := range tw.order { // by distance from t: an ancestor's parents follow it
		if !tw.anc[s] {
			continue
		}
		for _, i := range ft.up[s] {
			if i != gone {
				tw.anc[g.adj[s][i].Peer] = true
			}
		}
	}
	// ancestors are level(s) − level(t) hops down; the others climb first,
	// so fill them from the top level down
	for _, s := range ft.topDown {
		if tw.anc[s] {
			tw.hops[s] = ft.level[s] - ft.level[t]
			continue
		}
		tw.hops[s] = unreachable
		for _, i := range ft.up[s] {
			if i != gone {
				tw.hops[s] = min(tw.hops[s], tw.hops[g.adj[s][i].Peer]+1)
			}
		}
	}
	tw.cand, tw.usable, tw.via = tw.cand[:0], tw.usable[:0], tw.via[:0]
	for s := range g.adj {
		tw.candAt[s] = int32(len(tw.cand))
		switch {
		case s == t:
		case tw.hops[s] == tw.dist[s]:
			ft.upDown(tw, s)
		case tw.hops[s] == unreachable && g.hosts[s] == 0:
			// a switch a failed cable cut off from t's subtree: no route
			// passes it (none is minimal) and no HCA sends from it, so
			// only its own management traffic takes this shortest path
			for i, y := range g.peer[g.chOff[s]:g.chOff[s+1]] {
				if tw.dist[y] == tw.dist[s]-1 {
					tw.add(uint8(i), y)
				}
			}
		default:
			return false
		}
	}
	tw.candAt[len(g.adj)] = int32(len(tw.cand))
	return true
}

// upDown lists switch s's candidates toward tw.t: every cable down to a
// child one hop nearer, or every up-link; usable where the cable is there
// and, going up, leads one hop nearer.
func (ft *fatTree) upDown(tw *toward, s int) {
	g := ft.g
	if tw.anc[s] {
		// the cables to a nearer child, in the child's slot order (its
		// cables up to s, gone ones included), so that the cable a flow
		// climbs by and the one it descends by match in position
		for _, y := range ft.neighbours(int32(s), -1) {
			if !tw.anc[y] || tw.hops[y] != tw.hops[s]-1 {
				continue
			}
			for slot, i := range ft.up[y] {
				if ft.upPeer[y][slot] != int32(s) {
					continue
				}
				down := uint8(gone)
				if i != gone {
					down = uint8(int(g.rev[g.chOff[y]+int(i)]) - g.chOff[s])
				}
				tw.add(down, y)
			}
		}
		return
	}
	for slot, i := range ft.up[s] {
		y := ft.upPeer[s][slot]
		tw.add(i, y)
		tw.usable[len(tw.usable)-1] = i != gone && tw.hops[y] == tw.hops[s]-1
	}
}

// add appends candidate channel i (or gone) toward switch y, usable when
// the cable is there.
func (tw *toward) add(i uint8, y int32) {
	tw.cand, tw.usable, tw.via = append(tw.cand, i), append(tw.usable, i != gone), append(tw.via, y)
}

// fill writes destination d's next hops in layer k of L: each switch takes
// the candidate at the position d's index asks for at its level (going
// up), or at the level below (going down, where parallel cables to the
// same child are told apart by the digit that chose the cable up).
func (ft *fatTree) fill(tw *toward, tab []uint8, d, k, L int) {
	j := ft.rank[d]
	for s := range tab {
		if s == tw.t {
			tab[s] = hopLocal
			continue
		}
		lo, hi := tw.candAt[s], tw.candAt[s+1]
		c, ok, via := tw.cand[lo:hi], tw.usable[lo:hi], tw.via[lo:hi]
		l := int(ft.level[s])
		if tw.anc[s] {
			l--
		}
		i := ft.position(j, l, k, L) % len(c)
		if !ok[i] {
			i = ft.spare(ok, via, i, j, l, k)
		}
		tab[s] = c[i]
	}
}

// spare chooses a usable candidate in place of candidate i, whose cable is
// gone or leads no nearer: another cable to the same switch if there is
// one (a lost parallel cable keeps its flows on their path), else one
// chosen by the destination's digits above level l (its leaf, on two
// levels) and the layer, so that the flows of a lost cable spread over the
// others instead of doubling one.
func (ft *fatTree) spare(ok []bool, via []int32, i, j, l, k int) int {
	same, n := 0, 0
	for x, u := range ok {
		if u {
			n++
			if via[x] == via[i] {
				same++
			}
		}
	}
	nth := (j/(ft.stride[l]*ft.period[l]) + k) % n
	if same > 0 {
		nth = i % same
	}
	for x, u := range ok {
		if u && (same == 0 || via[x] == via[i]) {
			if nth == 0 {
				return x
			}
			nth--
		}
	}
	return -1 // unreachable: plan leaves every switch a usable candidate
}

// routeFatTree fills every layer of r by the fat-tree construction when g
// is a fat tree, and reports whether it did; r is untouched otherwise.
// Switch destinations (layer 0 only, management traffic) take minimal
// paths as in the general algorithm.
func routeFatTree(g *graph, r *Routing) bool {
	ft := detectFatTree(g, r.layers)
	if ft == nil {
		return false
	}
	S, L := len(g.adj), r.layers
	tw := newToward(S)
	stats := make([]LayerStats, L)
	for k := range stats {
		stats[k].Layer = k
	}
	for d := 0; d < g.nEP; d++ {
		t := g.dests[d].Switch
		if tw.t != t {
			if !ft.plan(tw, t) {
				for k := range r.next {
					clear(r.next[k])
				}
				return false
			}
		}
		for k := 0; k < L; k++ {
			ft.fill(tw, r.next[k][d*S:(d+1)*S], d, k, L)
			stats[k].count(g, tw, r.Bounds, k)
		}
	}
	m := newMinimal(g, r.next[0], make([]int64, g.chOff[S]))
	for d := g.nEP; d < len(g.dests); d++ {
		m.route(d)
	}
	for d := range r.share {
		r.share[d] = d
	}
	r.Trees = -1
	r.Stats = stats
	r.fatTree = true
	return true
}

// count adds one destination's pairs to the layer's statistics: every
// route is minimal, so its length is the switch's distance.
func (st *LayerStats) count(g *graph, tw *toward, b Bounds, k int) {
	for s, h := range tw.hops {
		if s == tw.t || g.hosts[s] == 0 {
			continue
		}
		lo, hi := b.of(int(h))
		st.add(int(h), k == 0 || int(h) >= lo && int(h) <= hi)
	}
}
