package pipeline

import (
	"fmt"
	"slices"
)

// dragonflyPlusDesign returns the Dragonfly+ of which adj (hosts[s] HCAs
// on switch s) lacks a few cables or hosts, or nil; findDesign asks only
// when the layers cannot route adj itself group pair by group pair
// (layers/dragonflyplus.go wants every two groups cabled, every leaf
// cabled to every spine of its group and to hosts): a global cable missing
// between two groups, a leaf–spine cable or a leaf's hosts sent the whole
// fabric to the general search.
//
// The leaves are the switches with hosts, and those without whose peers
// have none (a leaf whose hosts are all out); a group is a set of leaves
// and the spines they are cabled to. The design joins every leaf to every
// spine of its group and every two groups by as many global cables as
// the most any two have, and gives every leaf as many hosts as the most
// any leaf has. A missing global cable
// goes between the lowest-numbered spines of the two groups that have
// fewer global cables than the most any spine has and none between them.
// Cost: O(switches² + groups²) and O(switches²) per missing global cable.
func dragonflyPlusDesign(adj [][]int32, hosts []int) *design {
	S := len(adj)
	leaf := make([]bool, S)
	for s := range adj {
		leaf[s] = hosts[s] > 0 || !slices.ContainsFunc(adj[s], func(y int32) bool { return hosts[y] > 0 })
	}
	group, groups := dfGroups(adj, leaf)
	if group == nil || groups < 3 {
		return nil
	}
	graph := make([][]int32, S)
	for s := range adj {
		graph[s] = slices.Clone(adj[s])
	}
	add := func(a, b int32) {
		graph[a], graph[b] = append(graph[a], b), append(graph[b], a)
	}
	cabled := make([]int, groups*groups) // global cables per group pair
	global := make([]int, S)             // per spine: its global cables
	most := 0
	for s := range adj {
		for _, y := range adj[s] {
			switch {
			case leaf[s] == leaf[y]:
				if leaf[s] || group[s] == group[y] {
					return nil // leaf to leaf, or spine to spine in a group
				}
				cabled[group[s]*int32(groups)+group[y]]++
				global[s]++
			case group[s] != group[y]:
				return nil // a leaf cabled to another group's spine
			}
		}
		most = max(most, global[s])
	}
	for s := range adj { // every leaf to every spine of its group
		for t := range adj {
			if leaf[s] && !leaf[t] && group[s] == group[t] && !slices.Contains(adj[s], int32(t)) {
				add(int32(s), int32(t))
			}
		}
	}
	perPair := slices.Max(cabled)
	for a := range int32(groups) { // every two groups: as many global cables as the most
		for b := a + 1; b < int32(groups); b++ {
			for range perPair - cabled[a*int32(groups)+b] {
				x, y := freeSpines(graph, group, leaf, global, most, a, b)
				if x < 0 {
					return nil
				}
				add(x, y)
				global[x]++
				global[y]++
			}
		}
	}
	want, leafHosts := make([]int, S), slices.Max(hosts)
	for s := range want {
		if leaf[s] {
			want[s] = leafHosts
		}
	}
	if ends(graph) == ends(adj) && slices.Equal(want, hosts) {
		return nil // whole: nothing to add
	}
	phi := make([]int32, S)
	for s := range phi {
		phi[s] = int32(s)
	}
	return &design{name: fmt.Sprintf("the Dragonfly+ design of %d groups", groups), graph: graph, phi: phi, hosts: want, missing: dfMaxMissing}
}

// dfMaxMissing is the share of a Dragonfly+'s cables (in thousandths)
// that may be missing for it to be routed as its design. Routed as it is,
// it loses the Valiant layers (layers/dragonflyplus.go wants every two
// groups cabled), so the bound is wider than a Slim Fly's:
// TestDragonflyPlusInServiceRoutesAsItsDesign holds the repaired tables
// to at least the share of pairs with three disjoint paths that routing
// the damaged fabric as it is gives, with up to 4.8 % missing (one cable
// of a small drawn fabric's 21).
const dfMaxMissing = 50

// dfGroups numbers the groups of a Dragonfly+ switch graph: the sets
// joined by leaf–spine cables. It returns nil when a leaf has a leaf for
// a peer or a switch is in no group.
func dfGroups(adj [][]int32, leaf []bool) ([]int32, int) {
	group := make([]int32, len(adj))
	for s := range group {
		group[s] = -1
	}
	groups := int32(0)
	var queue []int32
	for s := range adj {
		if !leaf[s] || group[s] >= 0 {
			continue
		}
		group[s] = groups
		queue = append(queue[:0], int32(s))
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			for _, y := range adj[x] {
				switch {
				case leaf[x] && leaf[y]:
					return nil, 0
				case leaf[x] == leaf[y] || group[y] >= 0:
				default: // a leaf–spine cable
					group[y] = groups
					queue = append(queue, y)
				}
			}
		}
		groups++
	}
	if slices.Contains(group, -1) {
		return nil, 0
	}
	return group, int(groups)
}

// freeSpines returns the lowest-numbered spines x of group a and y of
// group b with fewer than most global cables each and none between them,
// or -1, -1.
func freeSpines(graph [][]int32, group []int32, leaf []bool, global []int, most int, a, b int32) (int32, int32) {
	free := func(s int, g int32) bool { return group[s] == g && !leaf[s] && global[s] < most }
	for x := range graph {
		if !free(x, a) {
			continue
		}
		for y := range graph {
			if free(y, b) && !slices.Contains(graph[x], int32(y)) {
				return int32(x), int32(y)
			}
		}
	}
	return -1, -1
}
