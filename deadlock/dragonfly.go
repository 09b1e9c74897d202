package deadlock

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"slimroute/layers"
)

// AssignDragonfly makes a Dragonfly+ routing deadlock-free (one built
// group pair by group pair, layers.Routing.DragonflyPlus) with a VL per
// hop that counts the global cables the route crossed before it.
//
// Proof of deadlock freedom. The routes from HCAs take the shapes of
// layers/dragonflyplus.go: up (leaf to spine), then within the first
// group down again (the destination's), or across (a global cable), then
// down to the destination, or across once more (through a spine Z), or
// down into a leaf of a third group, up and across (Valiant), then down.
// Along a route the VL never falls and rises on the hop after a global
// cable, so a route's hops on one VL are: in its first group up, then
// down or across; after a global cable down (then the delivery), or down
// and up and across (Valiant's third group), or across (Z). The
// dependencies inside a VL go from a down channel to an up one, from an up
// channel to a down or a global one — never into a down channel from an
// up one on VLs ≥ 1, nor on VL 0 into an up channel: ordering a VL's
// channels down < up < global on VLs ≥ 1 (up < down < global on VL 0)
// puts every dependency inside it forward, and dependencies between VLs
// only rise. ∎ A Valiant route takes VLs 0 0 1 1 1 2, a route through Z
// 0 0 1 2, a minimal one 0 0 1: three VLs. (The verifier judges the
// tables built from them; the proof is why it accepts.)
//
// A switch learns only (in port, out port, SL), so the SL carries the
// route's history: routes take SLs first fit, in the order of the routes,
// an SL that no switch on the route has asked of another route for the
// same ports and a different VL; the switch's SL-to-VL tables are then
// what the routes asked of them (they depend on the out port: not
// lft.InPortVLs). More SLs than 16, or more VLs than opts.VLs, are
// errors.
func AssignDragonfly(r *layers.Routing, opts Options) (*Assignment, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	group, leaf, ok := r.DragonflyPlus()
	if !ok {
		return nil, errors.New("the routing was not built for a Dragonfly+ group by group")
	}
	a := newAssignment(r, SchemeDragonfly)
	S := r.NumSwitches()
	a.dfTable = make([][]uint8, S)
	a.dfPorts = make([]int, S)
	for x := range a.dfTable {
		n := r.Fabric.Ports(r.SwitchID(x)) + 1
		a.dfPorts[x] = n
		a.dfTable[x] = make([]uint8, n*n*MaxSLs)
		for i := range a.dfTable[x] {
			a.dfTable[x][i] = unset
		}
	}
	var hops []dfHop
	routes := enumerate(r)
	top := make([]uint8, len(routes)) // per route: its highest VL
	for i, rt := range routes {
		if hops, err = dfHops(r, group, leaf, rt, hops[:0]); err != nil {
			return nil, err
		}
		for _, h := range hops {
			top[i] = max(top[i], h.vl)
		}
	}
	// the routes that climb highest first: they meet the most others'
	// entries (an SL first fit in that order takes fewer SLs)
	order := make([]int, len(routes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(top[y], top[x]) })
	for _, i := range order {
		rt := routes[i]
		hops, _ = dfHops(r, group, leaf, rt, hops[:0])
		sl := -1
		for s := 0; s < MaxSLs && sl < 0; s++ {
			sl = s
			for _, h := range hops {
				if v := a.dfTable[h.x][a.dfEntry(h.x, h.in, h.out, s)]; v != unset && v != h.vl {
					sl = -1
					break
				}
			}
		}
		if sl < 0 {
			return nil, &vlShortage{needs: MaxVLs + 1, msg: fmt.Sprintf("the Dragonfly+ VL scheme needs more than %d SLs (route from switch %d to destination %d, layer %d)", MaxSLs, rt.s, rt.d, rt.layer)}
		}
		for _, h := range hops {
			a.dfTable[h.x][a.dfEntry(h.x, h.in, h.out, sl)] = h.vl
			a.VLs = max(a.VLs, int(h.vl)+1)
		}
		*a.slot(int(rt.layer), int(rt.s), int(rt.d)) = uint8(sl)
		a.SLs = max(a.SLs, sl+1)
	}
	copySharedSLs(a)
	a.Needed = a.VLs
	if a.VLs > opts.VLs {
		return nil, &vlShortage{needs: a.VLs, msg: fmt.Sprintf("the Dragonfly+ VL scheme needs %d VLs; allow %d (--vls %d)", a.VLs, a.VLs, a.VLs)}
	}
	return a, nil
}

// unset marks an SL-to-VL entry no route asked for.
const unset = 0xFF

// dfHop is a hop of a route after its first: the switch it leaves, the
// ports it arrived on and leaves by there, and its VL.
type dfHop struct {
	x, in, out int
	vl         uint8
}

// dfEntry is the index of switch x's SL-to-VL entry (in, out, sl).
func (a *Assignment) dfEntry(x, in, out, sl int) int {
	n := a.dfPorts[x]
	return (in*n+out)*MaxSLs + sl
}

// dfHops lists route rt's hops after the first with their VLs: the
// global cables crossed before the hop.
func dfHops(r *layers.Routing, group []int32, leaf []bool, rt route, out []dfHop) ([]dfHop, error) {
	x, in, prev := int(rt.s), -1, -1
	globals := 0
	for steps := 0; ; steps++ {
		c, local := r.Hop(int(rt.layer), x, int(rt.d))
		if local {
			return out, nil
		}
		if steps > r.NumSwitches() {
			return nil, fmt.Errorf("layer %d: the route from switch %d to destination %d loops", rt.layer, rt.s, rt.d)
		}
		y := c.Peer
		if prev >= 0 {
			out = append(out, dfHop{x: x, in: in, out: c.Port, vl: uint8(globals)})
		}
		if !leaf[x] && !leaf[y] && group[x] != group[y] {
			globals++
		}
		prev, x, in = x, y, c.PeerPort
	}
}
