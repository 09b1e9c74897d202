package jobs

import "slimroute/fabric"

// bound is a lower bound on the busiest channel's load that job j's
// traffic causes under any routing: the larger of
//   - per switch, the traffic its ranks send to (or receive from) ranks on
//     other switches, over the switch's channels out (in): it must leave
//     (enter) through them;
//   - the traffic times its switch-to-switch distance, summed, over all
//     channels: every flow crosses at least that many.
//
// The bound holds for paths of any length, so it may lie below what
// paths of the routing's lengths allow. v is the fabric's switch view.
func bound(f *fabric.Fabric, v *fabric.SwitchView, j Job, ports []fabric.PortRef) float64 {
	sw := make([]int, len(ports)) // switch index of each rank
	for r, p := range ports {
		peer, _ := f.Peer(p)
		sw[r] = v.Index[peer.Node]
	}
	out, in := map[int]float64{}, map[int]float64{}
	volume := 0.0
	dist := map[int][]int{}
	queue := make([]int, v.NumSwitches())
	for _, fl := range j.Flows() {
		a, b := sw[fl.From], sw[fl.To]
		if a == b {
			continue
		}
		out[a] += fl.Weight
		in[b] += fl.Weight
		if dist[a] == nil {
			dist[a] = make([]int, v.NumSwitches())
			v.Distances(a, dist[a], queue)
		}
		if d := dist[a][b]; d > 0 {
			volume += float64(fl.Weight * float64(d)) // not fused: the same bits on every build
		}
	}
	best := 0.0
	if n := channels(v); n > 0 {
		best = volume / float64(n)
	}
	for s, x := range out {
		best = max(best, x/float64(max(v.Degree(s), 1)))
	}
	for s, x := range in {
		best = max(best, x/float64(max(v.Degree(s), 1)))
	}
	return best
}

// channels counts the directed switch-to-switch channels of view v.
func channels(v *fabric.SwitchView) int {
	n := 0
	for s := range v.Adj {
		n += v.Degree(s)
	}
	return n
}
