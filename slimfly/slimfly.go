// Package slimfly builds Slim Fly fabrics: McKay–Miller–Širáň (MMS) graphs
// of diameter 2 with endpoints attached to every switch.
//
// The construction follows Besta and Hoefler, "Slim Fly: A Cost Effective
// Low-Diameter Network Topology" (SC'14), §3, after Hafner's description of
// the MMS graphs: for a prime power q = 4w + δ, δ ∈ {−1, 0, 1}, with ξ a
// primitive element of GF(q), the 2q² routers are (s, x, y) with s ∈ {0, 1}
// and x, y ∈ GF(q), and
//
//	(0, x, y) ~ (0, x, y′)  iff  y − y′ ∈ X
//	(1, m, c) ~ (1, m, c′)  iff  c − c′ ∈ X′
//	(0, x, y) ~ (1, m, c)   iff  y = m·x + c
//
// where the generator sets X, X′ are
//
//	δ = +1: X = {ξ^0, ξ^2, …, ξ^(q−3)},  X′ = {ξ^1, ξ^3, …, ξ^(q−2)}
//	δ =  0: X = {ξ^0, ξ^2, …, ξ^(q−2)},  X′ = {ξ^1, ξ^3, …, ξ^(q−1)}
//	δ = −1: X = {ξ^0, ξ^2, …, ξ^(2w−2)} ∪ {ξ^(2w−1), ξ^(2w+1), …, ξ^(4w−3)},
//	        X′ = {ξ^1, ξ^3, …, ξ^(2w−1)} ∪ {ξ^(2w), ξ^(2w+2), …, ξ^(4w−2)}.
//
// Every router then has network degree k′ = (3q − δ)/2 and the graph has
// diameter 2. Racks follow the NSDI'24 deployment: rack x holds the routers
// (0, x, ·) and (1, x, ·), 2q switches per rack.
package slimfly

import (
	"fmt"
	"sort"
	"strings"

	"slimroute/fabric"
	"slimroute/internal/gf"
)

// Params describes a Slim Fly fabric.
type Params struct {
	// Q is the prime power q = 4w + δ, δ ∈ {−1, 0, 1}.
	Q int
	// Endpoints is the number of HCAs per switch (p); 0 means ⌈k′/2⌉,
	// the balanced choice of the Slim Fly paper.
	Endpoints int
	// Radix is the switch port count; 0 means exactly k′ + p. A radix too
	// small for k′ + p ports is an error.
	Radix int
}

// Router is the MMS coordinate (s, x, y) of a switch.
type Router struct{ S, X, Y int }

// Design holds the algebra of a Slim Fly of a given q.
type Design struct {
	Q, W, Delta int
	field       *gf.Field
	X, XPrime   []int // generator sets, as field elements in ascending order
	// Degree is the network degree k′ = (3q − δ)/2.
	Degree int
}

// NewDesign computes the field and generator sets for q.
func NewDesign(q int) (*Design, error) {
	if q < 3 || q%4 == 2 {
		return nil, fmt.Errorf("q=%d has no Slim Fly: q must be a prime power 4w+δ with δ in {-1,0,1}; try q in %s", q, nearby(q))
	}
	if q > MaxQ() {
		return nil, fmt.Errorf("q=%d is too large for one InfiniBand subnet (%d unicast LIDs) and %d-port switches; use q ≤ %d with the default endpoints, or up to %d with fewer endpoints per switch", q, fabric.MaxLIDs, fabric.MaxPorts, maxDefaultQ(), MaxQ())
	}
	f, err := gf.New(q)
	if err != nil {
		return nil, fmt.Errorf("q=%d has no Slim Fly: %v; try q in %s", q, err, nearby(q))
	}
	d := &Design{Q: q, field: f}
	switch q % 4 {
	case 1:
		d.Delta, d.W = 1, (q-1)/4
		for k := 0; k <= q-3; k += 2 {
			d.X = append(d.X, f.Pow(k))
			d.XPrime = append(d.XPrime, f.Pow(k+1))
		}
	case 0:
		d.Delta, d.W = 0, q/4
		for k := 0; k <= q-2; k += 2 {
			d.X = append(d.X, f.Pow(k))
			d.XPrime = append(d.XPrime, f.Pow(k+1))
		}
	case 3:
		d.Delta, d.W = -1, (q+1)/4
		w := d.W
		for k := 0; k <= 2*w-2; k += 2 {
			d.X = append(d.X, f.Pow(k))
		}
		for k := 2*w - 1; k <= 4*w-3; k += 2 {
			d.X = append(d.X, f.Pow(k))
		}
		for k := 1; k <= 2*w-1; k += 2 {
			d.XPrime = append(d.XPrime, f.Pow(k))
		}
		for k := 2 * w; k <= 4*w-2; k += 2 {
			d.XPrime = append(d.XPrime, f.Pow(k))
		}
	}
	sort.Ints(d.X)
	sort.Ints(d.XPrime)
	d.Degree = (3*q - d.Delta) / 2
	return d, nil
}

// degreeOf is the network degree (3q − δ)/2 of a Slim Fly with q = 4w + δ,
// for q not 2 mod 4; for large q only its size matters.
func degreeOf(q int) int {
	if q > 1<<40 {
		return 1 << 40 // (3q − δ)/2 would overflow; any such q is too large
	}
	delta := map[int]int{0: 0, 1: 1, 3: -1}[q%4]
	return (3*q - delta) / 2
}

// MaxQ is the largest q whose Slim Fly fits one subnet at all: with one
// endpoint per switch, its switches have room for their (3q − δ)/2 network
// ports and its 2q² switches and HCAs for fabric.MaxLIDs.
func MaxQ() int { return largestQ(func(int) int { return 1 }) }

// maxDefaultQ is the largest q whose Slim Fly with the default ⌈k′/2⌉
// endpoints per switch fits one subnet.
func maxDefaultQ() int { return largestQ(func(q int) int { return (degreeOf(q) + 1) / 2 }) }

func largestQ(hosts func(q int) int) int {
	q := 2*fabric.MaxPorts/3 + 1
	for q > 3 && (!admissible(q) || degreeOf(q)+hosts(q) > fabric.MaxPorts || 2*q*q*(1+hosts(q)) > fabric.MaxLIDs) {
		q--
	}
	return q
}

func admissible(q int) bool {
	_, _, ok := gf.PrimePower(q)
	return ok && q%4 != 2
}

// Admissible lists the q ≤ max for which a Slim Fly exists.
func Admissible(max int) []int {
	var out []int
	for q := 3; q <= max; q++ {
		if admissible(q) {
			out = append(out, q)
		}
	}
	return out
}

// nearby lists the admissible q within 8 of q that build with the default
// endpoints (q ≤ maxDefaultQ); for a q beyond those, the largest four.
func nearby(q int) string {
	top := maxDefaultQ() // a suggestion must build as it stands
	var s []string
	for v := max(3, q-8); v <= min(q+8, top); v++ {
		if admissible(v) {
			s = append(s, fmt.Sprint(v))
		}
	}
	for v := top; len(s) < 4 && v >= 3; v-- { // q beyond reach: the largest
		if admissible(v) && v < q-8 {
			s = append([]string{fmt.Sprint(v)}, s...)
		}
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// Neighbors returns the routers adjacent to r, in rack order (rack, then s,
// then the coordinates), which is the order of their ports.
func (d *Design) Neighbors(r Router) []Router {
	f, q := d.field, d.Q
	var out []Router
	if r.S == 0 {
		for _, g := range d.X {
			out = append(out, Router{0, r.X, f.Add(r.Y, g)})
		}
		for m := 0; m < q; m++ { // y = m·x + c  ⇒  c = y − m·x
			out = append(out, Router{1, m, f.Sub(r.Y, f.Mul(m, r.X))})
		}
	} else {
		for _, g := range d.XPrime {
			out = append(out, Router{1, r.X, f.Add(r.Y, g)})
		}
		for x := 0; x < q; x++ {
			out = append(out, Router{0, x, f.Add(f.Mul(r.X, x), r.Y)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return routerLess(out[i], out[j]) })
	return out
}

// routerLess orders routers by rack (x), then subgraph, then y.
func routerLess(a, b Router) bool {
	if a.X != b.X {
		return a.X < b.X
	}
	if a.S != b.S {
		return a.S < b.S
	}
	return a.Y < b.Y
}

// Index numbers routers 0..2q²−1: subgraph, then x, then y.
func (d *Design) Index(r Router) int { return (r.S*d.Q+r.X)*d.Q + r.Y }

// RouterAt is the inverse of Index.
func (d *Design) RouterAt(i int) Router {
	return Router{S: i / (d.Q * d.Q), X: i / d.Q % d.Q, Y: i % d.Q}
}

// SwitchName is the node description of router r: "sw-s-x-y".
func SwitchName(r Router) string { return fmt.Sprintf("sw-%d-%d-%d", r.S, r.X, r.Y) }

// HCAName is the node description of the i-th HCA (from 1) of router r.
func HCAName(r Router, i int) string { return fmt.Sprintf("hca-%d-%d-%d-%d", r.S, r.X, r.Y, i) }

// GUID layout: 16-bit prefix ("SF" for switches, "SH" for HCAs), then s (4
// bits), x and y (12 bits each) and, for HCAs, the host index (12 bits);
// the low 8 bits of an HCA GUID stay free for its port GUIDs (node + port).
const (
	switchPrefix = 0x5346
	hcaPrefix    = 0x5348
	maxCoord     = 1 << 12
)

// SwitchGUID is the node GUID of router r.
func SwitchGUID(r Router) fabric.GUID {
	return fabric.GUID(uint64(switchPrefix)<<48 | uint64(r.S)<<44 | uint64(r.X)<<32 | uint64(r.Y)<<20)
}

// HCAGUID is the node GUID of the i-th HCA of router r.
func HCAGUID(r Router, i int) fabric.GUID {
	return fabric.GUID(uint64(hcaPrefix)<<48 | uint64(r.S)<<44 | uint64(r.X)<<32 | uint64(r.Y)<<20 | uint64(i)<<8)
}

// Build constructs the Slim Fly fabric for p. Switch ports 1..Endpoints
// carry the HCAs (one single-port HCA each); the network links follow on the
// next ports, ordered by the neighbour's rack so that cables to one rack sit
// side by side. Switches come first in node order, in Index order, then the
// HCAs switch by switch.
func Build(p Params) (*fabric.Fabric, error) {
	d, err := NewDesign(p.Q)
	if err != nil {
		return nil, err
	}
	hosts := p.Endpoints
	if hosts == 0 {
		hosts = (d.Degree + 1) / 2
	}
	if hosts < 0 || hosts >= maxCoord {
		return nil, fmt.Errorf("endpoints=%d: want 0 (default ⌈k′/2⌉ = %d) or a positive count", p.Endpoints, (d.Degree+1)/2)
	}
	need := d.Degree + hosts
	radix := p.Radix
	if radix == 0 {
		radix = need
	}
	if need > radix {
		fix := fmt.Sprintf("use switches with at least %d ports", need)
		if radix > d.Degree {
			fix += fmt.Sprintf(" or at most %d endpoints per switch", radix-d.Degree)
		} else {
			fix += fmt.Sprintf(" (the network alone takes %d)", d.Degree)
		}
		return nil, fmt.Errorf("q=%d with %d endpoints per switch needs %d ports per switch (%d network + %d endpoints), but radix is %d: %s",
			p.Q, hosts, need, d.Degree, hosts, radix, fix)
	}
	if radix > fabric.MaxPorts {
		return nil, fmt.Errorf("radix %d: a switch has at most %d ports", radix, fabric.MaxPorts)
	}
	n := 2 * p.Q * p.Q
	if err := fitsOneSubnet(p.Q, hosts); err != nil {
		return nil, err
	}
	nodes := make([]fabric.Node, 0, n*(1+hosts))
	nbrs := make([][]Router, n)
	for i := 0; i < n; i++ {
		r := d.RouterAt(i)
		nodes = append(nodes, fabric.Node{
			Kind: fabric.Switch, Name: SwitchName(r), GUID: SwitchGUID(r), Ports: radix,
			Place: fabric.Placement{Rack: r.X + 1},
		})
		nbrs[i] = d.Neighbors(r)
	}
	var links []fabric.Link
	for i := 0; i < n; i++ {
		r := d.RouterAt(i)
		for h := 1; h <= hosts; h++ {
			id := fabric.NodeID(len(nodes))
			nodes = append(nodes, fabric.Node{
				Kind: fabric.HCA, Name: HCAName(r, h), GUID: HCAGUID(r, h), Ports: 1,
				Place: fabric.Placement{Rack: r.X + 1},
			})
			links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(i), Port: h}, B: fabric.PortRef{Node: id, Port: 1}})
		}
		for k, o := range nbrs[i] {
			j := d.Index(o)
			if j < i {
				continue
			}
			back := sort.Search(len(nbrs[j]), func(m int) bool { return !routerLess(nbrs[j][m], r) })
			links = append(links, fabric.Link{
				A: fabric.PortRef{Node: fabric.NodeID(i), Port: hosts + 1 + k},
				B: fabric.PortRef{Node: fabric.NodeID(j), Port: hosts + 1 + back},
			})
		}
	}
	return fabric.New(nodes, links)
}

// fitsOneSubnet refuses a Slim Fly whose switches and HCAs need more LIDs
// than one subnet has, naming the endpoints per switch that would fit and
// the largest q that fits with its default endpoints.
func fitsOneSubnet(q, hosts int) error {
	n := 2 * q * q
	if n*(1+hosts) <= fabric.MaxLIDs {
		return nil
	}
	fix := ""
	if most := fabric.MaxLIDs/n - 1; most >= 1 {
		fix = fmt.Sprintf("at most %d endpoints per switch, or ", most)
	}
	return fmt.Errorf("q=%d with %d endpoints per switch: %d switches and %d HCAs need %d LIDs, but an InfiniBand subnet has %d; use %sq ≤ %d with the default endpoints",
		q, hosts, n, n*hosts, n*(1+hosts), fabric.MaxLIDs, fix, maxDefaultQ())
}
