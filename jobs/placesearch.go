package jobs

import (
	"math"
	"slices"
	"sort"

	"slimroute/fabric"
)

// eval measures the new job on hosts (any order; ranked in natural order).
func (p *placer) eval(hosts []string) Placement {
	hs := append([]string(nil), hosts...)
	sort.Slice(hs, func(a, b int) bool { return fabric.NaturalLess(hs[a], hs[b]) })
	j := Job{ID: "new", Hosts: hs, Pattern: p.pattern, Weight: 1}
	mine := loads{}
	flows := j.Flows()
	p.walked += len(flows)
	for _, fl := range flows {
		walk(p.tab, p.switches, p.ports[hs[fl.From]], p.ports[hs[fl.To]], fl.Weight, mine, nil)
	}
	r := Placement{Hosts: hs, Nodelist: CompressHostlist(hs), Factor: 1, Switches: len(p.switchesOf(hs))}
	for c, v := range mine {
		r.Alone, r.Together = max(r.Alone, v), max(r.Together, v+p.total[c])
	}
	if r.Alone > 0 {
		r.Factor = r.Together / r.Alone
	}
	return r
}

// switchesOf lists the switches hosts hang off, in order of first use.
func (p *placer) switchesOf(hosts []string) []fabric.NodeID {
	var out []fabric.NodeID
	for _, h := range hosts {
		if sw, ok := p.tab.Fabric().Peer(p.ports[h]); ok && !slices.Contains(out, sw.Node) {
			out = append(out, sw.Node)
		}
	}
	return out
}

// better returns the better of a and b (see Place); a on a tie.
func (p *placer) better(a, b Placement) Placement {
	if less(b, a) {
		return b
	}
	return a
}

// less orders placements: by their figures (cmpFigures), then by the
// hosts in natural order.
func less(a, b Placement) bool {
	if c := cmpFigures(a, b); c != 0 {
		return c < 0
	}
	return slices.CompareFunc(a.Hosts, b.Hosts, func(x, y string) int {
		switch {
		case fabric.NaturalLess(x, y):
			return -1
		case fabric.NaturalLess(y, x):
			return 1
		}
		return 0
	}) < 0
}

// cmpFigures compares Together, then Alone (loads equal within a
// relative 1e-9 count as equal: sums in another order differ in the last
// bits), then switches.
func cmpFigures(a, b Placement) int {
	if c := cmpLoad(a.Together, b.Together); c != 0 {
		return c
	}
	if c := cmpLoad(a.Alone, b.Alone); c != 0 {
		return c
	}
	return a.Switches - b.Switches
}

func cmpLoad(a, b float64) int {
	if math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) {
		return 0
	}
	if a < b {
		return -1
	}
	return 1
}

// bySwitch groups the free hosts by their switch, switches in order of
// their first free host, hosts in natural order.
func (p *placer) bySwitch() [][]string {
	var groups [][]string
	at := map[fabric.NodeID]int{}
	for _, h := range p.free {
		sw, _ := p.tab.Fabric().Peer(p.ports[h])
		k, ok := at[sw.Node]
		if !ok {
			k = len(groups)
			at[sw.Node] = k
			groups = append(groups, nil)
		}
		groups[k] = append(groups[k], h)
	}
	return groups
}

// greedy fills the job from each seed switch (the maxSeeds with the most
// free hosts), adding at each step the free hosts of the switch that
// leave the partial job best, and returns the best fill.
func (p *placer) greedy() Placement {
	groups := p.bySwitch()
	seeds := make([]int, len(groups))
	for i := range seeds {
		seeds[i] = i
	}
	sort.SliceStable(seeds, func(a, b int) bool { return len(groups[seeds[a]]) > len(groups[seeds[b]]) })
	var best Placement
	for k, s := range seeds[:min(len(seeds), maxSeeds)] {
		r := p.fill(groups, s)
		if k == 0 {
			best = r
		}
		best = p.better(best, r)
	}
	return best
}

// fill grows a job from switch group seed, a whole switch at a time.
func (p *placer) fill(groups [][]string, seed int) Placement {
	used := map[int]bool{seed: true}
	hosts := take(nil, groups[seed], p.n)
	for len(hosts) < p.n {
		var step Placement
		pick := -1
		for g := range groups {
			if used[g] {
				continue
			}
			r := p.eval(take(hosts, groups[g], p.n))
			if pick < 0 || less(r, step) {
				step, pick = r, g
			}
		}
		used[pick] = true
		hosts = step.Hosts
	}
	return p.eval(hosts)
}

// take appends to hosts the first of more, up to n hosts in all.
func take(hosts, more []string, n int) []string {
	out := append([]string(nil), hosts...)
	return append(out, more[:min(len(more), n-len(hosts))]...)
}

// improve swaps one chosen host for a free one while that gives better
// figures (first improvement, in natural order; equal figures are no
// improvement), until maxWalks flows have been walked in all.
func (p *placer) improve(r Placement) Placement {
	for changed := true; changed && p.walked < maxWalks; {
		changed = false
		chosen := map[string]bool{}
		for _, h := range r.Hosts {
			chosen[h] = true
		}
		for i := 0; i < len(r.Hosts) && !changed && p.walked < maxWalks; i++ {
			for _, u := range p.free {
				if chosen[u] || p.walked >= maxWalks {
					continue
				}
				cand := append(append(append([]string(nil), r.Hosts[:i]...), r.Hosts[i+1:]...), u)
				if c := p.eval(cand); cmpFigures(c, r) < 0 {
					r, changed = c, true
					break
				}
			}
		}
	}
	return r
}
