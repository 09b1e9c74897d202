package layers

import (
	"slimroute/fabric"
	"slimroute/internal/laps"
)

// Compute routes every destination of f in opts.Layers layers. It fails on
// bad options and on a disconnected fabric (an *UnreachableError naming the
// groups of switches that cannot reach each other).
//
// It runs these passes, each in its own file, and times them
// (Routing.Passes):
//
//	symmetry  a Slim Fly (or a HyperX of two dimensions) in its design's order, and its translations: search one
//	          destination switch per orbit (symmetry.go)
//	fattree   up/down layers for a Clos or fat tree, and nothing else (fattree.go)
//	template  the tables of Options.Template where the fabric, in its design's order,
//	          fits it, and nothing else: the symmetry lap then only recognises the
//	          design, without the group (template.go)
//	minimal   layer 0, minimal and balanced (minimal.go)
//	dragonfly+ layers ≥ 1 of a Dragonfly+ group pair by group pair, Valiant
//	          through a third group, and nothing else (dragonflyplus.go)
//	almost    layers ≥ 1 under the entry colouring (almost.go, entry.go)
//	regrow    trees under their own colourings, for disjoint paths (regrow.go, entrytrees.go)
//	balance   each layer's hot channels, then short pairs (balance.go, mend.go)
//	unload    hot channels and overlaps of regrown layers (unload.go, unlap.go)
//	expand    the representatives' trees mapped onto their orbits (symmetry.go)
//	traffic   the trees the jobs' flows take, for Options.Traffic (traffic.go)
func Compute(f *fabric.Fabric, opts Options) (*Routing, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if opts.Traffic != nil {
		if err := checkTraffic(f, opts.Traffic, opts.Layers); err != nil {
			return nil, err
		}
	}
	g, err := newGraph(f, opts.AvoidLinks)
	if err != nil {
		return nil, err
	}
	g.parallel = opts.Workers > 1
	w := laps.Start(opts.Clock)
	var r *Routing
	lap := func(pass string) { // time the pass; tests look at its result
		w.Lap(pass)
		if opts.afterPass != nil {
			opts.afterPass(pass, g, r)
		}
	}
	if t := opts.Template; t != nil && !opts.asymmetric && t.sized(g) {
		if dg := designOrder(g); t.fits(dg, opts) { // (the template's group is not needed)
			g = dg
			lap("symmetry")
			r = newRouting(f, g, opts)
			t.copyTo(r)
			r.template = t
			lap("template")
			if err := forTraffic(g, r, opts, lap); err != nil { // (the jobs' pass starts from the finished layers)
				return nil, err
			}
			r.Passes = w.Laps()
			return r, nil
		}
	}
	if !opts.asymmetric {
		var sym *symmetry
		g, sym = findSymmetry(g)
		g.sym = sym
	}
	lap("symmetry")
	r = newRouting(f, g, opts)
	if opts.MinLen == 0 && routeFatTree(g, r) {
		lap("fattree")
		if err := forTraffic(g, r, opts, lap); err != nil {
			return nil, err
		}
		r.Passes = w.Laps()
		return r, nil
	}
	load := make([]int64, g.chOff[len(g.adj)])
	r.Stats = append(r.Stats, routeMinimal(g, r.next[0], load))
	lap("minimal")
	switch {
	case opts.Layers > 1 && opts.MinLen == 0 && !opts.NoValiant && g.sym == nil && routeDragonflyPlus(g, r):
		lap("dragonfly+")
	case opts.Layers > 1:
		buildAlmost(g, r, load, opts.Seed)
		lap("almost")
		improve(g, r, opts, lap)
	}
	if g.sym != nil {
		g.sym.expand(g, r)
		for k, st := range r.Stats {
			r.Stats[k] = st.times(g.sym.n)
		}
		lap("expand")
	}
	if err := forTraffic(g, r, opts, lap); err != nil {
		return nil, err
	}
	r.Passes = w.Laps()
	return r, nil
}

// forTraffic runs the traffic pass (traffic.go) when there is traffic,
// from opts.SwitchOver's previous routing when given (switchover.go), and
// recounts the statistics of the layers it changed.
func forTraffic(g *graph, r *Routing, opts Options, lap func(pass string)) error {
	if opts.Traffic == nil {
		return nil
	}
	var guard *switchGuard
	if opts.SwitchOver != nil {
		var err error
		if guard, err = startFrom(g, r, opts.SwitchOver); err != nil {
			return err
		}
	}
	st := routeTraffic(g, r, opts.Traffic, guard)
	r.Traffic = &st
	if st.Moves > 0 {
		recountStats(g, r)
		r.template = nil // (its tables changed)
	}
	lap("traffic")
	return nil
}

// newRouting sets up the routing of g: its bounds, trees per switch,
// shared trees and empty tables.
func newRouting(f *fabric.Fabric, g *graph, opts Options) *Routing {
	S := len(g.ids)
	r := &Routing{Fabric: f, g: g, layers: opts.Layers, Unattached: g.unattached}
	r.Bounds = Bounds{Min: opts.MinLen, Max: opts.MaxLen}
	if opts.MinLen == 0 {
		if designedDiameter2(g) {
			r.Bounds = Bounds{Min: 2, Max: 3}
		} else {
			r.Bounds = Bounds{PerPair: true}
		}
	}
	r.Trees = treesFor(opts.Trees, g)
	r.share = make([]int, g.nEP)
	for d, first, j := 0, 0, 0; d < g.nEP; d++ {
		if d == 0 || g.dests[d].Switch != g.dests[d-1].Switch {
			first, j = d, 0
		}
		r.share[d] = d
		if r.Trees > 0 && j >= r.Trees {
			r.share[d] = r.share[first+j%r.Trees]
		}
		j++
	}
	r.next = make([][]uint8, opts.Layers)
	r.next[0] = make([]uint8, len(g.dests)*S)
	for k := 1; k < opts.Layers; k++ {
		r.next[k] = make([]uint8, g.nEP*S)
	}
	return r
}

// improve runs the passes that improve layers ≥ 1 where they apply:
// balancing (with mending) where a destination switch has a tree per
// entry colour and at most balanceLayers layers, regrowing before it and
// unloading after it where regrowApplies (unless Options.NoRegrow).
func improve(g *graph, r *Routing, opts Options, lap func(pass string)) {
	if opts.Unbalanced || opts.Layers > balanceLayers || (r.Trees >= 0 && r.Trees < entryGroups(r.layers)) {
		return
	}
	regrowing := !opts.NoRegrow && regrowApplies(g, r)
	led := readLedger(g, r)
	if regrowing {
		regrow(g, r, opts.Seed, led)
		lap("regrow")
	}
	b := balance(g, r, !opts.unmended, led)
	lap("balance")
	if regrowing {
		unload(g, r, opts.Seed, !opts.unlapped, led)
		lap("unload")
	}
	if b != nil {
		b.recount()
	}
}

// designedDiameter2 tells whether the fabric was built with diameter 2 (a
// Slim Fly, a two-level Clos): every pair of switches within two hops, or
// — once some cables or switches have failed — at least DesignShare of
// the pairs, the rest a little further. The length bounds of layers ≥ 1
// follow the design, not the damaged diameter, so that a failed cable
// changes the routes that crossed it and leaves the regime (2 to 3 hops,
// three VLs) alone.
func designedDiameter2(g *graph) bool {
	S := len(g.adj)
	dist, order := make([]int32, S), make([]int32, 0, S)
	far, d := 0, 0
	for s := 0; s < S; s++ {
		order = g.bfs(s, dist, order)
		d = max(d, int(dist[order[len(order)-1]]))
		for _, x := range order {
			if dist[x] > 2 {
				far++
			}
		}
	}
	pairs := S * (S - 1)
	return DesignedDiameter2(d, pairs, pairs-far)
}

// DesignedDiameter2 is the rule designedDiameter2 applies, for callers
// that measured the switch graph themselves: its diameter, its ordered
// pairs of distinct switches that reach each other, and how many of those
// are within two hops.
func DesignedDiameter2(diameter, pairs, near int) bool {
	return diameter == 2 || (diameter > 2 && pairs > 0 && 10*int64(near) >= int64(DesignShare*10)*int64(pairs))
}

// DesignShare is the share of switch pairs within two hops from which a
// fabric counts as designed with diameter 2 (see Options.MinLen). A Slim
// Fly keeps well above it with 5 % of its cables or two switches failed;
// a three-level fat tree, whose leaves are mostly four hops apart, is far
// below.
const DesignShare = 0.9
