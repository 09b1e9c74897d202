package analysis

import (
	"fmt"
	"sort"
)

// CeilingReport sets the disjoint-path figures beside their ceiling: per
// pair, the most link-disjoint paths the graph allows within the length
// bounds (see ceiling.go), capped at the number of layers L.
type CeilingReport struct {
	// Bounds are the path lengths allowed: a pair's distance d, and those
	// of layers ≥ 1.
	Bounds string `json:"bounds"`
	// Possible[n] counts pairs whose ceiling is at least n (n = 0..L);
	// Achieved[n] those with at least n disjoint layer paths of an allowed
	// length (at most Possible[n]: paths outside the bounds do not count).
	Possible []int `json:"possible_at_least"`
	Achieved []int `json:"achieved_at_least"`
	// SwitchPossible[n] counts switch pairs whose ceiling is at least n,
	// to set beside Report.SwitchPairDisjoint.
	SwitchPossible []int `json:"switch_pairs_possible_at_least"`
	// Short counts pairs with fewer disjoint paths than min(L, ceiling).
	Short int `json:"short"`
	// Classes break the pairs down by the distance of their switches.
	Classes []DistanceClass `json:"classes"`
	// ShortPairs lists the first short pairs, by distance, source switch
	// and destination endpoint (Options.ListShort of them).
	ShortPairs []ShortPair `json:"short_pairs"`
}

// DistanceClass holds the ceiling figures of the pairs whose switches are
// Distance hops apart.
type DistanceClass struct {
	Distance int    `json:"distance"`
	Name     string `json:"name"`
	Pairs    int    `json:"pairs"`
	Possible []int  `json:"possible_at_least"`
	Achieved []int  `json:"achieved_at_least"`
	Short    int    `json:"short"`
}

// ShortPair is a pair with fewer disjoint paths than its ceiling.
type ShortPair struct {
	Source      string `json:"source_switch"`
	Destination string `json:"destination"`
	Distance    int    `json:"distance"`
	Achieved    int    `json:"achieved"`
	Ceiling     int    `json:"ceiling"`
}

// ClassName names a distance class the way the issue tracker does.
func ClassName(d int) string {
	if d == 1 {
		return "adjacent"
	}
	return fmt.Sprintf("distance %d", d)
}

// ceilingTally accumulates the ceiling figures pair by pair.
type ceilingTally struct {
	c       *ceilings
	L, list int
	names   func(s, d int) (string, string) // source switch s, destination endpoint d
	rep     *CeilingReport
	classes map[int]*DistanceClass
	short   map[int][]ShortPair // per distance, the first list short pairs
	within  [][]int             // scratch: the layer paths of an allowed length
}

func newCeilingTally(c *ceilings, L, list int, names func(s, d int) (string, string)) *ceilingTally {
	return &ceilingTally{c: c, L: L, list: list, names: names, classes: map[int]*DistanceClass{}, short: map[int][]ShortPair{},
		rep: &CeilingReport{Bounds: c.bounds.String(), Possible: make([]int, L+1), Achieved: make([]int, L+1), SwitchPossible: make([]int, L+1)}}
}

// add counts the pair (switch s, endpoint d on switch t) routed along
// paths (one per layer).
func (ct *ceilingTally) add(s, d, t int, paths [][]int) {
	S := ct.c.S
	dist := int(ct.c.dist[s*S+t])
	allowed := allowedLengths(ct.c.bounds, dist)
	ct.within = ct.within[:0]
	for _, p := range paths {
		if len(p) < 64 && allowed&(1<<len(p)) != 0 {
			ct.within = append(ct.within, p)
		}
	}
	got, ceil := maxDisjoint(ct.within), min(ct.L, int(ct.c.value[s*S+t]))
	cl := ct.classes[dist]
	if cl == nil {
		cl = &DistanceClass{Distance: dist, Name: ClassName(dist), Possible: make([]int, ct.L+1), Achieved: make([]int, ct.L+1)}
		ct.classes[dist] = cl
	}
	cl.Pairs++
	for n := 0; n <= ceil; n++ {
		ct.rep.Possible[n]++
		cl.Possible[n]++
	}
	for n := 0; n <= got; n++ {
		ct.rep.Achieved[n]++
		cl.Achieved[n]++
	}
	if got < ceil {
		ct.rep.Short++
		cl.Short++
		if len(ct.short[dist]) < ct.list {
			src, dst := ct.names(s, d)
			ct.short[dist] = append(ct.short[dist], ShortPair{Source: src, Destination: dst, Distance: dist, Achieved: got, Ceiling: ceil})
		}
	}
}

// finish counts the switch pairs (s, t) for every t in hosted, sorts the
// classes and keeps the first short pairs.
func (ct *ceilingTally) finish(hosts []int) *CeilingReport {
	S := ct.c.S
	for s := 0; s < S; s++ {
		for t := 0; t < S; t++ {
			if s == t || hosts[s] == 0 || hosts[t] == 0 || ct.c.dist[s*S+t] == unreachable {
				continue
			}
			for n := 0; n <= min(ct.L, int(ct.c.value[s*S+t])); n++ {
				ct.rep.SwitchPossible[n]++
			}
		}
	}
	for _, cl := range ct.classes {
		ct.rep.Classes = append(ct.rep.Classes, *cl)
	}
	sort.Slice(ct.rep.Classes, func(i, j int) bool { return ct.rep.Classes[i].Distance < ct.rep.Classes[j].Distance })
	ct.rep.ShortPairs = []ShortPair{}
	for _, cl := range ct.rep.Classes {
		ct.rep.ShortPairs = append(ct.rep.ShortPairs, ct.short[cl.Distance]...)
	}
	if len(ct.rep.ShortPairs) > ct.list {
		ct.rep.ShortPairs = ct.rep.ShortPairs[:ct.list]
	}
	return ct.rep
}
