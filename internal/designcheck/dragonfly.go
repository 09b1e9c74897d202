package designcheck

import (
	"fmt"

	"slimroute/fabric"
)

// dfpRole is a Dragonfly+ switch's place, read from its name.
type dfpRole struct {
	spine bool
	g, j  int
}

func (r dfpRole) String() string {
	if r.spine {
		return fmt.Sprintf("spine %d of group %d", r.j, r.g)
	}
	return fmt.Sprintf("leaf %d of group %d", r.j, r.g)
}

// DragonflyPlus checks that f is a Dragonfly+ of groups groups, each of
// leaves leaf and spines spine switches: switches dfp-leaf-G-J and
// dfp-spine-G-J; endpoints single-port HCAs dfp-hca-G-J-1 … -endpoints on
// each leaf and none on spines; every leaf cabled to every spine of its
// group by exactly one cable and to nothing else; no spine–spine cable in
// a group; every spine with exactly global cables to spines of other
// groups; every two groups joined by exactly
// m = spines·global/(groups−1) global cables; leaves 2 hops apart within a
// group and at most 3 across groups.
func DragonflyPlus(f *fabric.Fabric, groups, leaves, spines, global, endpoints int) error {
	m, err := dfpParams(groups, leaves, spines, global, endpoints)
	if err != nil {
		return err
	}
	v, err := newView(f)
	if err != nil {
		return err
	}
	if err := v.wantCounts(groups*(leaves+spines), groups*leaves*endpoints); err != nil {
		return err
	}
	roles, err := dfpNames(v, groups, leaves, spines)
	if err != nil {
		return err
	}
	for s, r := range roles {
		want := endpoints
		if r.spine {
			want = 0
		}
		if err := v.checkHCAs(s, fmt.Sprintf("dfp-hca-%d-%d", r.g, r.j), want); err != nil {
			return err
		}
	}
	if err := dfpLocal(v, roles, spines, global); err != nil {
		return err
	}
	if err := dfpGroupPairs(v, roles, groups, m); err != nil {
		return err
	}
	return dfpDistances(v, roles)
}

// dfpParams validates the parameters and returns m, the number of global
// cables between two groups.
func dfpParams(groups, leaves, spines, global, endpoints int) (int, error) {
	bad := groups < 1 || leaves < 1 || spines < 1 || global < 0 || endpoints < 0 ||
		groups > fabric.MaxLIDs || leaves > fabric.MaxPorts || spines > fabric.MaxPorts || global > fabric.MaxPorts || endpoints > fabric.MaxPorts
	if bad {
		return 0, fmt.Errorf("dragonfly+ parameters groups=%d leaves=%d spines=%d global=%d endpoints=%d: want groups, leaves, spines ≥ 1 and global, endpoints ≥ 0 (port counts ≤ %d)", groups, leaves, spines, global, endpoints, fabric.MaxPorts)
	}
	if groups == 1 {
		if global != 0 {
			return 0, fmt.Errorf("dragonfly+ with one group: global=%d, want 0 (no other group to cable to)", global)
		}
		return 0, nil
	}
	if spines*global%(groups-1) != 0 {
		return 0, fmt.Errorf("dragonfly+ precondition: groups−1 = %d does not divide spines·global = %d", groups-1, spines*global)
	}
	return spines * global / (groups - 1), nil
}

// dfpNames parses every switch name as a leaf or spine in range. With
// groups·(leaves+spines) unique such names they are exactly the switches
// the design has.
func dfpNames(v *view, groups, leaves, spines int) ([]dfpRole, error) {
	roles := make([]dfpRole, len(v.ids))
	for s := range v.ids {
		n := v.name(s)
		c, leaf := parseName(n, "dfp-leaf-", 2)
		limit := leaves
		if !leaf {
			var ok bool
			if c, ok = parseName(n, "dfp-spine-", 2); !ok {
				return nil, fmt.Errorf("switch %q: name not of the form dfp-leaf-G-J or dfp-spine-G-J", n)
			}
			limit = spines
		}
		if c[0] >= groups || c[1] >= limit {
			return nil, fmt.Errorf("switch %q: group %d, index %d; want group 0..%d, index 0..%d", n, c[0], c[1], groups-1, limit-1)
		}
		roles[s] = dfpRole{spine: !leaf, g: c[0], j: c[1]}
	}
	return roles, nil
}

// dfpLocal checks each switch's cables: a leaf exactly one to each spine
// of its group and nothing else; a spine no cable to a spine of its own
// group and exactly global cables to spines of other groups (its cables to
// leaves are then the leaves' checks).
func dfpLocal(v *view, roles []dfpRole, spines, global int) error {
	for s, r := range roles {
		spinePeers, globals := 0, 0
		for _, t := range v.nbrs[s] {
			rt, m := roles[t], v.mult[s][t]
			switch {
			case !r.spine && (!rt.spine || rt.g != r.g):
				return fmt.Errorf("%s %q cabled to %s %q (%d cables), want none: a leaf is cabled only to its group's spines", r, v.name(s), rt, v.name(t), m)
			case !r.spine && m != 1:
				return fmt.Errorf("leaf %q and spine %q: %d cables, want 1", v.name(s), v.name(t), m)
			case r.spine && rt.spine && rt.g == r.g:
				return fmt.Errorf("spines %q and %q of group %d: %d cables, want 0", v.name(s), v.name(t), r.g, m)
			case r.spine && rt.spine:
				globals += m
			}
			spinePeers++
		}
		if !r.spine && spinePeers != spines {
			return fmt.Errorf("leaf %q: cabled to %d of its group's %d spines, want all", v.name(s), spinePeers, spines)
		}
		if r.spine && globals != global {
			return fmt.Errorf("spine %q: %d global cables, want %d", v.name(s), globals, global)
		}
	}
	return nil
}

// dfpGroupPairs requires exactly m global cables between every two groups.
func dfpGroupPairs(v *view, roles []dfpRole, groups, m int) error {
	count := make(map[[2]int]int)
	for s, r := range roles {
		for _, t := range v.nbrs[s] {
			if rt := roles[t]; r.spine && rt.spine && r.g < rt.g {
				count[[2]int{r.g, rt.g}] += v.mult[s][t]
			}
		}
	}
	for g := 0; g < groups; g++ {
		for h := g + 1; h < groups; h++ {
			if got := count[[2]int{g, h}]; got != m {
				return fmt.Errorf("groups %d and %d: %d global cables, want %d", g, h, got, m)
			}
		}
	}
	return nil
}

// dfpDistances requires leaves of one group to be exactly 2 switch hops
// apart and leaves of different groups at most 3.
func dfpDistances(v *view, roles []dfpRole) error {
	for s, r := range roles {
		if r.spine {
			continue
		}
		dist := bfs(v.nbrs, s)
		for t, rt := range roles {
			if rt.spine || t == s {
				continue
			}
			if d := dist[t]; rt.g == r.g && d != 2 {
				return fmt.Errorf("leaves %q and %q of group %d: %d switch hops apart, want 2", v.name(s), v.name(t), r.g, d)
			} else if rt.g != r.g && (d < 1 || d > 3) {
				return fmt.Errorf("leaves %q and %q of groups %d and %d: %d switch hops apart (-1: disconnected), want at most 3", v.name(s), v.name(t), r.g, rt.g, d)
			}
		}
	}
	return nil
}
