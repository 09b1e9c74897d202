package designcheck

import (
	"fmt"

	"slimroute/fabric"
)

// HyperX checks that f is the HyperX (Hamming graph with trunking) of the
// given dims: switches hx-sw-c1-…-cL for every tuple 0 ≤ c_i < dims[i],
// each with endpoints single-port HCAs hx-hca-c1-…-cL-1 … -endpoints; two
// switches joined by exactly trunk cables if their tuples differ in
// exactly one coordinate and by none otherwise; network degree
// trunk·Σ(dims[i]−1); switch-graph diameter = the number of dims > 1.
func HyperX(f *fabric.Fabric, dims []int, trunk, endpoints int) error {
	n, err := hxParams(dims, trunk, endpoints)
	if err != nil {
		return err
	}
	v, err := newView(f)
	if err != nil {
		return err
	}
	if err := v.wantCounts(n, n*endpoints); err != nil {
		return err
	}
	coords, byKey, err := hxNames(v, dims)
	if err != nil {
		return err
	}
	for s := range v.ids {
		if err := v.checkHCAs(s, "hx-hca-"+joinInts(coords[s]), endpoints); err != nil {
			return err
		}
	}
	for s := range v.ids {
		if err := hxCables(v, s, dims, trunk, coords, byKey); err != nil {
			return err
		}
	}
	return hxDegreeAndDiameter(v, dims, trunk)
}

// hxParams validates the parameters and returns the number of switches.
func hxParams(dims []int, trunk, endpoints int) (int, error) {
	if len(dims) == 0 || trunk < 1 || trunk > fabric.MaxPorts || endpoints < 0 || endpoints > fabric.MaxPorts {
		return 0, fmt.Errorf("HyperX parameters dims=%v trunk=%d endpoints=%d: want at least one dim, 1 ≤ trunk ≤ %d, 0 ≤ endpoints ≤ %[4]d", dims, trunk, endpoints, fabric.MaxPorts)
	}
	n := 1
	for i, d := range dims {
		if d < 1 {
			return 0, fmt.Errorf("HyperX dims[%d]=%d: want ≥ 1", i, d)
		}
		if n *= d; n > fabric.MaxLIDs {
			return 0, fmt.Errorf("HyperX dims=%v: more than %d switches, more than one subnet holds", dims, fabric.MaxLIDs)
		}
	}
	return n, nil
}

// hxNames parses every switch name as a coordinate tuple in range and
// returns the tuples and the switch of each tuple (by joinInts). With
// ∏dims unique such names they are exactly the tuples.
func hxNames(v *view, dims []int) ([][]int, map[string]int, error) {
	coords := make([][]int, len(v.ids))
	byKey := make(map[string]int, len(v.ids))
	for s := range v.ids {
		c, ok := parseName(v.name(s), "hx-sw-", len(dims))
		if !ok {
			return nil, nil, fmt.Errorf("switch %q: name not of the form hx-sw-c1-…-c%d", v.name(s), len(dims))
		}
		for i, x := range c {
			if x >= dims[i] {
				return nil, nil, fmt.Errorf("switch %q: coordinate %d is %d, want 0..%d", v.name(s), i+1, x, dims[i]-1)
			}
		}
		coords[s] = c
		byKey[joinInts(c)] = s
	}
	return coords, byKey, nil
}

// hxCables checks the cables of switch s: exactly trunk to each switch
// differing in one coordinate, none to any other.
func hxCables(v *view, s int, dims []int, trunk int, coords [][]int, byKey map[string]int) error {
	for i := range dims {
		t := append([]int(nil), coords[s]...)
		for x := 0; x < dims[i]; x++ {
			if x == coords[s][i] {
				continue
			}
			t[i] = x
			peer := byKey[joinInts(t)]
			if got := v.mult[s][peer]; got != trunk {
				return fmt.Errorf("switches %q and %q differ in coordinate %d only: %d cables, want %d", v.name(s), v.name(peer), i+1, got, trunk)
			}
		}
	}
	for _, t := range v.nbrs[s] {
		if h := hamming(coords[s], coords[t]); h != 1 {
			return fmt.Errorf("switches %q and %q differ in %d coordinates: %d cables, want 0", v.name(s), v.name(t), h, v.mult[s][t])
		}
	}
	return nil
}

// hamming counts the coordinates in which a and b differ.
func hamming(a, b []int) int {
	h := 0
	for i := range a {
		if a[i] != b[i] {
			h++
		}
	}
	return h
}

// hxDegreeAndDiameter checks every switch's network degree and the
// diameter of the switch graph.
func hxDegreeAndDiameter(v *view, dims []int, trunk int) error {
	want, diam := 0, 0
	for _, d := range dims {
		want += trunk * (d - 1)
		if d > 1 {
			diam++
		}
	}
	for s := range v.ids {
		if v.deg[s] != want {
			return fmt.Errorf("switch %q: network degree %d, want %d", v.name(s), v.deg[s], want)
		}
	}
	if d := v.diameter(); d != diam {
		return fmt.Errorf("switch graph diameter %d, want %d", d, diam)
	}
	return nil
}
