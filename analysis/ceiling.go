package analysis

import (
	"fmt"
	"math/bits"
	"sort"

	"slimroute/fabric"
	"slimroute/layers"
)

// Budgets of the enumerating method, per switch pair.
const (
	ceilingPathBudget   = 1 << 14
	ceilingSearchBudget = 1 << 20
	unreachable         = 0xFF
)

// ceilings holds, per ordered switch pair s*S+t, the hop distance and the
// ceiling capped at the limit.
type ceilings struct {
	S      int
	limit  int
	bounds layers.Bounds
	dist   []uint8
	value  []uint8
}

// resolveBounds applies layers.Compute's default to zero bounds: 2..3 hops
// when the switch graph was designed with diameter 2 (a Slim Fly, also
// with a few cables or switches failed: layers.DesignShare), else per
// pair d..d+1.
func resolveBounds(b layers.Bounds, dist []uint8) layers.Bounds {
	if b.PerPair || b.Min > 0 {
		return b
	}
	diam, pairs, near := 0, 0, 0
	for _, d := range dist {
		if d != unreachable && d > 0 {
			diam = max(diam, int(d))
			pairs++
			if d <= 2 {
				near++
			}
		}
	}
	if layers.DesignedDiameter2(diam, pairs, near) {
		return layers.Bounds{Min: 2, Max: 3}
	}
	return layers.Bounds{PerPair: true}
}

// allowedLengths returns the path lengths open to a pair at distance d as
// a bit set: d itself and the bounds of layers ≥ 1, none below d.
func allowedLengths(b layers.Bounds, d int) uint64 {
	lo, hi := b.Min, b.Max
	if b.PerPair {
		lo, hi = d, min(d+1, layers.MaxSearchLen)
	}
	var m uint64 = 1 << d
	for h := max(lo, d); h <= hi && h < 64; h++ {
		m |= 1 << h
	}
	return m
}

// allDistances runs a breadth-first search from every switch.
func allDistances(v *fabric.SwitchView) []uint8 {
	S := len(v.IDs)
	dist := make([]uint8, S*S)
	queue := make([]int, 0, S)
	for s := 0; s < S; s++ {
		row := dist[s*S : (s+1)*S]
		for i := range row {
			row[i] = unreachable
		}
		row[s] = 0
		queue = append(queue[:0], s)
		for i := 0; i < len(queue); i++ {
			x := queue[i]
			if row[x] >= unreachable-1 {
				continue
			}
			for _, c := range v.Adj[x] {
				if row[c.Peer] == unreachable {
					row[c.Peer] = row[x] + 1
					queue = append(queue, c.Peer)
				}
			}
		}
	}
	return dist
}

// computeCeilings finds the ceiling of every ordered pair of distinct
// switches with endpoints.
//
// The ceiling of a switch pair (s, t) is the largest number of pairwise
// channel-disjoint simple paths from s to t whose lengths the bounds allow:
// no destination-based routing with paths of those lengths, whatever its
// number of layers, gives the pair more disjoint paths. A pair at distance d
// may use length d (layer 0 is minimal) and the lengths [lo, hi] the bounds
// give layers ≥ 1 (layers.Bounds: 2..3 hops on a Slim Fly, else d..d+1).
//
// Two exact methods, chosen by the longest allowed length:
//
//   - At most 3 hops: a maximum s–t flow on a four-level network — s; one
//     node a₁ per neighbour a of s; one node b₂ per neighbour b of t; t —
//     with an arc s→a₁ per channel s→a, b₂→t per channel b→t, a₁→b₂ per
//     channel a→b (length 3), a₁→a₂ of unbounded capacity when a neighbours
//     both s and t (length 2) and s→t per direct channel (length 1). Every path of
//     this network is a simple s–t path of 1, 2 or 3 hops and every such
//     path is one of the network's, and each channel of the fabric is
//     exactly one arc of capacity 1 (a first hop leaves s, a last hop
//     enters t, a middle hop joins two switches other than s and t), so an
//     integral maximum flow of this acyclic network decomposes into that
//     many channel-disjoint paths and any set of disjoint paths is a flow:
//     the flow value is the ceiling. (Ford–Fulkerson with depth-first
//     augmenting paths; the network has at most 2 + 2·degree nodes.)
//   - Longer bounds: the flow argument fails (a channel may sit at several
//     distances from s; bounded edge-disjoint paths are NP-complete beyond
//     small bounds, Itai, Perl and Shiloach, Networks 1982), so every
//     bounded simple path is enumerated and the largest disjoint subset
//     found by branch and bound, the bound being the distinct first and
//     last channels still usable. Enumeration and search have budgets (ceilingPathBudget,
//     ceilingSearchBudget); beyond them it fails rather than guess.
//
// Both stop at limit (≤ 255): the figures compare against L layers, so a
// ceiling above L is reported as L. Only pairs of switches with endpoints
// are computed; name names a switch in errors.
func computeCeilings(v *fabric.SwitchView, b layers.Bounds, limit int, name func(s int) string) (*ceilings, error) {
	S := len(v.IDs)
	if name == nil {
		name = func(s int) string { return fmt.Sprintf("switch %d", s) }
	}
	c := &ceilings{S: S, limit: min(limit, 255), dist: allDistances(v)}
	if b == (layers.Bounds{}) && layers.IsDragonflyPlus(v) {
		b = layers.DragonflyPlusBounds // routed with Valiant paths (layers.Compute)
	}
	c.bounds = resolveBounds(b, c.dist)
	c.value = make([]uint8, S*S)
	chOff := channelOffsets(v)
	fn := newFlowNet(S)
	pk := &packer{used: make([]bool, chOff[S]), chOff: chOff, v: v, dist: c.dist, S: S, name: name}
	for s := 0; s < S; s++ {
		for t := 0; t < S; t++ {
			d := c.dist[s*S+t]
			if s == t || d == unreachable || len(v.Endpoints[s]) == 0 || len(v.Endpoints[t]) == 0 {
				continue // no pair of the figures: spare the core of a fat tree
			}
			allowed := allowedLengths(c.bounds, int(d))
			var n int
			if allowed>>4 == 0 {
				n = fn.maxFlow(v, s, t, allowed, c.limit)
			} else {
				var err error
				if n, err = pk.ceiling(s, t, allowed, c.limit); err != nil {
					return nil, err
				}
			}
			c.value[s*S+t] = uint8(n)
		}
	}
	return c, nil
}

// channelOffsets numbers channels as the view does: switch s's i-th
// channel is off[s]+i.
func channelOffsets(v *fabric.SwitchView) []int {
	off := make([]int, len(v.Adj)+1)
	for s := range v.Adj {
		off[s+1] = off[s] + len(v.Adj[s])
	}
	return off
}

// flowNet is the four-level network of one switch pair, rebuilt per pair
// in reused buffers: node 0 is s, node 1 is t.
type flowNet struct {
	arcs  []flowArc
	out   [][]int32 // arc indices per node
	near  []int32   // per switch: its a₁ node, or -1 (reset after each pair)
	far   []int32   // per switch: its b₂ node, or -1
	sw    []int     // per node: its switch
	seen  []int32   // per node: the augmentation that visited it
	round int32
}

type flowArc struct {
	to, cap int32
	rev     int32 // index of the reverse arc
}

const unbounded = 1 << 20

func newFlowNet(S int) *flowNet {
	fn := &flowNet{near: make([]int32, S), far: make([]int32, S)}
	for i := range fn.near {
		fn.near[i], fn.far[i] = -1, -1
	}
	return fn
}

func (fn *flowNet) node(sw int) int32 {
	n := int32(len(fn.sw))
	fn.sw = append(fn.sw, sw)
	if int(n) < len(fn.out) {
		fn.out[n] = fn.out[n][:0]
	} else {
		fn.out = append(fn.out, nil)
	}
	return n
}

func (fn *flowNet) arc(from, to, cap int32) {
	i := int32(len(fn.arcs))
	fn.arcs = append(fn.arcs, flowArc{to: to, cap: cap, rev: i + 1}, flowArc{to: from, cap: 0, rev: i})
	fn.out[from] = append(fn.out[from], i)
	fn.out[to] = append(fn.out[to], i+1)
}

// build lays out the network of (s, t) for the allowed lengths (a subset
// of 1, 2, 3).
func (fn *flowNet) build(v *fabric.SwitchView, s, t int, allowed uint64) {
	fn.arcs, fn.sw = fn.arcs[:0], fn.sw[:0]
	fn.node(s)
	fn.node(t)
	for _, c := range v.Adj[s] {
		if c.Peer == t {
			if allowed&(1<<1) != 0 {
				fn.arc(0, 1, 1)
			}
			continue
		}
		if fn.near[c.Peer] < 0 {
			fn.near[c.Peer] = fn.node(c.Peer)
		}
		fn.arc(0, fn.near[c.Peer], 1)
	}
	for _, c := range v.Adj[t] { // cables are symmetric: one channel c.Peer→t per channel t→c.Peer
		if c.Peer == s {
			continue // the direct channel s→t is already an arc
		}
		if fn.far[c.Peer] < 0 {
			fn.far[c.Peer] = fn.node(c.Peer)
		}
		fn.arc(fn.far[c.Peer], 1, 1)
	}
	for n := int32(2); n < int32(len(fn.sw)); n++ {
		a := fn.sw[n]
		if fn.near[a] != n {
			continue // a b₂ node
		}
		if allowed&(1<<2) != 0 && fn.far[a] >= 0 {
			fn.arc(n, fn.far[a], unbounded)
		}
		if allowed&(1<<3) != 0 {
			for _, c := range v.Adj[a] {
				if c.Peer != s && c.Peer != t && c.Peer != a && fn.far[c.Peer] >= 0 {
					fn.arc(n, fn.far[c.Peer], 1)
				}
			}
		}
	}
}

// clear forgets the switch-to-node maps of the last pair.
func (fn *flowNet) clear() {
	for _, sw := range fn.sw[2:] {
		fn.near[sw], fn.far[sw] = -1, -1
	}
}

// maxFlow returns min(limit, the maximum s–t flow) of the network of
// (s, t).
func (fn *flowNet) maxFlow(v *fabric.SwitchView, s, t int, allowed uint64, limit int) int {
	fn.build(v, s, t, allowed)
	defer fn.clear()
	if len(fn.seen) < len(fn.sw) {
		fn.seen = make([]int32, 2*len(fn.sw))
		fn.round = 0
	}
	flow := 0
	for flow < limit {
		fn.round++
		if fn.round == 0 { // wrapped: old marks could look current
			clear(fn.seen)
			fn.round = 1
		}
		if !fn.augment(0) {
			break
		}
		flow++
	}
	return flow
}

// augment pushes one unit along a residual path from node x to t.
func (fn *flowNet) augment(x int32) bool {
	if x == 1 {
		return true
	}
	fn.seen[x] = fn.round
	for _, i := range fn.out[x] {
		a := &fn.arcs[i]
		if a.cap == 0 || fn.seen[a.to] == fn.round {
			continue
		}
		if fn.augment(a.to) {
			fn.arcs[i].cap--
			fn.arcs[fn.arcs[i].rev].cap++
			return true
		}
	}
	return false
}

// packer finds the ceiling of a pair by enumerating its bounded paths and
// searching for the largest disjoint subset.
type packer struct {
	v     *fabric.SwitchView
	S     int
	dist  []uint8
	chOff []int
	name  func(s int) string
	onSw  []bool // per switch: on the path being enumerated
	paths [][]int32
	stack []int32
	// search state
	used               []bool // per channel: on a chosen path
	best, limit, nodes int
	stamp              []int32 // per channel: counted by bound in this round
	round              int32
}

// ceiling returns min(limit, the most disjoint paths from s to t with an
// allowed length).
func (p *packer) ceiling(s, t int, allowed uint64, limit int) (int, error) {
	if err := p.enumerate(s, t, allowed); err != nil {
		return 0, err
	}
	sort.SliceStable(p.paths, func(i, j int) bool { return len(p.paths[i]) < len(p.paths[j]) })
	p.best, p.limit, p.nodes = 0, limit, 0
	if len(p.stamp) < len(p.used) {
		p.stamp = make([]int32, len(p.used))
	}
	if !p.search(0, 0) {
		return 0, fmt.Errorf("ceiling of %s → %s: more than %d search steps over %d paths; bound the path lengths closer (--max-len)",
			p.name(s), p.name(t), ceilingSearchBudget, len(p.paths))
	}
	return p.best, nil
}

// enumerate lists every simple path from s to t whose length is allowed,
// as channel indices.
func (p *packer) enumerate(s, t int, allowed uint64) error {
	if p.onSw == nil {
		p.onSw = make([]bool, p.S)
	}
	p.paths = p.paths[:0]
	hi := bits.Len64(allowed) - 1
	var walk func(x int) error
	walk = func(x int) error {
		if x == t {
			if allowed&(1<<len(p.stack)) != 0 {
				if len(p.paths) == ceilingPathBudget {
					return fmt.Errorf("ceiling of %s → %s: more than %d paths of at most %d hops; bound the path lengths closer (--max-len)",
						p.name(s), p.name(t), ceilingPathBudget, hi)
				}
				p.paths = append(p.paths, append([]int32(nil), p.stack...))
			}
			return nil
		}
		p.onSw[x] = true
		defer func() { p.onSw[x] = false }()
		for i, c := range p.v.Adj[x] {
			if p.onSw[c.Peer] || len(p.stack)+1+int(p.dist[c.Peer*p.S+t]) > hi {
				continue
			}
			p.stack = append(p.stack, int32(p.chOff[x]+i))
			err := walk(c.Peer)
			p.stack = p.stack[:len(p.stack)-1]
			if err != nil {
				return err
			}
		}
		return nil
	}
	return walk(s)
}

// search extends a disjoint set of chosen paths (their channels marked
// used) with paths from index i on; false when the budget ran out.
func (p *packer) search(i, chosen int) bool {
	p.best = max(p.best, chosen)
	if p.best >= p.limit || chosen+p.bound(i) <= p.best {
		return true
	}
	if p.nodes++; p.nodes > ceilingSearchBudget {
		return false
	}
	for j := i; j < len(p.paths); j++ {
		if !p.fits(p.paths[j]) {
			continue
		}
		p.mark(p.paths[j], true)
		ok := p.search(j+1, chosen+1)
		p.mark(p.paths[j], false)
		if !ok {
			return false
		}
		if p.best >= p.limit || chosen+p.bound(j+1) <= p.best {
			return true
		}
	}
	return true
}

// bound is how many more disjoint paths paths[i:] could add: at most one
// per distinct first channel and one per distinct last channel among the
// paths that still fit.
func (p *packer) bound(i int) int {
	p.round++
	if p.round == 0 {
		clear(p.stamp)
		p.round = 1
	}
	first, last := 0, 0
	for _, q := range p.paths[i:] {
		if !p.fits(q) {
			continue
		}
		if f := q[0]; p.stamp[f] != p.round {
			p.stamp[f] = p.round
			first++
		}
	}
	p.round++
	for _, q := range p.paths[i:] {
		if !p.fits(q) {
			continue
		}
		if l := q[len(q)-1]; p.stamp[l] != p.round {
			p.stamp[l] = p.round
			last++
		}
	}
	return min(first, last)
}

func (p *packer) fits(q []int32) bool {
	for _, ch := range q {
		if p.used[ch] {
			return false
		}
	}
	return true
}

func (p *packer) mark(q []int32, on bool) {
	for _, ch := range q {
		p.used[ch] = on
	}
}
