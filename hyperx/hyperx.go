// Package hyperx builds HyperX fabrics (Ahn et al., SC'09): Hamming
// graphs whose switches are the points of an L-dimensional grid, each
// joined to every switch that differs from it in exactly one coordinate —
// a complete graph along every line of the grid — by K parallel cables
// (the trunking), with T endpoints per switch. The diameter is the number
// of dimensions.
package hyperx

import (
	"fmt"
	"strings"

	"slimroute/fabric"
)

// Params describes a HyperX fabric.
type Params struct {
	// Dims are the switches along each dimension, each ≥ 2 (e.g. 12, 8).
	Dims []int
	// Trunk is the number of parallel cables between two switches of a
	// line; 0 means 1.
	Trunk int
	// Endpoints is the number of HCAs per switch; 0 means
	// max(1, K·min(Dims)/2), the most a line's bisection carries at full
	// bandwidth.
	Endpoints int
	// Radix is the switch port count; 0 means exactly the ports used:
	// K·Σ(Sᵢ − 1) + Endpoints.
	Radix int
}

// Coord is a switch's position in the grid.
type Coord []int

// String is the coordinates joined by "-".
func (c Coord) String() string {
	s := make([]string, len(c))
	for i, v := range c {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, "-")
}

// SwitchName is the node description of the switch at c: "hx-sw-c1-c2…".
func SwitchName(c Coord) string { return "hx-sw-" + c.String() }

// HCAName is the node description of the i-th HCA (from 1) of switch c.
func HCAName(c Coord, i int) string { return fmt.Sprintf("hx-hca-%s-%d", c, i) }

// Shape is a checked Params with its defaults filled in.
type Shape struct {
	Dims                    []int
	Trunk, Endpoints, Radix int
	Switches                int
}

// CoordOf returns the coordinates of switch i (the first dimension
// fastest).
func (s Shape) CoordOf(i int) Coord {
	c := make(Coord, len(s.Dims))
	for d, n := range s.Dims {
		c[d], i = i%n, i/n
	}
	return c
}

// IndexOf is the inverse of CoordOf.
func (s Shape) IndexOf(c Coord) int {
	i := 0
	for d := len(s.Dims) - 1; d >= 0; d-- {
		i = i*s.Dims[d] + c[d]
	}
	return i
}

// NetworkDegree is K·Σ(Sᵢ − 1), the network ports of every switch.
func (s Shape) NetworkDegree() int {
	n := 0
	for _, d := range s.Dims {
		n += d - 1
	}
	return n * s.Trunk
}

// Resolve checks p and fills in its defaults, before anything is
// allocated; errors name the parameter and the values that would fit.
func Resolve(p Params) (Shape, error) {
	s := Shape{Dims: append([]int(nil), p.Dims...), Trunk: p.Trunk, Endpoints: p.Endpoints, Radix: p.Radix, Switches: 1}
	if len(s.Dims) == 0 || len(s.Dims) > 6 {
		return s, fmt.Errorf("dims=%v: want 1 to 6 dimensions, e.g. [12, 8]", p.Dims)
	}
	if s.Trunk == 0 {
		s.Trunk = 1
	}
	if s.Trunk < 0 || s.Trunk > fabric.MaxPorts {
		return s, fmt.Errorf("trunk=%d: want 1..%d parallel cables between two switches of a line", p.Trunk, fabric.MaxPorts)
	}
	least := fabric.MaxPorts
	for _, d := range s.Dims {
		if d < 2 || d > fabric.MaxPorts {
			return s, fmt.Errorf("dims=%v: every dimension needs 2..%d switches", p.Dims, fabric.MaxPorts)
		}
		least = min(least, d)
		if s.Switches *= d; s.Switches > fabric.MaxLIDs {
			return s, fmt.Errorf("dims=%v: more than the %d LIDs of an InfiniBand subnet in switches alone", p.Dims, fabric.MaxLIDs)
		}
	}
	if s.Endpoints == 0 {
		s.Endpoints = max(1, s.Trunk*least/2)
	}
	if s.Radix == 0 {
		s.Radix = s.NetworkDegree() + s.Endpoints
	}
	return s, s.fits(p)
}

// fits checks the ports and the LIDs of a shape whose defaults are in.
func (s Shape) fits(p Params) error {
	net := s.NetworkDegree()
	need := net + s.Endpoints
	switch {
	case s.Endpoints < 0 || s.Endpoints > fabric.MaxPorts:
		return fmt.Errorf("endpoints=%d: want 0 (the default) or 1..%d", p.Endpoints, fabric.MaxPorts)
	case net > fabric.MaxPorts:
		return fmt.Errorf("dims=%v, trunk=%d: %d network ports per switch, but a switch has at most %d; use fewer or smaller dimensions or less trunking", p.Dims, s.Trunk, net, fabric.MaxPorts)
	case need > s.Radix:
		return fmt.Errorf("radix=%d: dims %v with trunk %d and %d endpoints need %d ports per switch; use switches with at least %d ports or at most %d endpoints", p.Radix, s.Dims, s.Trunk, s.Endpoints, need, need, max(0, s.Radix-net))
	case s.Radix > fabric.MaxPorts:
		return fmt.Errorf("radix=%d: a switch has at most %d ports", s.Radix, fabric.MaxPorts)
	case s.Switches*(1+s.Endpoints) > fabric.MaxLIDs:
		return fmt.Errorf("dims=%v with %d endpoints per switch: %d switches and %d HCAs need more than the %d LIDs of an InfiniBand subnet; use at most %d endpoints per switch", s.Dims, s.Endpoints, s.Switches, s.Switches*s.Endpoints, fabric.MaxLIDs, max(1, fabric.MaxLIDs/s.Switches-1))
	}
	return nil
}
