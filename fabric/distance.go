package fabric

import "sort"

// Distances computes, by breadth-first search, the number of switch-to-
// switch hops from switch src to every switch, writing them to dist
// (len NumSwitches; -1 where unreachable). queue is scratch space of the
// same length, so repeated calls allocate nothing.
func (v *SwitchView) Distances(src int, dist, queue []int) {
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue = queue[:0]
	queue = append(queue, src)
	for head := 0; head < len(queue); head++ {
		s := queue[head]
		for _, c := range v.Adj[s] {
			if dist[c.Peer] < 0 {
				dist[c.Peer] = dist[s] + 1
				queue = append(queue, c.Peer)
			}
		}
	}
}

// Components returns the connected components of the switch graph, each a
// sorted list of switch indices, ordered by their smallest member.
func (v *SwitchView) Components() [][]int { return Components(v.Adj) }

// Components returns the connected components of a switch graph given as
// channels per switch (adj[s] leads from switch s to each c.Peer), each a
// sorted list of switch indices, ordered by their smallest member. Routing
// passes its own adjacency, without the cables it avoids.
func Components(adj [][]Channel) [][]int {
	comp := make([]int, len(adj))
	for i := range comp {
		comp[i] = -1
	}
	var out [][]int
	for s := range adj {
		if comp[s] >= 0 {
			continue
		}
		c := len(out)
		members := []int{s}
		comp[s] = c
		for head := 0; head < len(members); head++ {
			for _, ch := range adj[members[head]] {
				if comp[ch.Peer] < 0 {
					comp[ch.Peer] = c
					members = append(members, ch.Peer)
				}
			}
		}
		sort.Ints(members)
		out = append(out, members)
	}
	return out
}
