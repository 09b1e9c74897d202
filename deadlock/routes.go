// Package deadlock makes layered routings deadlock-free with virtual lanes,
// and verifies deadlock freedom independently.
//
// A lossless InfiniBand fabric deadlocks when buffers wait on each other in
// a cycle: a route that holds channel c1 (a directed inter-switch cable on
// one VL) and requests c2 adds the dependency c1 → c2, and a cycle in this
// channel dependency graph (CDG) is a credit-loop deadlock waiting to
// happen (Dally and Seitz, 1987). Two assigners break every cycle:
//
//   - AssignDFSSSP (Domke, Hoefler and Nagel, "Deadlock-free oblivious
//     routing for arbitrary topologies", IPDPS 2011): routes start on VL 0;
//     while a VL's CDG has a cycle, the routes over its least used edge
//     move to the next VL; spare VLs then take a share of the routes. The
//     SL of a route is its VL.
//   - AssignHops: for routes of at most three switch-to-switch hops, hop i
//     travels on VL i, with the SL telling each switch which hop it serves;
//     the few longer routes of a damaged fabric take VLs of their own.
//
// Package verify checks what a subnet manager actually programs without
// knowing how it was made.
package deadlock

import (
	"slimroute/layers"
)

// route identifies the packets from the endpoints of source switch S to
// destination D (an index into Routing.Dests) on LID offset Layer. All of
// them follow one path, so they share an SL.
type route struct {
	s, d  int32
	layer int16
}

// eachRoute calls f with every route that crosses at least one
// inter-switch channel, layer by layer, destination by destination, until
// f fails: sources are switches with endpoints; destinations are all
// endpoints on every layer and all switches on layer 0. An endpoint that
// shares another's trees in layers ≥ 1 (layers.Routing.SharedWith) has the
// same routes there: they come once, for the endpoint it shares with, and
// copySharedSLs gives it the same SLs.
func eachRoute(r *layers.Routing, f func(rt route) error) error {
	S := r.NumSwitches()
	dests := r.Dests()
	for k := 0; k < r.NumLayers(); k++ {
		for d := range dests {
			if k > 0 && d >= r.NumEndpoints() {
				break
			}
			if k > 0 && r.SharedWith(d) != d {
				continue
			}
			for s := 0; s < S; s++ {
				if r.Hosts(s) == 0 || s == dests[d].Switch {
					continue
				}
				if err := f(route{int32(s), int32(d), int16(k)}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// enumerate lists the routes of eachRoute.
func enumerate(r *layers.Routing) []route {
	var out []route
	eachRoute(r, func(rt route) error { out = append(out, rt); return nil })
	return out
}

// copySharedSLs gives the endpoints that share trees in layers ≥ 1 the
// SLs of the endpoint they share with.
func copySharedSLs(a *Assignment) {
	r := a.r
	for k := 1; k < r.NumLayers(); k++ {
		for d := 0; d < r.NumEndpoints(); d++ {
			if like := r.SharedWith(d); like != d {
				for s := 0; s < r.NumSwitches(); s++ {
					*a.slot(k, s, d) = *a.slot(k, s, like)
				}
			}
		}
	}
}
