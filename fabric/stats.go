package fabric

import "math"

// Stats summarises a fabric's size and shape.
type Stats struct {
	Switches      int `json:"switches"`
	HCAs          int `json:"hcas"`
	Endpoints     int `json:"endpoints"`      // cabled HCA ports
	SwitchLinks   int `json:"switch_links"`   // inter-switch cables
	EndpointLinks int `json:"endpoint_links"` // switch-to-HCA cables
	ParallelLinks int `json:"parallel_links"` // inter-switch cables beyond the first between a pair
	MinDegree     int `json:"min_degree"`     // inter-switch cables per switch
	MaxDegree     int `json:"max_degree"`
	MinEndpoints  int `json:"min_endpoints"` // HCA ports per switch
	MaxEndpoints  int `json:"max_endpoints"`
	Components    int `json:"components"` // of the switch graph
	// Diameter and AverageDistance count switch-to-switch hops over all
	// ordered pairs of distinct switches; Diameter is -1 when the switch
	// graph is disconnected.
	Diameter        int     `json:"diameter"`
	AverageDistance float64 `json:"average_distance"`
	// MooreBound is the largest switch count any graph of MaxDegree and
	// Diameter can have; MooreEfficiency is Switches / MooreBound.
	MooreBound      int     `json:"moore_bound"`
	MooreEfficiency float64 `json:"moore_efficiency"`
}

// ComputeStats measures f. It runs one breadth-first search per switch:
// O(S·(S+L)) time for S switches and L inter-switch cables.
func ComputeStats(f *Fabric) Stats {
	v := f.SwitchView()
	st := Stats{Switches: v.NumSwitches(), HCAs: len(f.IDsOf(HCA))}
	for _, l := range f.links {
		if f.nodes[l.A.Node].Kind == Switch && f.nodes[l.B.Node].Kind == Switch {
			st.SwitchLinks++
		} else {
			st.EndpointLinks++
		}
	}
	st.Endpoints = st.EndpointLinks
	n := v.NumSwitches()
	if n == 0 {
		return st
	}
	st.MinDegree, st.MinEndpoints = math.MaxInt, math.MaxInt
	for s := 0; s < n; s++ {
		d, e := v.Degree(s), len(v.Endpoints[s])
		st.MinDegree, st.MaxDegree = min(st.MinDegree, d), max(st.MaxDegree, d)
		st.MinEndpoints, st.MaxEndpoints = min(st.MinEndpoints, e), max(st.MaxEndpoints, e)
		seen := map[int]bool{}
		for _, c := range v.Adj[s] {
			if seen[c.Peer] && s < c.Peer {
				st.ParallelLinks++
			}
			seen[c.Peer] = true
		}
	}
	st.Components = len(v.Components())
	dist, queue := make([]int, n), make([]int, 0, n)
	var sum, pairs int64
	for s := 0; s < n; s++ {
		v.Distances(s, dist, queue)
		for t, d := range dist {
			if t != s && d > 0 {
				sum += int64(d)
				pairs++
				st.Diameter = max(st.Diameter, d)
			}
		}
	}
	if pairs > 0 {
		st.AverageDistance = float64(sum) / float64(pairs)
	}
	if st.Components > 1 {
		st.Diameter = -1
	}
	if st.Diameter > 0 {
		st.MooreBound = MooreBound(st.MaxDegree, st.Diameter)
		if st.MooreBound > 0 {
			st.MooreEfficiency = float64(n) / float64(st.MooreBound)
		}
	}
	return st
}

// MooreBound returns 1 + k·Σ_{i<D} (k-1)^i, the largest number of vertices
// of a graph with maximum degree k and diameter D (Hoffman and Singleton,
// 1960), or 0 when it overflows an int.
func MooreBound(k, d int) int {
	total, term := 1, k
	for i := 0; i < d; i++ {
		if term > math.MaxInt/2-total {
			return 0
		}
		total += term
		term *= k - 1
	}
	return total
}
