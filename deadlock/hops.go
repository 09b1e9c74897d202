package deadlock

import (
	"fmt"

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
// routes that have a hop 2 (three-hop routes); it is found greedily, most constrained switch first
// (DSatur, Brélaz 1979). Routes longer than three hops, more colours than
// the 16 SLs, or fewer than the needed VLs are errors.
func AssignHops(r *layers.Routing, opts Options) (*Assignment, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	S := r.NumSwitches()
	// visit calls f with every route's length and second and third switch
	// (-1 where the route is shorter) and fails on a route of more than 3
	// hops
	visit := func(f func(k, s, d, hops, v1, v2 int)) (longest int, err error) {
		err = eachRoute(r, func(rt route) error {
			k, s, d := int(rt.layer), int(rt.s), int(rt.d)
			v := [4]int{s, -1, -1, -1}
			hops := 0
			for x := s; ; hops++ {
				y := r.NextSwitch(k, x, d)
				if y < 0 {
					break
				}
				if hops == 3 {
					path, err := r.Path(k, s, d)
					if err != nil {
						return err
					}
					return fmt.Errorf("the hop-indexed scheme protects routes of at most 3 switch-to-switch hops, but layer %d routes %s to %s over %d; use --deadlock dfsssp or bound the path length (--max-len 3)",
						k, r.Fabric.Node(r.SwitchID(s)).Name, r.DestName(d), len(path)-1)
				}
				v[hops+1] = y
				x = y
			}
			longest = max(longest, hops)
			f(k, s, d, hops, v[1], v[2])
			return nil
		})
		return longest, err
	}
	// only a route with a hop 2 needs its second and third switch told apart
	conflict := make([]uint64, (S*S+63)/64)
	longest, err := visit(func(k, s, d, hops, v1, v2 int) {
		if hops == 3 {
			conflict[(v1*S+v2)/64] |= 1 << ((v1*S + v2) % 64)
			conflict[(v2*S+v1)/64] |= 1 << ((v2*S + v1) % 64)
		}
	})
	if err != nil {
		return nil, err
	}
	adj := make([][]int32, S)
	for a := 0; a < S; a++ {
		for b := 0; b < S; b++ {
			if conflict[(a*S+b)/64]&(1<<((a*S+b)%64)) != 0 {
				adj[a] = append(adj[a], int32(b))
			}
		}
	}
	colors, n := dsatur(adj)
	if n > MaxSLs {
		return nil, fmt.Errorf("the hop-indexed scheme needs %d service levels on this routing, InfiniBand has %d; use --deadlock dfsssp", n, MaxSLs)
	}
	need := max(longest, 1)
	if need > opts.VLs {
		// no "use dfsssp": whether it fits is known only by running it
		return nil, &vlShortage{need, fmt.Sprintf("the hop-indexed scheme needs %d VLs for routes of %d hops, but only %d are available; allow %d VLs (--vls %d)", need, longest, opts.VLs, need, need)}
	}
	a := newAssignment(r, SchemeHops)
	a.Colors = colors
	visit(func(k, s, d, hops, v1, v2 int) { *a.slot(k, s, d) = uint8(colors[v1]) })
	copySharedSLs(a)
	a.VLs, a.SLs, a.Needed = need, n, need
	return a, nil
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
