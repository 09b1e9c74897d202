package jobs

import (
	"fmt"
	"math"
	"sort"

	"slimroute/fabric"
)

// commodity is the traffic from ranks on one switch to ranks on another
// that the routing carries over routes of at most hops switch-to-switch
// hops: the shares of the flows' LIDs whose routes take that many (each
// LID carries an even share, as the analysis splits flows).
type commodity struct {
	from, to fabric.NodeID
	demand   float64
	hops     int
}

// maxLPPaths bounds the candidate paths of all commodities together.
const maxLPPaths = 1 << 20

// dualSteps is how many multiplicative-weight steps lpBound takes.
const dualSteps = 2000

// lpBound is a lower bound on the least possible load of the busiest
// channel for the commodities over paths of at most the hops the routing
// takes for each — the min-congestion LP (minimise t subject to each
// commodity's demand spread over its paths and every channel's load ≤ t),
// bounded from its dual: for any channel lengths ℓ ≥ 0, every routing has
// t·Σℓ ≥ Σ_c ℓ_c·load_c ≥ Σ_k demand_k·(ℓ-shortest allowed path of k), so
// t ≥ Σ_k demand_k·dist_ℓ(k) / Σℓ. The lengths start at 1 and grow on the
// channels the current shortest paths load (multiplicative weights, as in
// Garg and Könemann's algorithm); the best of dualSteps steps is returned.
// ok is false, with why, when a pair has too many paths to list.
func lpBound(f *fabric.Fabric, cs []commodity) (bound float64, ok bool, why string) {
	paths, chans, why := candidates(f, cs)
	if why != "" {
		return 0, false, why
	}
	if len(cs) == 0 {
		return 0, true, ""
	}
	ell := make([]float64, chans)
	for i := range ell {
		ell[i] = 1
	}
	load := make([]float64, chans)
	for step := 0; step < dualSteps; step++ {
		clear(load)
		sum, lengths := 0.0, 0.0
		for _, l := range ell {
			lengths += l
		}
		for k, ps := range paths {
			best, at := shortest(ps, ell)
			sum += float64(cs[k].demand * best) // no fused multiply-add: the same bits on every build
			for _, c := range ps[at] {
				load[c] += cs[k].demand
			}
		}
		bound = max(bound, sum/lengths)
		grow(ell, load)
	}
	return bound, true, ""
}

// candidates lists every commodity's allowed paths as channel indices and
// counts the channels; why says what was too large.
func candidates(f *fabric.Fabric, cs []commodity) (paths [][][]int, chans int, why string) {
	index := map[fabric.PortRef]int{}
	total := 0
	for _, c := range cs {
		ps, all := simplePaths(f, c.from, c.to, c.hops)
		if !all || total+len(ps) > maxLPPaths {
			return nil, 0, fmt.Sprintf("more than %d paths to consider", min(maxPaths, maxLPPaths))
		}
		if len(ps) == 0 {
			return nil, 0, "a pair has no path within its length"
		}
		total += len(ps)
		var mine [][]int
		for _, p := range ps {
			var ch []int
			for _, port := range p {
				if _, seen := index[port]; !seen {
					index[port] = len(index)
				}
				ch = append(ch, index[port])
			}
			mine = append(mine, ch)
		}
		paths = append(paths, mine)
	}
	return paths, len(index), ""
}

// shortest returns the least total length among paths and the first path
// that has it.
func shortest(paths [][]int, ell []float64) (best float64, at int) {
	best = math.Inf(1)
	for i, p := range paths {
		l := 0.0
		for _, c := range p {
			l += ell[c]
		}
		if l < best {
			best, at = l, i
		}
	}
	return best, at
}

// grow lengthens each channel by up to a twentieth, in proportion to its
// share of the busiest channel's load.
func grow(ell, load []float64) {
	top := 0.0
	for _, v := range load {
		top = max(top, v)
	}
	if top == 0 {
		return
	}
	for c, v := range load {
		ell[c] *= 1 + 0.05*v/top
	}
}

// maxPaths bounds the paths listed between two switches.
const maxPaths = 4096

// simplePaths lists the simple switch paths from a to b of at most max
// hops, as channels (switch, out port), in port order; all is false when
// there are more than maxPaths.
func simplePaths(f *fabric.Fabric, a, b fabric.NodeID, max int) (paths [][]fabric.PortRef, all bool) {
	var out [][]fabric.PortRef
	on := map[fabric.NodeID]bool{a: true}
	var path []fabric.PortRef
	var dfs func(u fabric.NodeID)
	dfs = func(u fabric.NodeID) {
		if u == b {
			out = append(out, append([]fabric.PortRef(nil), path...))
			return
		}
		if len(path) == max || len(out) > maxPaths {
			return
		}
		for p := 1; p <= f.Ports(u); p++ {
			v, ok := f.Peer(fabric.PortRef{Node: u, Port: p})
			if !ok || f.Kind(v.Node) != fabric.Switch || on[v.Node] {
				continue
			}
			on[v.Node] = true
			path = append(path, fabric.PortRef{Node: u, Port: p})
			dfs(v.Node)
			path = path[:len(path)-1]
			on[v.Node] = false
		}
	}
	dfs(a)
	return out, len(out) <= maxPaths
}

// commodities lists the commodities of m in the order of their switches,
// then of their hops.
func commodities(m map[commodityKey]*commodity) []commodity {
	var out []commodity
	for _, c := range m {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.from != b.from {
			return a.from < b.from
		}
		if a.to != b.to {
			return a.to < b.to
		}
		return a.hops < b.hops
	})
	return out
}
