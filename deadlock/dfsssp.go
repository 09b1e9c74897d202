package deadlock

import (
	"fmt"
	"slices"

	"slimroute/layers"
)

// AssignDFSSSP separates the routes of r into virtual layers — one VL
// each — whose channel dependency graphs are acyclic, as DFSSSP does
// (Domke, Hoefler and Nagel, IPDPS 2011). Two packings are tried:
//
//   - first fit (the first choice): routes, minimal layer first, each go to
//     the lowest VL whose CDG stays acyclic with them (as LASH fills its
//     layers; acyclicity kept by a dynamic topological order); when a few
//     routes end up alone on a top VL, reseatTop moves them lower by
//     evicting the routes that close their cycles to other VLs;
//   - cycle breaking (DFSSSP's own, tried when first fit runs out of VLs):
//     all routes start on VL 0; while its CDG has a cycle, the routes of
//     the cycle's least used edge leave, each to the lowest higher VL that
//     stays acyclic.
//
// Measured on Slim Fly with 4 layers, first fit needs 4, 4, 5 and 4 VLs
// for q = 5, 7, 11 and 13 (5 on q = 13 before reseating) where cycle
// breaking needs 6, 8 and 10 on q = 5, 7, 11; with one (minimal)
// layer both need 2–3. Then the fullest VLs are split into the spare ones
// (a subset of an acyclic set stays acyclic), so traffic spreads over all
// opts.VLs. A route's SL is its VL, and every SL2VL table is the identity.
//
// When opts.VLs are not enough it fails, saying how many VLs first fit
// needs (it always packs over all MaxVLs to know) and how many routes fit
// nowhere, unless opts.BestEffort is set: then those routes go on the last
// VL, unprotected, and are listed in Assignment.OnCycle. Either way the
// work is bounded by the routes' channels times MaxVLs, whatever opts.VLs.
func AssignDFSSSP(r *layers.Routing, opts Options) (*Assignment, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	p, err := packDFSSSP(r, opts.VLs)
	if err != nil {
		return nil, err
	}
	if len(p.failed) > 0 && !opts.BestEffort {
		return nil, p.tooFewVLs(r, opts)
	}
	a := newAssignment(r, SchemeDFSSSP)
	a.Packing, a.Needed = p.name, vlsUsed(p.vl)
	if len(p.failed) > 0 {
		a.RoutesOnCycle, a.Needed = len(p.failed), p.firstFitNeeds
		for _, ri := range p.failed[:min(len(p.failed), 50)] {
			rt := p.routes[ri]
			a.OnCycle = append(a.OnCycle, fmt.Sprintf("layer %d: %s -> %s", rt.layer, r.Fabric.Node(r.SwitchID(int(rt.s))).Name, r.DestName(int(rt.d))))
		}
	}
	used := spread(p.routes, p.vl, vlsUsed(p.vl), opts.VLs)
	for i, rt := range p.routes {
		*a.slot(int(rt.layer), int(rt.s), int(rt.d)) = p.vl[i]
	}
	copySharedSLs(a)
	a.VLs, a.SLs = used, used
	return a, nil
}

// packing is the outcome of packing the routes into VLs.
type packing struct {
	name          string  // "first fit" or "cycle breaking"
	routes        []route // the routes, and the VL of each
	vl            []uint8
	failed        []int32 // routes that fit on no VL (left on the last one)
	firstFitNeeds int     // VLs first fit needs; MaxVLs+1: more than InfiniBand has
}

// packDFSSSP packs the routes of r into vls VLs, first fit, then cycle
// breaking if first fit leaves routes over. Every route is placed at most
// once by each packing, so the work and memory are bounded by the routes'
// channels times MaxVLs, whatever vls is.
func packDFSSSP(r *layers.Routing, vls int) (*packing, error) {
	routes, off, chans, err := routeChannels(r)
	if err != nil {
		return nil, err
	}
	C := r.NumChannels()
	// First fit over every VL InfiniBand has tells how many this routing
	// needs; on the first vls VLs it places exactly what a run limited to
	// them would (a VL's DAG holds only the routes placed on it).
	vl, failed, dags := packFirstFitDAGs(routes, off, chans, C, MaxVLs)
	if len(failed) == 0 {
		reseatTop(off, chans, vl, dags)
	}
	p := &packing{name: "first fit", routes: routes, firstFitNeeds: MaxVLs + 1}
	if len(failed) == 0 {
		p.firstFitNeeds = vlsUsed(vl)
	}
	p.vl, p.failed = vl, overflow(vl, failed, vls)
	if len(p.failed) > 0 {
		if vl2, failed2 := packBreaking(routes, off, chans, C, vls); better(vl2, failed2, p.vl, p.failed) {
			p.vl, p.failed, p.name = vl2, failed2, "cycle breaking"
		}
	}
	return p, nil
}

// routeChannels lists the routes of r and the channels of each, flattened:
// route i crosses chans[off[i]:off[i+1]].
func routeChannels(r *layers.Routing) (routes []route, off, chans []int32, err error) {
	routes = enumerate(r)
	off = make([]int32, len(routes)+1)
	var buf []int
	for i, rt := range routes {
		buf, err = r.PathChannels(int(rt.layer), int(rt.s), int(rt.d), buf)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, c := range buf {
			chans = append(chans, int32(c))
		}
		off[i+1] = int32(len(chans))
	}
	return routes, off, chans, nil
}

// tooFewVLs is the error of a packing that left routes over; each piece of
// advice in it works when followed.
func (p *packing) tooFewVLs(r *layers.Routing, opts Options) error {
	need := fmt.Sprintf("more than %d VLs, the most InfiniBand has", MaxVLs)
	fix := ""
	if p.firstFitNeeds <= MaxVLs {
		need = fmt.Sprintf("%d VLs", p.firstFitNeeds)
		fix = fmt.Sprintf("allow %d VLs (--vls %d), ", p.firstFitNeeds, p.firstFitNeeds)
	}
	if !opts.probe {
		if _, err := AssignHops(r, Options{VLs: opts.VLs, probe: true}); err == nil {
			fix += "use the hop-indexed scheme (--deadlock hops), "
		}
	}
	return &vlShortage{p.firstFitNeeds, fmt.Sprintf("DFSSSP needs %s on this routing, %d allowed: %d routes fit on no VL without closing a cycle; %sor accept unprotected routes (--best-effort)",
		need, opts.VLs, len(p.failed), fix)}
}

// overflow returns the routes that are failed or on a VL ≥ vls, in route
// order, and puts them on the last VL.
func overflow(vl []uint8, failed []int32, vls int) []int32 {
	isFailed := make([]bool, len(vl))
	for _, ri := range failed {
		isFailed[ri] = true
	}
	var out []int32
	for ri, v := range vl {
		if int(v) >= vls || isFailed[ri] {
			out = append(out, int32(ri))
			vl[ri] = uint8(vls - 1)
		}
	}
	return out
}

// packBreaking is DFSSSP's packing: every route starts on VL 0 and the
// cycles of VL 0 are broken by moving the routes of each cycle's least used
// edge; a moved route goes to the lowest higher VL where its dependencies
// close no cycle. Routes that fit nowhere are returned (on the last VL).
func packBreaking(routes []route, off, chans []int32, C, vls int) ([]uint8, []int32) {
	vl := make([]uint8, len(routes))
	higher := make([]*dag, vls)
	for v := 1; v < vls; v++ {
		higher[v] = newDAG(C)
	}
	var failed []int32
	breakCycles(routes, off, chans, C, func(ri int32) {
		edges := chans[off[ri]:off[ri+1]]
		for v := 1; v < vls; v++ {
			if higher[v].tryAdd(edges) {
				vl[ri] = uint8(v)
				return
			}
		}
		failed = append(failed, ri)
		vl[ri] = uint8(vls - 1)
	})
	return vl, failed
}

// packFirstFit places the routes one by one, in route order (layer 0, the
// minimal layer, first), on the lowest VL where they close no cycle.
func packFirstFit(routes []route, off, chans []int32, C, vls int) ([]uint8, []int32) {
	vl, failed, _ := packFirstFitDAGs(routes, off, chans, C, vls)
	return vl, failed
}

// packFirstFitDAGs is packFirstFit, returning each VL's dependency graph
// as well.
func packFirstFitDAGs(routes []route, off, chans []int32, C, vls int) ([]uint8, []int32, []*dag) {
	vl := make([]uint8, len(routes))
	dags := make([]*dag, vls)
	var failed []int32
	for ri := range routes {
		edges := chans[off[ri]:off[ri+1]]
		placed := false
		for v := 0; v < vls && !placed; v++ {
			if dags[v] == nil {
				dags[v] = newDAG(C)
			}
			if dags[v].tryAdd(edges) {
				vl[ri] = uint8(v)
				placed = true
			}
		}
		if !placed {
			failed = append(failed, int32(ri))
			vl[ri] = uint8(vls - 1)
		}
	}
	return vl, failed, dags
}

func vlsUsed(vl []uint8) int {
	used := 1
	for _, v := range vl {
		used = max(used, int(v)+1)
	}
	return used
}

// better prefers fewer routes left on cycles, then fewer VLs.
func better(vl []uint8, failed []int32, than []uint8, thanFailed []int32) bool {
	if len(failed) != len(thanFailed) {
		return len(failed) < len(thanFailed)
	}
	return vlsUsed(vl) < vlsUsed(than)
}

// cdgEdge is a dependency between two channels with the routes inducing it.
type cdgEdge struct {
	from, to int32
	count    int32
	routes   []int32
}

// breakCycles makes the CDG of the routes on VL 0 acyclic: while it has a
// cycle, the routes inducing the cycle's least used edge leave VL 0 and are
// handed to place.
//
// Every route leaves VL 0 at most once (left), whether place finds it a VL
// or not, and every cycle found moves at least one route (the cycle's
// edges all have a route on VL 0), so there are at most len(routes)
// cycles to break.
func breakCycles(routes []route, off, chans []int32, C int, place func(int32)) {
	left := make([]bool, len(routes))
	ids := map[uint64]int32{}
	var edges []cdgEdge
	key := func(a, b int32) uint64 { return uint64(a)<<32 | uint64(uint32(b)) }
	for i := range routes {
		for j := off[i]; j+1 < off[i+1]; j++ {
			k := key(chans[j], chans[j+1])
			e, ok := ids[k]
			if !ok {
				e = int32(len(edges))
				ids[k] = e
				edges = append(edges, cdgEdge{from: chans[j], to: chans[j+1]})
			}
			edges[e].count++
			edges[e].routes = append(edges[e].routes, int32(i))
		}
	}
	adjOff := make([]int32, C+1)
	for _, e := range edges {
		adjOff[e.from+1]++
	}
	for c := 0; c < C; c++ {
		adjOff[c+1] += adjOff[c]
	}
	adj := make([]int32, len(edges))
	fill := append([]int32(nil), adjOff[:C]...)
	for i, e := range edges {
		adj[fill[e.from]] = int32(i)
		fill[e.from]++
	}
	const white, gray, black = 0, 1, 2
	color := make([]uint8, C)
	next := make([]int32, C)
	type frame struct{ node, via int32 } // via: edge that led here, -1 at a root
	var stack []frame
	for root := 0; root < C; root++ {
		if color[root] != white {
			continue
		}
		stack = append(stack[:0], frame{int32(root), -1})
		color[root], next[root] = gray, adjOff[root]
		for len(stack) > 0 {
			u := stack[len(stack)-1].node
			if next[u] == adjOff[u+1] {
				color[u] = black
				stack = stack[:len(stack)-1]
				continue
			}
			ei := adj[next[u]]
			next[u]++
			e := &edges[ei]
			if e.count == 0 {
				continue
			}
			switch color[e.to] {
			case white:
				color[e.to], next[e.to] = gray, adjOff[e.to]
				stack = append(stack, frame{e.to, ei})
			case gray:
				// the cycle: stack from e.to to u, closed by ei
				best := ei
				for i := len(stack) - 1; stack[i].node != e.to; i-- {
					if c := stack[i].via; edges[c].count < edges[best].count {
						best = c
					}
				}
				for _, ri := range edges[best].routes {
					if left[ri] {
						continue
					}
					left[ri] = true
					for j := off[ri]; j+1 < off[ri+1]; j++ {
						edges[ids[key(chans[j], chans[j+1])]].count--
					}
					place(ri)
				}
				// restart from the root: gray nodes become white again,
				// black ones stay (removing edges creates no cycle)
				for _, fr := range stack {
					color[fr.node] = white
				}
				stack = append(stack[:0], frame{int32(root), -1})
				color[root], next[root] = gray, adjOff[root]
			}
		}
	}
}

// spread moves routes from the fullest VLs into the unused ones, half a VL
// at a time, and returns the number of VLs then in use. Moving part of an
// acyclic VL's routes to an empty VL leaves both acyclic.
func spread(routes []route, vl []uint8, used, avail int) int {
	for used < avail {
		count := make([]int, used)
		for _, v := range vl {
			count[v]++
		}
		full := 0
		for v := range count {
			if count[v] > count[full] {
				full = v
			}
		}
		if count[full] < 2 {
			break
		}
		// every second route of the fullest VL, in route order
		n := 0
		for i := range vl {
			if int(vl[i]) == full {
				if n%2 == 1 {
					vl[i] = uint8(used)
				}
				n++
			}
		}
		used++
	}
	return used
}

// reseatMost bounds the routes on the top VL that reseatTop tries to move:
// a few are the rule (Slim Fly q = 13: 3 of 2.6 million), and each
// eviction reads every route once.
const reseatMost = 16

// reseatTop empties the top VL of a first-fit packing into the lower ones
// while it holds at most reseatMost routes and each of them finds room:
// on a lower VL v directly, or after evicting from v the routes of the
// dependencies that close its cycles (reseat), if those then fit on other
// lower VLs. Every VL's graph stays acyclic throughout.
func reseatTop(off, chans []int32, vl []uint8, dags []*dag) {
	for {
		top := vlsUsed(vl) - 1
		if top == 0 {
			return
		}
		var on []int
		for ri, v := range vl {
			if int(v) == top {
				on = append(on, ri)
				if len(on) > reseatMost {
					return
				}
			}
		}
		for _, ri := range on {
			if !reseat(ri, top, off, chans, vl, dags) {
				return
			}
		}
	}
}

// reseat moves route ri from VL top to a lower one v, evicting from v
// the routes of the least shared dependency that closes a cycle with it
// (reseatEvict at most) if they then fit on other lower VLs; it reports
// whether it did.
func reseat(ri, top int, off, chans []int32, vl []uint8, dags []*dag) bool {
	edges := func(r int) []int32 { return chans[off[r]:off[r+1]] }
	for v := 0; v < top; v++ {
		var evicted []int
		fits := dags[v].tryAdd(edges(ri))
		for !fits && len(evicted) < reseatEvict {
			block := dags[v].blockers(edges(ri))
			if len(block) == 0 {
				break
			}
			e := block[0]
			for _, x := range block[1:] {
				if dags[v].uses[edgeKey(x[0], x[1])] < dags[v].uses[edgeKey(e[0], e[1])] {
					e = x
				}
			}
			if int(dags[v].uses[edgeKey(e[0], e[1])])+len(evicted) > reseatEvict {
				break
			}
			for _, b := range routesWith(e, v, off, chans, vl) {
				if !slices.Contains(evicted, b) { // evicted earlier: vl still says v
					dags[v].remove(edges(b))
					evicted = append(evicted, b)
				}
			}
			fits = dags[v].tryAdd(edges(ri))
		}
		if fits {
			if to, ok := placeElsewhere(evicted, v, top, edges, dags); ok {
				dags[top].remove(edges(ri))
				vl[ri] = uint8(v)
				for i, b := range evicted {
					vl[b] = uint8(to[i])
				}
				return true
			}
			dags[v].remove(edges(ri))
		}
		for i := len(evicted) - 1; i >= 0; i-- {
			if !dags[v].tryAdd(edges(evicted[i])) {
				panic("deadlock: a route no longer fits where it was")
			}
		}
	}
	return false
}

// reseatEvict bounds the routes reseat evicts for one route: Slim Fly
// q = 13's three routes on a fifth VL need up to 32 (8 were not enough).
const reseatEvict = 32

// placeElsewhere puts each route of rs on the lowest VL below top other
// than v where it fits, and returns those VLs; if one fits nowhere it
// takes the others out again and reports false.
func placeElsewhere(rs []int, v, top int, edges func(int) []int32, dags []*dag) ([]int, bool) {
	to := make([]int, len(rs))
	for i, b := range rs {
		to[i] = -1
		for u := 0; u < top && to[i] < 0; u++ {
			if u != v && dags[u].tryAdd(edges(b)) {
				to[i] = u
			}
		}
		if to[i] < 0 {
			for j := i - 1; j >= 0; j-- {
				dags[to[j]].remove(edges(rs[j]))
			}
			return nil, false
		}
	}
	return to, true
}

// routesWith returns the routes on VL v that have dependency e, in route
// order.
func routesWith(e [2]int32, v int, off, chans []int32, vl []uint8) []int {
	var out []int
	for ri, w := range vl {
		if int(w) != v {
			continue
		}
		c := chans[off[ri]:off[ri+1]]
		for j := 0; j+1 < len(c); j++ {
			if c[j] == e[0] && c[j+1] == e[1] {
				out = append(out, ri)
				break
			}
		}
	}
	return out
}
