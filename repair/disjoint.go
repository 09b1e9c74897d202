package repair

import (
	"math/bits"
	"slices"

	"slimroute/layers"
	"slimroute/lft"
)

// waitFor says whether a neighbour of b is still broken and will be
// repaired at hop count d, as b: its route will be an option of d + 1
// hops for b.
func (r *rerouter) waitFor(b, d int32) bool {
	for _, n := range r.m.nbr[b] {
		if n >= 0 && r.state[n] == broken && r.dist[n] == d {
			return true
		}
	}
	return false
}

// satisfied says whether a neighbour of b that reaches lid already gives
// b's route to lid, of at most three hops, with b's routes to the other
// LIDs of lid's port own, min(3, 2^LMC) pairwise channel-disjoint routes
// (the pair's share that the ceiling counts). It costs one walk per
// neighbour and a subset search over 2^LMC routes (LMC ≤ 3).
func (r *rerouter) satisfied(b int32, lid lft.LID, own lft.PortLIDs) bool {
	r.routesOf(b, own, lid)
	want := min(3, 1<<own.LMC)
	for p, n := range r.m.nbr[b] {
		if n < 0 || !r.usable(n, lid) || r.dist[n] >= 3 {
			continue
		}
		mark, marks := len(r.sib), len(r.sibAt)
		r.sib = append(r.sib, channel(b, p))
		r.walk(n, lid, func(ch int32) { r.sib = append(r.sib, ch) })
		r.sibAt = append(r.sibAt, len(r.sib))
		most := r.mostDisjoint()
		r.sib, r.sibAt = r.sib[:mark], r.sibAt[:marks]
		if most >= want {
			return true
		}
	}
	return false
}

// routesOf puts in r.sib the routes of at most three hops from switch u
// to the LIDs of port own but skip (0: none), each ending at its r.sibAt
// entry, for mostDisjoint; the hops count to the destination switch
// (isRoot).
func (r *rerouter) routesOf(u int32, own lft.PortLIDs, skip lft.LID) {
	r.sib, r.sibAt = r.sib[:0], r.sibAt[:0]
	for l := own.Base; l <= own.Top(); l++ {
		if h := r.routeLen(u, l); l != skip && h >= 0 && h <= 3 {
			r.walk(u, l, func(ch int32) { r.sib = append(r.sib, ch) })
			r.sibAt = append(r.sibAt, len(r.sib))
		}
	}
}

// mostDisjoint returns the most pairwise channel-disjoint routes among
// those in r.sib (at most 8), trying every subset.
func (r *rerouter) mostDisjoint() int {
	n := len(r.sibAt)
	at := func(i int) []int32 {
		lo := 0
		if i > 0 {
			lo = r.sibAt[i-1]
		}
		return r.sib[lo:r.sibAt[i]]
	}
	var conflict [8]uint8
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if overlap(at(i), at(j)) {
				conflict[i] |= 1 << j
				conflict[j] |= 1 << i
			}
		}
	}
	best := 0
	for set := 1; set < 1<<n; set++ {
		c := bits.OnesCount(uint(set))
		ok := c > best
		for i := 0; i < n && ok; i++ {
			ok = set&(1<<i) == 0 || int(conflict[i])&set == 0
		}
		if ok {
			best = c
		}
	}
	return best
}

func overlap(a, b []int32) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// diameter2 says whether the new fabric's switch graph counts as designed
// with diameter 2 (layers.DesignedDiameter2), found on first use from
// each switch's two-hop neighbourhood: O(S · degree · S/64).
func (r *rerouter) diameter2() bool {
	if r.wideKnown {
		return r.wide
	}
	r.wideKnown = true
	S := len(r.m.switches)
	words := (S + 63) / 64
	adj := make([]uint64, S*words)
	for s, ns := range r.m.nbr {
		for _, n := range ns {
			if n >= 0 {
				adj[s*words+int(n)/64] |= 1 << (n % 64)
			}
		}
	}
	near, seen := 0, make([]uint64, words)
	for s, ns := range r.m.nbr {
		copy(seen, adj[s*words:(s+1)*words])
		for _, n := range ns {
			if n >= 0 {
				for w := range seen {
					seen[w] |= adj[int(n)*words+w]
				}
			}
		}
		seen[s/64] &^= 1 << (s % 64)
		for _, w := range seen {
			near += bits.OnesCount64(w)
		}
	}
	pairs := S * (S - 1)
	diameter := 3 // only its being 2 or more matters below
	if near == pairs {
		diameter = 2
	}
	r.wide = S > 1 && layers.DesignedDiameter2(diameter, pairs, near)
	return r.wide
}
