package slurm

import (
	"slices"

	"slimroute/fabric"
)

// maxPairing bounds the leaves order pairs: its affinity matrix takes 4·L²
// bytes (64 MiB at 4,096 leaves); more leaves keep the switches' order.
const maxPairing = 4096

// order puts the leaves (switch indexes of v) in block order. Slurm's
// block plugin joins aligned runs of 2^k consecutive blocks into the
// larger blocks of BlockSizes, so the order decides which leaves a job
// spanning several is packed onto. order pairs the leaves, then the
// pairs, and so on: at each level every group takes, among the groups
// after it not yet taken, the one it has the highest affinity with (ties:
// the first), and the group left over, if any, goes last with the short
// one, so that every aligned run of 2^k leaves but the last is a group.
// The affinity of two leaves is twice the cables between them plus the
// switches cabled to both: leaves of one HyperX line, one Clos pod, one
// Dragonfly+ group, or neighbours in a Slim Fly come together. Cost
// O(L² + Σ deg²) time and O(L²) space for L leaves.
func order(v *fabric.SwitchView, leaves []int) []int {
	if len(leaves) > maxPairing {
		return leaves
	}
	aff := affinities(v, leaves)
	groups := make([][]int, len(leaves))
	for i := range groups {
		groups[i] = []int{leaves[i]}
	}
	for len(groups) > 1 {
		groups, aff = pairUp(groups, aff)
	}
	return groups[0]
}

// affinities is the leaves' affinity matrix (see order).
func affinities(v *fabric.SwitchView, leaves []int) [][]int32 {
	pos := make([]int, v.NumSwitches())
	for s := range pos {
		pos[s] = -1
	}
	for i, s := range leaves {
		pos[s] = i
	}
	aff := make([][]int32, len(leaves))
	for i := range aff {
		aff[i] = make([]int32, len(leaves))
	}
	for w, adj := range v.Adj {
		var near []int // leaf positions cabled to w, once each
		for _, c := range adj {
			if p := pos[c.Peer]; p >= 0 {
				near = append(near, p)
				if pos[w] >= 0 {
					aff[pos[w]][p] += 2
				}
			}
		}
		slices.Sort(near)
		near = slices.Compact(near)
		for a, x := range near {
			for _, y := range near[a+1:] {
				aff[x][y]++
				aff[y][x]++
			}
		}
	}
	return aff
}

// pairUp joins groups two by two (see order) and returns the new groups
// with their affinities, the sums of their members'.
func pairUp(groups [][]int, aff [][]int32) ([][]int, [][]int32) {
	full := len(groups)
	if len(groups[full-1]) < len(groups[0]) {
		full-- // the short group stays last
	}
	taken := make([]bool, len(groups))
	var members [][]int // indexes into groups, per new group
	left := -1
	for i := 0; i < full; i++ {
		if taken[i] {
			continue
		}
		best := -1
		for j := i + 1; j < full; j++ {
			if !taken[j] && (best < 0 || aff[i][j] > aff[i][best]) {
				best = j
			}
		}
		if best < 0 {
			left = i
			break
		}
		taken[i], taken[best] = true, true
		members = append(members, []int{i, best})
	}
	var tail []int
	if left >= 0 {
		tail = append(tail, left)
	}
	if full < len(groups) {
		tail = append(tail, full)
	}
	if len(tail) > 0 {
		members = append(members, tail)
	}
	return join(groups, members), sumAffinities(aff, members)
}

// join concatenates the groups each new group has as members.
func join(groups [][]int, members [][]int) [][]int {
	out := make([][]int, len(members))
	for k, m := range members {
		for _, g := range m {
			out[k] = append(out[k], groups[g]...)
		}
	}
	return out
}

// sumAffinities is the affinity matrix of the new groups.
func sumAffinities(aff [][]int32, members [][]int) [][]int32 {
	out := make([][]int32, len(members))
	for x, mx := range members {
		out[x] = make([]int32, len(members))
		for y, my := range members {
			for _, a := range mx {
				for _, b := range my {
					out[x][y] += aff[a][b]
				}
			}
		}
	}
	return out
}
