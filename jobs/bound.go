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
// paths of the routing's lengths allow.
func bound(f *fabric.Fabric, j Job, ports []fabric.PortRef) float64 {
	sw := make([]fabric.NodeID, len(ports))
	for r, p := range ports {
		peer, _ := f.Peer(p)
		sw[r] = peer.Node
	}
	out, in := map[fabric.NodeID]float64{}, map[fabric.NodeID]float64{}
	volume := 0.0
	dist := map[fabric.NodeID][]int{}
	for _, fl := range j.Flows() {
		a, b := sw[fl.From], sw[fl.To]
		if a == b {
			continue
		}
		out[a] += fl.Weight
		in[b] += fl.Weight
		if dist[a] == nil {
			dist[a] = hops(f, a)
		}
		if d := dist[a][b]; d > 0 {
			volume += float64(fl.Weight * float64(d)) // not fused: the same bits on every build
		}
	}
	best := 0.0
	if n := channels(f); n > 0 {
		best = volume / float64(n)
	}
	for s, v := range out {
		best = max(best, v/float64(degree(f, s)))
	}
	for s, v := range in {
		best = max(best, v/float64(degree(f, s)))
	}
	return best
}

// degree counts switch s's cables to other switches.
func degree(f *fabric.Fabric, s fabric.NodeID) int {
	n := 0
	for p := 1; p <= f.Ports(s); p++ {
		if peer, ok := f.Peer(fabric.PortRef{Node: s, Port: p}); ok && f.Kind(peer.Node) == fabric.Switch {
			n++
		}
	}
	return max(n, 1)
}

// hops returns the switch-to-switch distance from s to every node (−1:
// unreachable; HCAs are not passed through).
func hops(f *fabric.Fabric, s fabric.NodeID) []int {
	d := make([]int, f.NumNodes())
	for i := range d {
		d[i] = -1
	}
	d[s] = 0
	queue := []fabric.NodeID{s}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for p := 1; p <= f.Ports(u); p++ {
			v, ok := f.Peer(fabric.PortRef{Node: u, Port: p})
			if ok && f.Kind(v.Node) == fabric.Switch && d[v.Node] < 0 {
				d[v.Node] = d[u] + 1
				queue = append(queue, v.Node)
			}
		}
	}
	return d
}
