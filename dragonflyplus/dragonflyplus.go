// Package dragonflyplus builds Dragonfly+ fabrics (Shpiner et al.,
// "Dragonfly+: Low Cost Topology for Scaling Datacenters", HiPINEB'17):
// groups that are two-level leaf–spine Clos fabrics (every leaf cabled to
// every spine of its group), whose spines carry the global cables between
// groups. HCAs attach to the leaves only. Every pair of groups is joined
// by the same number of global cables, so a leaf reaches a leaf of
// another group in three switch hops: its spine, the remote spine, the
// remote leaf.
package dragonflyplus

import (
	"fmt"
	"sort"

	"slimroute/fabric"
)

// Params describes a Dragonfly+ fabric. Zero fields take the defaults of
// a balanced fabric of switches with Radix ports: half of a leaf's ports
// down to HCAs and half up to the spines, half of a spine's down to the
// leaves and half global, and as many groups as the global cables join
// pairwise once.
type Params struct {
	Radix     int // switch port count; 0 means exactly the ports used (then Leaves, Spines, Global and Endpoints are required)
	Groups    int // default Spines·Global + 1
	Leaves    int // per group; default Radix/2
	Spines    int // per group; default Radix/2
	Global    int // global cables per spine; default Radix − Leaves
	Endpoints int // HCAs per leaf; default Radix − Spines
}

// Shape is a checked Params with its defaults filled in.
type Shape struct {
	Params
	PerPair int // global cables between two groups
}

// Resolve checks p and fills in its defaults before anything is
// allocated; errors name the parameter and what would fit.
func Resolve(p Params) (Shape, error) {
	s := Shape{Params: p}
	q := &s.Params
	if q.Radix < 0 || q.Radix > fabric.MaxPorts {
		return s, fmt.Errorf("radix=%d: want the switch port count, 4..%d", p.Radix, fabric.MaxPorts)
	}
	if q.Radix == 0 && (q.Leaves == 0 || q.Spines == 0 || q.Global == 0 || q.Endpoints == 0) {
		return s, fmt.Errorf("radix=0: give the switch port count (radix), or leaves, spines, global and endpoints")
	}
	for _, c := range []struct {
		key string
		v   int
	}{{"leaves", q.Leaves}, {"spines", q.Spines}, {"global", q.Global}, {"endpoints", q.Endpoints}, {"groups", q.Groups}} {
		if c.v < 0 || c.v > fabric.MaxLIDs {
			return s, fmt.Errorf("%s=%d: want 0 (the default) or 1..%d", c.key, c.v, fabric.MaxLIDs)
		}
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&q.Leaves, q.Radix/2)
	def(&q.Spines, q.Radix/2)
	def(&q.Global, q.Radix-q.Leaves)
	def(&q.Endpoints, q.Radix-q.Spines)
	if q.Leaves < 1 || q.Spines < 1 || q.Global < 1 || q.Endpoints < 1 {
		return s, fmt.Errorf("radix=%d leaves no port for leaves=%d, spines=%d, global=%d or endpoints=%d: use a larger radix or give each a count of at least 1", q.Radix, q.Leaves, q.Spines, q.Global, q.Endpoints)
	}
	def(&q.Groups, q.Spines*q.Global+1)
	return s, s.fits()
}

// fits checks ports, global cabling and LIDs.
func (s *Shape) fits() error {
	q := &s.Params
	leafPorts, spinePorts := q.Endpoints+q.Spines, q.Leaves+q.Global
	if q.Radix == 0 {
		q.Radix = max(leafPorts, spinePorts)
	}
	G := q.Spines * q.Global // global cables per group
	switch {
	case leafPorts > q.Radix || spinePorts > q.Radix:
		return fmt.Errorf("radix=%d: a leaf needs %d ports (%d endpoints + %d spines) and a spine %d (%d leaves + %d global); use switches with at least %d ports", q.Radix, leafPorts, q.Endpoints, q.Spines, spinePorts, q.Leaves, q.Global, max(leafPorts, spinePorts))
	case q.Radix > fabric.MaxPorts:
		return fmt.Errorf("radix=%d: a switch has at most %d ports", q.Radix, fabric.MaxPorts)
	case q.Groups < 2 || q.Groups > G+1 || G%(q.Groups-1) != 0:
		return fmt.Errorf("groups=%d: the %d global cables of a group (spines·global) must join every other group equally, so groups − 1 must divide %d; use groups in %v", q.Groups, G, G, groupCounts(G))
	}
	s.PerPair = G / (q.Groups - 1)
	perGroup := q.Leaves + q.Spines + q.Leaves*q.Endpoints
	if q.Groups*perGroup > fabric.MaxLIDs {
		most := fabric.MaxLIDs / perGroup
		for most > 2 && G%(most-1) != 0 {
			most--
		}
		return fmt.Errorf("groups=%d: %d switches and %d HCAs need more than the %d LIDs of an InfiniBand subnet; use groups=%d or fewer endpoints per leaf", q.Groups, q.Groups*(q.Leaves+q.Spines), q.Groups*q.Leaves*q.Endpoints, fabric.MaxLIDs, most)
	}
	return nil
}

// groupCounts lists GroupCounts(G), the first few and the last few where
// there are many.
func groupCounts(G int) []int {
	out := GroupCounts(G)
	if len(out) > 12 {
		out = append(out[:6], out[len(out)-6:]...)
	}
	return out
}

// GroupCounts lists, in ascending order, the group counts that spread G
// global cables per group (spines · global) evenly: d + 1 for every
// divisor d of G.
func GroupCounts(G int) []int {
	var out []int
	for d := 1; d*d <= G; d++ {
		if G%d == 0 {
			out = append(out, d+1)
			if d*d != G {
				out = append(out, G/d+1)
			}
		}
	}
	sort.Ints(out)
	return out
}

// LeafName is the node description of leaf j (from 0) of group g.
func LeafName(g, j int) string { return fmt.Sprintf("dfp-leaf-%d-%d", g, j) }

// SpineName is the node description of spine j (from 0) of group g.
func SpineName(g, j int) string { return fmt.Sprintf("dfp-spine-%d-%d", g, j) }

// HCAName is the node description of the i-th HCA (from 1) of leaf j of
// group g.
func HCAName(g, j, i int) string { return fmt.Sprintf("dfp-hca-%d-%d-%d", g, j, i) }
