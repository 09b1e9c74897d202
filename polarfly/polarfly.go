// Package polarfly builds PolarFly fabrics: Erdős–Rényi polarity graphs
// ER_q of diameter 2 with endpoints attached to every switch (Lakhotia et
// al., "PolarFly: A Cost-Effective and Flexible Low-Diameter Topology",
// SC'22).
//
// For a prime power q the switches are the q² + q + 1 points of the
// projective plane over GF(q) — nonzero vectors (x, y, z) up to a scalar,
// written with their first nonzero coordinate 1 — and two distinct points
// are joined when they are orthogonal, x·x′ + y·y′ + z·z′ = 0. The q + 1
// points orthogonal to themselves (the absolute points, or quadrics) have
// network degree q, every other point q + 1; any two distinct points have
// exactly one point orthogonal to both, so the diameter is 2.
package polarfly

import (
	"fmt"
	"sort"

	"slimroute/internal/gf"
)

// Params describes a PolarFly fabric.
type Params struct {
	// Q is a prime power: 2, 3, 4, 5, 7, 8, 9, 11, 13, 16, …
	Q int
	// Endpoints is the number of HCAs per switch; 0 means ⌈(q+1)/2⌉,
	// half the network degree, as for a Slim Fly.
	Endpoints int
	// Radix is the switch port count; 0 means exactly q + 1 + Endpoints.
	Radix int
}

// Point is a point of the projective plane: a vector over GF(q) whose
// first nonzero coordinate is 1, coordinates as gf elements 0..q−1.
type Point struct{ X, Y, Z int }

// Design holds the points of ER_q and its arithmetic.
type Design struct {
	Q      int
	field  *gf.Field
	Points []Point // in ascending (X, Y, Z) order: the switches' order
	index  map[Point]int
}

// NewDesign computes the points of the projective plane over GF(q).
func NewDesign(q int) (*Design, error) {
	if q < 2 || q > MaxQ() {
		return nil, fmt.Errorf("q=%d: a PolarFly that fits one InfiniBand subnet has a prime power q in 2..%d", q, MaxQ())
	}
	f, err := gf.New(q)
	if err != nil {
		return nil, fmt.Errorf("q=%d has no PolarFly: %v; try q in %s", q, err, nearby(q))
	}
	d := &Design{Q: q, field: f, index: map[Point]int{}}
	d.Points = append(d.Points, Point{0, 0, 1})
	for z := 0; z < q; z++ {
		d.Points = append(d.Points, Point{0, 1, z})
	}
	for y := 0; y < q; y++ {
		for z := 0; z < q; z++ {
			d.Points = append(d.Points, Point{1, y, z})
		}
	}
	for i, p := range d.Points {
		d.index[p] = i
	}
	return d, nil
}

// Dot is the bilinear form x·x′ + y·y′ + z·z′ over GF(q).
func (d *Design) Dot(a, b Point) int {
	f := d.field
	return f.Add(f.Add(f.Mul(a.X, b.X), f.Mul(a.Y, b.Y)), f.Mul(a.Z, b.Z))
}

// Quadric says whether p is orthogonal to itself (an absolute point).
func (d *Design) Quadric(p Point) bool { return d.Dot(p, p) == 0 }

// Index returns p's position in Points.
func (d *Design) Index(p Point) int { return d.index[p] }

// Neighbors returns the points orthogonal to p other than p, in Points
// order: the points of the line p⊥.
func (d *Design) Neighbors(p Point) []Point {
	var out []Point
	for _, o := range d.line(p) {
		if o != p {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(a, b int) bool { return d.index[out[a]] < d.index[out[b]] })
	return out
}

// Cross returns the point orthogonal to both a and b (a ≠ b): their
// cross product, normalised.
func (d *Design) Cross(a, b Point) Point {
	f := d.field
	c := [3]int{
		f.Sub(f.Mul(a.Y, b.Z), f.Mul(a.Z, b.Y)),
		f.Sub(f.Mul(a.Z, b.X), f.Mul(a.X, b.Z)),
		f.Sub(f.Mul(a.X, b.Y), f.Mul(a.Y, b.X)),
	}
	return d.normalise(c)
}

// normalise scales a nonzero vector so its first nonzero coordinate is 1.
func (d *Design) normalise(v [3]int) Point {
	f := d.field
	for _, lead := range v {
		if lead == 0 {
			continue
		}
		inv := f.Inv(lead)
		return Point{f.Mul(v[0], inv), f.Mul(v[1], inv), f.Mul(v[2], inv)}
	}
	return Point{} // the zero vector: a = b
}
