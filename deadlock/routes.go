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
	"sync"
	"sync/atomic"

	"slimroute/layers"
)

// route identifies the packets from the endpoints of source switch S to
// destination D (an index into Routing.Dests) on LID offset Layer. All of
// them follow one path, so they share an SL.
type route struct {
	s, d  int32
	layer int16
}

// routeBatch is how many destinations (of one layer or consecutive
// layers) make one batch of eachRouteOn: fixed, so the batches do not
// depend on the number of workers.
const routeBatch = 32

// eachRouteOn calls f with every route that crosses at least one
// inter-switch channel, on up to workers goroutines (0 or 1: one):
// sources are switches with endpoints; destinations are all endpoints on
// every layer and all switches on layer 0. An endpoint that shares
// another's trees in layers ≥ 1 (layers.Routing.SharedWith) has the same
// routes there: they come once, for the endpoint it shares with, and
// copySharedSLs gives it the same SLs. The destinations, layer by layer,
// are cut into batches of routeBatch; f learns its worker
// (0..workers-1) and its batch, whose routes it gets destination by
// destination, source by source, one batch at a time per worker. It
// returns the error of the first failing batch (a failing batch stops;
// the others run on).
func eachRouteOn(r *layers.Routing, workers int, f func(w, batch int, rt route) error) error {
	var targets []route // the destinations in order (s unused)
	for k := 0; k < r.NumLayers(); k++ {
		for d := range r.Dests() {
			if k > 0 && d >= r.NumEndpoints() {
				break
			}
			if k == 0 || r.SharedWith(d) == d {
				targets = append(targets, route{d: int32(d), layer: int16(k)})
			}
		}
	}
	S, dests := r.NumSwitches(), r.Dests()
	batches := (len(targets) + routeBatch - 1) / routeBatch
	errs := make([]error, batches)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range max(1, min(workers, batches)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := int(next.Add(1) - 1); b < batches; b = int(next.Add(1) - 1) {
				errs[b] = eachRouteIn(targets[b*routeBatch:min((b+1)*routeBatch, len(targets))], S, r, dests, func(rt route) error { return f(w, b, rt) })
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// eachRouteIn calls f with the routes toward targets (their s unused), as
// eachRouteOn orders them, until f fails.
func eachRouteIn(targets []route, S int, r *layers.Routing, dests []layers.Dest, f func(rt route) error) error {
	for _, t := range targets {
		for s := 0; s < S; s++ {
			if r.Hosts(s) > 0 && s != dests[t.d].Switch {
				if err := f(route{int32(s), t.d, t.layer}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// enumerate lists the routes of eachRouteOn, in order.
func enumerate(r *layers.Routing) []route {
	var out []route
	eachRouteOn(r, 1, func(_, _ int, rt route) error { out = append(out, rt); return nil })
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
