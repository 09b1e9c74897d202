package layers

import (
	"fmt"

	"slimroute/fabric"
)

// Routing for the traffic of the jobs that run (Options.Traffic).
//
// The layers carry every pair alike; the jobs on a fabric send along a
// few of them, and two jobs whose flows meet on a channel slow each
// other down. The pass moves next hops of the trees their flows take so
// that their loads spread and their flows part, keeping every rule the
// routing had: each layer a loop-free tree per destination, layer 0
// minimal, the lengths of layers ≥ 1 within their bounds (minimal on a
// fat tree, so that routes stay up/down), and no pair (source switch,
// destination endpoint) that sends none of the jobs' traffic losing
// disjoint paths (those that send some keep three but for a budget,
// lossPermille).
//
// A move gives switch x of the tree of destination d in layer k another
// neighbour y as next hop, where y's route does not come back through x.
// The routes of every switch behind x change with it. Its cost is what
// it adds to
//
//	Σ over channels c of Σ over jobs i, j of κ(i, j) · l_i(c) · l_j(c)
//
// where l_i(c) is job i's traffic over c and κ is 1 for i = j, 5 for two
// jobs that cannot interleave their phases (or whose phases are not
// known) and 3 for two that can (kappaSelf, kappaApart,
// kappaCompatible): the total load is evened out, and a channel two jobs
// share costs more than one job's own, more so when they are
// incompatible. Rounds go over the trees in a fixed order, each
// switch taking its best move that lowers the cost, until a round moves
// nothing or trafficRounds have run: the same tables on any number of
// cores. Cost per round: O(trees × S × deg × (subtree × L + J²)).
//
// The sum of squares evens the loads out but leaves the busiest channels
// where no single move lowers it. Shaving follows: every channel's total
// load above peakShare of the busiest costs peakWeight × the excess
// squared besides, rounds run again under that cost over the trees whose
// flows cross such a channel, and again under the new busiest while it
// falls (shave).

// Traffic is the traffic Compute routes for (Options.Traffic).
type Traffic struct {
	// Flows are the flows of the jobs: from an HCA port to another, per
	// iteration, in the caller's integer units (split evenly over the
	// layers, as the destination's LIDs are).
	Flows []Flow
	// Jobs is how many jobs there are (Flow.Job < Jobs).
	Jobs int
	// Compatible tells whether jobs a and b can interleave their
	// communication phases; nil: none can.
	Compatible func(a, b int) bool
}

// Flow is one job's traffic from one HCA port to another.
type Flow struct {
	From, To fabric.PortRef
	Job      int
	Weight   int64
}

// TrafficStats says what the traffic pass did.
type TrafficStats struct {
	Flows   int     `json:"flows"`          // flows between HCAs on different switches
	Moves   int     `json:"moves"`          // moves made (a move changes one or two next hops)
	Entries int     `json:"entries"`        // table entries that differ at the end
	Kept    int     `json:"trees_reverted"` // changed trees given back their rows (jobs whose contention factor rose)
	Before  float64 `json:"cost_before"`
	After   float64 `json:"cost_after"`
	Rounds  int     `json:"rounds"`
	Trials  int     `json:"moves_weighed"`
}

// trafficRounds bounds the rounds of the pass, and trafficTrials the
// moves it weighs: past half of them it tries no more two-switch moves,
// past all of them it ends its round and stops. (On Slim Fly q = 7 five
// ring and tree jobs of 217 hosts weighed 1.1·10^6 in 7 rounds, an
// all-to-all of 256 hosts 7.7·10^6 in 8, 1.9 s for the whole route.)
// Counted, not timed: the same tables on any machine.
const (
	trafficRounds = 8
	trafficTrials = 1 << 23
)

// Shaving (shave): a channel's total load above peakShare of the busiest
// costs peakWeight × the excess squared, beside the pass's cost, whose
// terms are 1 to 5 × two loads (κ).
var peakShare = [2]int64{7, 8}

const peakWeight = 64

// maxTrafficLayers bounds the layers the pass judges disjoint paths over
// (the subsets of a pair's routes are tried).
const maxTrafficLayers = 8

// checkTraffic rejects traffic Compute cannot route for.
func checkTraffic(f *fabric.Fabric, t *Traffic, layers int) error {
	if layers > maxTrafficLayers {
		return fmt.Errorf("routing for jobs takes at most %d layers (LMC 3); %d asked", maxTrafficLayers, layers)
	}
	for i, fl := range t.Flows {
		if fl.Job < 0 || fl.Job >= t.Jobs || fl.Weight < 0 || fl.Weight > 1<<20 {
			return fmt.Errorf("flow %d: job %d of %d, weight %d (0..2^20)", i, fl.Job, t.Jobs, fl.Weight)
		}
		for _, p := range []fabric.PortRef{fl.From, fl.To} {
			if int(p.Node) < 0 || int(p.Node) >= f.NumNodes() || f.Kind(p.Node) == fabric.Switch {
				return fmt.Errorf("flow %d: %v is no HCA port of the fabric", i, p)
			}
		}
	}
	return nil
}

// routeTraffic runs the pass on a finished routing.
func routeTraffic(g *graph, r *Routing, t *Traffic, guard *switchGuard) TrafficStats {
	tp := newTrafficPass(g, r, t)
	if tp.guard = guard; guard != nil {
		tp.lost = guard.spent
	}
	st := TrafficStats{Flows: tp.nFlows, Before: tp.cost()}
	tp.rounds(&st)
	tp.shave(&st)
	st.Trials = tp.trials
	st.Kept = tp.keepNoneWorse(tp.before)
	st.Entries = tp.differing()
	st.After = tp.cost()
	tp.unshare()
	return st
}

// rounds improves every tree of the jobs' destinations, round after
// round, until a round moves nothing, trafficRounds have run or the
// moves weighed reach trafficTrials.
func (tp *trafficPass) rounds(st *TrafficStats) {
	for n := 0; n < trafficRounds && tp.trials < trafficTrials; n++ {
		st.Rounds++
		moved := 0
		for _, d := range tp.dests {
			for k := 0; k < tp.r.layers; k++ {
				if tp.peak == 0 || tp.crossesPeak(k, d) {
					moved += tp.improveTree(k, d)
				}
			}
		}
		st.Moves += moved
		if moved == 0 {
			return
		}
	}
}

// shave runs rounds with the channels' total loads above peakShare of the
// busiest charged (channelDelta), under the new busiest again while it
// falls. On the suite's scattered ring and tree mixes (go test ./jobs -run
// TestRoutingForJobsPartsThem, four draws) it lowered the mean contention
// factor 1–3 points more and the busiest channel over the LP bound on
// q = 7 by up to 0.11.
func (tp *trafficPass) shave(st *TrafficStats) {
	for top := tp.busiest(); top > 0 && tp.trials < trafficTrials; {
		tp.peak = top * peakShare[0] / peakShare[1]
		tp.rounds(st)
		now := tp.busiest()
		if now >= top {
			break
		}
		top = now
	}
	tp.peak = 0
}

// crossesPeak tells whether a flow toward d crosses, in layer k, a
// channel whose total load is above tp.peak: shaving leaves the other
// trees alone.
func (tp *trafficPass) crossesPeak(k, d int) bool {
	g, hot := tp.g, false
	for _, fl := range tp.flows[d] {
		tp.r.walk(k, fl.s, d, func(x, e int) { hot = hot || tp.total(g.chOff[x]+e) > tp.peak })
		if hot {
			return true
		}
	}
	return false
}

// busiest is the largest total load of a channel.
func (tp *trafficPass) busiest() int64 {
	var top int64
	for ch := range tp.load[0] {
		top = max(top, tp.total(ch))
	}
	return top
}

// recountStats sets every layer's statistics from its tables, after the
// traffic pass moved routes: per (source switch with hosts, destination
// endpoint) pair on different switches, the route's length and whether
// it lies within the layer's bounds (layer 0, minimal: always).
func recountStats(g *graph, r *Routing) {
	S := len(g.adj)
	dist, order := make([]int32, S), make([]int32, 0, S)
	stats := make([]LayerStats, r.layers)
	for k := range stats {
		stats[k].Layer = k
	}
	for d := 0; d < g.nEP; d++ {
		t := g.dests[d].Switch
		order = g.bfs(t, dist, order)
		for s := 0; s < S; s++ {
			if s == t || g.hosts[s] == 0 {
				continue
			}
			lo, hi := r.Bounds.of(int(dist[s]))
			for k := range stats {
				h := 0
				if r.walk(k, s, d, func(int, int) { h++ }) != nil {
					continue // (a finished routing has none)
				}
				stats[k].add(h, k == 0 || h >= lo && h <= hi)
			}
		}
	}
	r.Stats = stats
}
