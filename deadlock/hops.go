package deadlock

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"slimroute/fabric"
	"slimroute/hyperx"
	"slimroute/layers"
)

// AssignHops makes a routing of routes with at most three switch-to-switch
// hops deadlock-free with three VLs, in the manner of Duato's hop-indexed
// virtual channels: hop i of every route travels on VL i.
//
// A switch knows only (in port, out port, SL), so the SL carries what it
// cannot see. Give each switch a colour such that any two switches that
// are the second and third switch of one route have different colours,
// and let the SL of a route be the colour of its second switch. A switch
// then puts a packet on
//
//	VL 0  if it arrived from an HCA (the switch is the route's first),
//	VL 1  if the SL is the switch's own colour (it is the second),
//	VL 2  otherwise (it is the third).
//
// Proof of deadlock freedom. Take a route v0 → v1 → v2 → v3 (shorter
// routes are prefixes). Hop 0 leaves v0, which received the packet from
// an HCA: VL 0. Hop 1 leaves v1, which received it from a switch, with
// SL = colour(v1): VL 1. Hop 2 leaves v2, which received it from a switch,
// with SL = colour(v1) ≠ colour(v2) by the colouring: VL 2. So every
// dependency the route adds goes from a channel on VL i to one on VL i+1,
// the VL strictly grows along every dependency of the CDG, and no cycle
// can exist. What the last switch does with the packet (delivery to the
// HCA) adds no dependency between inter-switch channels. ∎
//
// The colouring only needs to separate the second and third switch of
// routes that have a hop 2 (three-hop routes); it is found greedily, most
// constrained switch first (DSatur, Brélaz 1979).
//
// A fabric with failed cables or switches has a few longer routes (in a
// girth-5 Slim Fly, the two ends of a failed cable are four hops apart).
// When four-hop routes v0 → … → v4 exist, hop 3 gets VL 3: the colouring
// also separates v1 from v3 of every four-hop route, and a switch that
// receives from a switch and does not see its own colour in the SL looks
// at the switch on its in port: if that one's colour is in the SL, it is
// fed by the second switch and is the third (VL 2), else it is the fourth
// (VL 3). On a route of up to three hops the third switch is fed by the
// second, so it still takes VL 2; again hop i goes on VL i, and the proof
// stands. (Without four-hop routes the rule stays as above, so the tables
// of an intact fabric do not change.) Routes of five hops or more take
// SLs above the colours and are packed first fit into VLs of their own
// from VL 4 on, each VL's CDG kept acyclic (as AssignDFSSSP packs), one VL
// per route on every hop: no dependency leaves such a VL. More SLs than 16
// or more VLs than opts.VLs are errors that say how many would be needed.
func AssignHops(r *layers.Routing, opts Options) (*Assignment, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	S := r.NumSwitches()
	// first pass: the colouring's conflicts, and the routes of five hops or
	// more (few); routes are walked, not stored (there are tens of
	// millions on a large fabric)
	workers := max(1, opts.Workers)
	each := make([]*hopsSeen, workers) // apart, so that workers share no cache line
	for w := range each {
		each[w] = &hopsSeen{c: newConflicts(S)}
	}
	err = eachPath(r, workers, func(w, b int, p path, hops int) {
		seen := each[w]
		seen.longest = max(seen.longest, hops)
		switch {
		case hops == 3:
			seen.c.separate(p.v[1], p.v[2]) // the second switch from the third
		case hops == 4:
			seen.c.separate(p.v[1], p.v[2]) // … and on four-hop routes from the fourth
			seen.c.separate(p.v[1], p.v[3])
			seen.four++
		case hops > 4:
			seen.long = append(seen.long, batchPath{b, p})
		}
	})
	if err != nil {
		return nil, err
	}
	c, long, longest, four := mergeSeen(S, each)
	colors, n := dsatur(c.lists())
	grid := false
	if n > MaxSLs {
		if gc, m := gridColours(r, c); m > 0 && m < n {
			colors, n, grid = gc, m, true
		}
	}
	need := max(longest, 1)
	var longVL []uint8
	nLong := 0
	if len(long) > 0 {
		need = 4
		if longVL, nLong, err = packLong(r, long, opts.VLs-need, MaxSLs-n); err != nil {
			var s *vlShortage
			if errors.As(err, &s) && s.needs > MaxVLs {
				s.msg += "; " + otherScheme(r, opts)
			}
			return nil, err
		}
	}
	need = min(need, 4)
	if n+nLong > MaxSLs {
		return nil, fmt.Errorf("the hop-indexed scheme needs %d service levels on this routing (%d switch colours, %d for routes of five hops or more), InfiniBand has %d; %s", n+nLong, n, nLong, MaxSLs, otherScheme(r, opts))
	}
	if need+nLong > opts.VLs {
		return nil, &vlShortage{need + nLong, fmt.Sprintf("the hop-indexed scheme needs %d VLs for routes of %d hops, but only %d are available; allow %d VLs (--vls %d) if the switches have them", need+nLong, longest, opts.VLs, need+nLong, need+nLong)}
	}
	a := newHopAssignment(r)
	a.Colors, a.fourHops, a.grid = colors, four > 0 || len(long) > 0, grid
	a.longSL, a.longVLs = n, nLong
	// the SLs are not stored: a route's SL is the colour of its second
	// switch (see Assignment.hopSLs), but for the routes of five hops or more
	for i, p := range long {
		key := [2]int32{int32(p.k), int32(p.d)}
		a.long[key] = append(a.long[key], longSL{int32(p.s), uint8(n + int(longVL[i]))})
	}
	a.VLs, a.SLs, a.Needed = need+nLong, n+nLong, need+nLong
	a.LongRoutes = four + len(long)
	return a, nil
}

// gridColours colours the switches of a HyperX (a Hamming graph, as
// hyperx.Match finds it) with the sum of their coordinates modulo the
// largest size: two switches on a line differ in one coordinate by less
// than that, so every cable joins two colours and the colouring is proper
// for any conflicts, with as many colours as the largest line has
// switches, the fewest any proper colouring can have (a line is a
// clique). DSatur needed 18 on 16 × 16, two more than InfiniBand's SLs.
// It returns the colours and their number, or 0 when the switches are no
// HyperX or the colouring does not separate c's conflicts.
func gridColours(r *layers.Routing, c *conflicts) ([]int, int) {
	S := r.NumSwitches()
	index := map[fabric.NodeID]int32{}
	for s := range S {
		index[r.SwitchID(s)] = int32(s)
	}
	v := r.Fabric.SwitchView()
	adj := make([][]int32, S)
	for s := range S {
		for _, ch := range v.Adj[v.Index[r.SwitchID(s)]] {
			t := index[v.IDs[ch.Peer]]
			if !slices.Contains(adj[s], t) {
				adj[s] = append(adj[s], t)
			}
		}
	}
	dims, at := hyperx.Match(adj)
	if dims == nil {
		return nil, 0
	}
	shape, m := hyperx.Shape{Dims: dims}, slices.Max(dims)
	colors := make([]int, S)
	for s := range S {
		sum := 0
		for _, x := range shape.CoordOf(int(at[s])) {
			sum += x
		}
		colors[s] = sum % m
	}
	for a, nb := range c.lists() {
		for _, b := range nb {
			if colors[a] == colors[b] {
				return nil, 0
			}
		}
	}
	return colors, m
}

// path is one route with its first switches: v[i] is the switch after i
// hops (-1 past the end).
type path struct {
	k, s, d int
	v       [5]int
}

// eachPath calls f with every route (see eachRouteOn, whose workers and
// batches f learns), its first switches and its length in switch-to-switch
// hops; it fails on a route that loops.
func eachPath(r *layers.Routing, workers int, f func(w, batch int, p path, hops int)) error {
	S := r.NumSwitches()
	return eachRouteOn(r, workers, func(w, batch int, rt route) error {
		p := path{k: int(rt.layer), s: int(rt.s), d: int(rt.d), v: [5]int{int(rt.s), -1, -1, -1, -1}}
		hops := 0
		for x := p.s; ; hops++ {
			y := r.NextSwitch(p.k, x, p.d)
			if y < 0 {
				break
			}
			if hops > S {
				return fmt.Errorf("layer %d: the route from %s to %s loops", p.k, r.Fabric.Node(r.SwitchID(p.s)).Name, r.DestName(p.d))
			}
			if hops < 4 {
				p.v[hops+1] = y
			}
			x = y
		}
		f(w, batch, p, hops)
		return nil
	})
}

// hopsSeen is what one worker of AssignHops' first pass saw: the
// colouring's conflicts, the longest route, the four-hop routes and the
// routes of five hops or more (few; routes are walked, not stored: there
// are tens of millions on a large fabric).
type hopsSeen struct {
	c       *conflicts
	longest int
	four    int
	long    []batchPath
}

// batchPath is a route of five hops or more and the batch it came in.
type batchPath struct {
	batch int
	p     path
}

// mergeSeen joins the workers' findings: the conflicts' union, the long
// routes in eachRouteOn's order (by batch; a batch is one worker's, in
// order), the longest route and the number of four-hop routes.
func mergeSeen(S int, each []*hopsSeen) (c *conflicts, long []path, longest, four int) {
	c = newConflicts(S)
	var all []batchPath
	for _, seen := range each {
		for i, w := range seen.c.bit {
			c.bit[i] |= w
		}
		longest, four = max(longest, seen.longest), four+seen.four
		all = append(all, seen.long...)
	}
	slices.SortStableFunc(all, func(a, b batchPath) int { return a.batch - b.batch })
	for _, bp := range all {
		long = append(long, bp.p)
	}
	return c, long, longest, four
}

// conflicts is the graph a colouring must respect, as a bit matrix over
// the switches.
type conflicts struct {
	n   int
	bit []uint64
}

func newConflicts(n int) *conflicts { return &conflicts{n: n, bit: make([]uint64, (n*n+63)/64)} }

// separate asks for different colours on switches a and b.
func (c *conflicts) separate(a, b int) {
	for _, ab := range [2][2]int{{a, b}, {b, a}} {
		i := ab[0]*c.n + ab[1]
		c.bit[i/64] |= 1 << (i % 64)
	}
}

// lists returns sorted adjacency lists.
func (c *conflicts) lists() [][]int32 {
	adj := make([][]int32, c.n)
	for a := 0; a < c.n; a++ {
		for b := 0; b < c.n; b++ {
			if i := a*c.n + b; c.bit[i/64]&(1<<(i%64)) != 0 {
				adj[a] = append(adj[a], int32(b))
			}
		}
	}
	return adj
}

// packLong packs the routes of five hops or more first fit into at most
// avail VLs (counted from 0) whose CDGs stay acyclic, and returns each
// route's VL and the number of VLs used. When avail is not enough it
// fails with the number of VLs the routes need, or, when they need more
// than the slsLeft SLs the colours leave, says that the scheme cannot.
func packLong(r *layers.Routing, long []path, avail, slsLeft int) ([]uint8, int, error) {
	routes := make([]route, len(long))
	off := make([]int32, len(long)+1)
	var chans []int32
	var buf []int
	for i, p := range long {
		routes[i] = route{s: int32(p.s), d: int32(p.d), layer: int16(p.k)}
		var err error
		if buf, err = r.PathChannels(p.k, p.s, p.d, buf); err != nil {
			return nil, 0, err
		}
		for _, c := range buf {
			chans = append(chans, int32(c))
		}
		off[i+1] = int32(len(chans))
	}
	if avail >= 1 {
		if vl, failed := packFirstFit(routes, off, chans, r.NumChannels(), avail); len(failed) == 0 {
			return vl, vlsUsed(vl), nil
		}
	}
	cause := "some switches are that far apart, or cables or switches failed"
	if b := r.Bounds; !b.PerPair && b.Max > 4 {
		cause = fmt.Sprintf("--max-len %d allows them", b.Max)
	}
	msg := fmt.Sprintf("%d routes have five or more switch-to-switch hops (%s)", len(long), cause)
	most := MaxVLs - 4
	if vl, failed := packFirstFit(routes, off, chans, r.NumChannels(), most); len(failed) == 0 && vlsUsed(vl) <= slsLeft {
		need := 4 + vlsUsed(vl)
		return nil, 0, &vlShortage{need, fmt.Sprintf("%s: the hop-indexed scheme needs %d VLs for them, %d are available; allow %d VLs (--vls %d) if the switches have them", msg, need, avail+4, need, need)}
	}
	return nil, 0, &vlShortage{MaxVLs + 1, fmt.Sprintf("%s: they do not fit the VLs and SLs InfiniBand has beside the 4 hop classes", msg)}
}

// otherScheme says what to do when the hop-indexed scheme cannot take
// routing r: DFSSSP when it fits (it is tried), else what does — the
// default path lengths, when the bounds asked for long paths, DFSSSP with
// the VLs it needs, or unprotected routes.
func otherScheme(r *layers.Routing, opts Options) string {
	if opts.probe {
		return "use --deadlock dfsssp"
	}
	a, err := AssignDFSSSP(r, Options{VLs: opts.VLs, probe: true})
	if err == nil {
		return fmt.Sprintf("use --deadlock dfsssp (it fits this routing on %d VLs)", a.VLs)
	}
	var fixes []string
	if b := r.Bounds; !b.PerPair && b.Max > 4 {
		fixes = append(fixes, "leave out --min-len and --max-len (the default path lengths)")
	}
	if s := (*vlShortage)(nil); errors.As(err, &s) && s.needs <= MaxVLs {
		fixes = append(fixes, fmt.Sprintf("use --deadlock dfsssp --vls %d if the switches have %d VLs", s.needs, s.needs))
	}
	fixes = append(fixes, "or accept unprotected routes (--deadlock dfsssp --best-effort)")
	return "DFSSSP does not fit it either: " + strings.Join(fixes, ", ")
}

// dsatur colours the graph given by sorted adjacency lists: repeatedly the
// uncoloured vertex with the most distinct neighbour colours (ties: most
// uncoloured neighbours, then lowest index) takes the smallest colour free
// among its neighbours. It returns the colours and their number.
func dsatur(nbr [][]int32) ([]int, int) {
	n := len(nbr)
	colors := make([]int, n)
	for i := range colors {
		colors[i] = -1
	}
	satur := make([]map[int]bool, n)
	for i := range satur {
		satur[i] = map[int]bool{}
	}
	used := 0
	for done := 0; done < n; done++ {
		best := -1
		for v := 0; v < n; v++ {
			if colors[v] >= 0 {
				continue
			}
			if best < 0 || len(satur[v]) > len(satur[best]) || (len(satur[v]) == len(satur[best]) && len(nbr[v]) > len(nbr[best])) {
				best = v
			}
		}
		c := 0
		for satur[best][c] {
			c++
		}
		colors[best] = c
		used = max(used, c+1)
		for _, u := range nbr[best] {
			satur[u][c] = true
		}
	}
	return colors, used
}

// HopsKeeping returns the hop-indexed assignment of r under prev's
// colours (AssignHops of a routing of the same switches, by switch
// index), so that the SL-to-VL tables stay prev's (the four-hop rule too,
// where prev has it on) and a route's SL is the colour of its second
// switch, as before — a switch-over from prev's routing changes no
// SL-to-VL table (layers.SwitchOver). ok is false when prev is not
// Keepable, or a route of r has more hops than prev's rules allow (three,
// four with the four-hop rule on) or switches the colouring does not
// separate (the second from the third; on a four-hop route the second
// from the fourth too). Cost: a walk of every route of r on workers
// goroutines.
func HopsKeeping(prev *Assignment, r *layers.Routing, workers int) (*Assignment, bool) {
	if !Keepable(prev) || len(prev.Colors) != r.NumSwitches() {
		return nil, false
	}
	c := prev.Colors
	bad, four := make([]bool, max(1, workers)), make([]int, max(1, workers)) // apart, per worker
	err := eachPath(r, max(1, workers), func(w, _ int, p path, hops int) {
		switch {
		case hops > 4 || hops == 4 && !prev.fourHops:
			bad[w] = true
		case hops >= 3 && c[p.v[1]] == c[p.v[2]], hops == 4 && c[p.v[1]] == c[p.v[3]]:
			bad[w] = true
		case hops == 4:
			four[w]++
		}
	})
	if err != nil || slices.Contains(bad, true) {
		return nil, false
	}
	a := newHopAssignment(r)
	a.Colors = slices.Clone(c)
	a.VLs, a.SLs, a.Needed = prev.VLs, prev.SLs, prev.Needed
	a.fourHops, a.longSL, a.longVLs = prev.fourHops, prev.longSL, prev.longVLs
	for _, n := range four {
		a.LongRoutes += n
	}
	return a, true
}

// Keepable tells whether HopsKeeping may keep a's colours: a hop-indexed
// assignment of DSatur's colours with no route of five hops or more
// (whose SLs are packed route by route).
func Keepable(a *Assignment) bool {
	return a != nil && a.Scheme == SchemeHops && !a.grid && len(a.long) == 0
}

// HopsFor returns the hop-indexed assignment a (AssignHops of a
// template's routing, layers.Template.Routing) for r, a routing whose
// tables are the template's as they are (r.OfTemplate): the same routes,
// switch index for switch index, on a fabric that may name, number and
// cable its ports otherwise. The colours, and the SLs of routes of five
// hops or more, depend on the routes alone (DSatur on their conflicts);
// what the SL-to-VL tables read of the ports is r's fabric's. Cost:
// O(ports), where AssignHops walks every route. ok is false when a is no
// hop-indexed assignment, its colours are a HyperX grid's (gridColours
// reads the fabric's port order), or r does not hold its template's
// routes.
func HopsFor(a *Assignment, r *layers.Routing, t *layers.Template) (*Assignment, bool) {
	if a == nil || a.Scheme != SchemeHops || a.grid || t == nil || a.r != t.Routing() || !r.OfTemplate(t) {
		return nil, false
	}
	b := newHopAssignment(r)
	b.VLs, b.SLs, b.Needed, b.LongRoutes = a.VLs, a.SLs, a.Needed, a.LongRoutes
	b.Colors, b.fourHops, b.longSL, b.longVLs = slices.Clone(a.Colors), a.fourHops, a.longSL, a.longVLs
	for k, v := range a.long {
		b.long[k] = slices.Clone(v)
	}
	return b, true
}
