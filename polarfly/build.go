package polarfly

import (
	"fmt"
	"sort"
	"strings"

	"slimroute/fabric"
	"slimroute/internal/gf"
)

// line returns the q + 1 points orthogonal to p (p itself among them when
// p is a quadric): {u} ∪ {w + t·u}, for a basis u, w of p's kernel.
func (d *Design) line(p Point) []Point {
	f := d.field
	var u, w [3]int
	switch {
	case p.X == 1: // x = −(y·Y + z·Z)
		u, w = [3]int{f.Neg(p.Y), 1, 0}, [3]int{f.Neg(p.Z), 0, 1}
	case p.Y == 1: // (0, 1, Z): y = −z·Z
		u, w = [3]int{1, 0, 0}, [3]int{0, f.Neg(p.Z), 1}
	default: // (0, 0, 1)
		u, w = [3]int{1, 0, 0}, [3]int{0, 1, 0}
	}
	out := []Point{d.normalise(u)}
	for t := 0; t < d.Q; t++ {
		out = append(out, d.normalise([3]int{f.Add(w[0], f.Mul(t, u[0])), f.Add(w[1], f.Mul(t, u[1])), f.Add(w[2], f.Mul(t, u[2]))}))
	}
	return out
}

// Racks assigns every point a rack 1..q: a quadric w (the first) and the
// points orthogonal to it, its q neighbours, are the clusters' centres;
// every other point u joins the centre orthogonal to both u and w. A
// cluster is a centre and its neighbours but w: q + 1 switches, and w
// stands in rack 1.
func (d *Design) Racks() []int {
	var w Point
	for _, p := range d.Points {
		if d.Quadric(p) {
			w = p
			break
		}
	}
	rack := make([]int, len(d.Points))
	centres := d.Neighbors(w)
	for i, c := range centres {
		rack[d.Index(c)] = i + 1
	}
	rack[d.Index(w)] = 1
	for i, u := range d.Points {
		if rack[i] == 0 {
			rack[i] = rack[d.Index(d.Cross(u, w))]
		}
	}
	return rack
}

// SwitchName is the node description of point p: "pf-sw-x-y-z".
func SwitchName(p Point) string { return fmt.Sprintf("pf-sw-%d-%d-%d", p.X, p.Y, p.Z) }

// HCAName is the node description of the i-th HCA (from 1) of point p.
func HCAName(p Point, i int) string { return fmt.Sprintf("pf-hca-%d-%d-%d-%d", p.X, p.Y, p.Z, i) }

// GUID layout: 16-bit prefix ("PF" for switches, "PH" for HCAs), the
// point's index (24 bits) and, for HCAs, the host index (12 bits); the low
// 8 bits stay free for port GUIDs.
const (
	switchPrefix = 0x5046
	hcaPrefix    = 0x5048
	maxHosts     = 1 << 12
)

func switchGUID(i int) fabric.GUID { return fabric.GUID(uint64(switchPrefix)<<48 | uint64(i)<<20) }

func hcaGUID(i, h int) fabric.GUID {
	return fabric.GUID(uint64(hcaPrefix)<<48 | uint64(i)<<20 | uint64(h)<<8)
}

// MaxQ is the largest q whose PolarFly fits one subnet at all: one
// endpoint per switch, q + 2 ports, 2(q² + q + 1) LIDs.
func MaxQ() int { return largestQ(func(int) int { return 1 }) }

func defaultHosts(q int) int { return (q + 2) / 2 }

func maxDefaultQ() int { return largestQ(defaultHosts) }

func largestQ(hosts func(q int) int) int {
	q := fabric.MaxPorts
	for q > 2 && (!admissible(q) || q+1+hosts(q) > fabric.MaxPorts || (q*q+q+1)*(1+hosts(q)) > fabric.MaxLIDs) {
		q--
	}
	return q
}

func admissible(q int) bool { _, _, ok := gf.PrimePower(q); return ok }

// nearby lists the prime powers within 8 of q that build with the
// default endpoints.
func nearby(q int) string {
	var s []string
	for v := max(2, q-8); v <= min(q+8, maxDefaultQ()); v++ {
		if admissible(v) {
			s = append(s, fmt.Sprint(v))
		}
	}
	if len(s) == 0 {
		s = append(s, fmt.Sprintf("2..%d (prime powers)", maxDefaultQ()))
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// resolve checks p before anything is allocated and returns the HCAs per
// switch and the radix.
func resolve(p Params) (hosts, radix int, err error) {
	if p.Q < 2 || p.Q > MaxQ() || !admissible(p.Q) {
		return 0, 0, fmt.Errorf("q=%d: a PolarFly needs a prime power q, and one that fits an InfiniBand subnet is at most %d; try q in %s", p.Q, MaxQ(), nearby(p.Q))
	}
	hosts = p.Endpoints
	if hosts == 0 {
		hosts = defaultHosts(p.Q)
	}
	if hosts < 0 || hosts >= maxHosts {
		return 0, 0, fmt.Errorf("endpoints=%d: want 0 (the default ⌈(q+1)/2⌉ = %d) or a positive count", p.Endpoints, defaultHosts(p.Q))
	}
	need := p.Q + 1 + hosts
	radix = p.Radix
	if radix == 0 {
		radix = need
	}
	switch n := p.Q*p.Q + p.Q + 1; {
	case need > radix:
		return 0, 0, fmt.Errorf("q=%d with %d endpoints per switch needs %d ports (%d network + %d endpoints), but radix is %d: use switches with at least %d ports or at most %d endpoints per switch", p.Q, hosts, need, p.Q+1, hosts, radix, need, max(0, radix-p.Q-1))
	case radix > fabric.MaxPorts:
		return 0, 0, fmt.Errorf("radix=%d: a switch has at most %d ports", radix, fabric.MaxPorts)
	case n*(1+hosts) > fabric.MaxLIDs:
		return 0, 0, fmt.Errorf("q=%d with %d endpoints per switch: %d switches and %d HCAs need %d LIDs, but an InfiniBand subnet has %d; use at most %d endpoints per switch, or q ≤ %d with the default endpoints", p.Q, hosts, n, n*hosts, n*(1+hosts), fabric.MaxLIDs, max(1, fabric.MaxLIDs/n-1), maxDefaultQ())
	}
	return hosts, radix, nil
}

// before orders switches for their ports: by rack, then by point.
func before(rack []int, x, y int) bool {
	return rack[x] < rack[y] || rack[x] == rack[y] && x < y
}

// Build constructs the PolarFly fabric for p. Switch ports 1..Endpoints
// carry the HCAs (one single-port HCA each); the network cables follow,
// ordered by the neighbour's rack, then its point, so that cables to one
// rack sit side by side. Switches come first in node order, in point
// order, then the HCAs switch by switch.
func Build(p Params) (*fabric.Fabric, error) {
	hosts, radix, err := resolve(p)
	if err != nil {
		return nil, err
	}
	d, err := NewDesign(p.Q)
	if err != nil {
		return nil, err
	}
	rack := d.Racks()
	n := len(d.Points)
	nodes := make([]fabric.Node, 0, n*(1+hosts))
	for i, pt := range d.Points {
		nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: SwitchName(pt), GUID: switchGUID(i), Ports: radix, Place: fabric.Placement{Rack: rack[i]}})
	}
	nbrs := make([][]int, n) // neighbour indices in port order
	for i, pt := range d.Points {
		for _, o := range d.Neighbors(pt) {
			nbrs[i] = append(nbrs[i], d.Index(o))
		}
		sort.Slice(nbrs[i], func(a, b int) bool { return before(rack, nbrs[i][a], nbrs[i][b]) })
	}
	links := make([]fabric.Link, 0, n*hosts+n*(p.Q+1)/2)
	for i, pt := range d.Points {
		for h := 1; h <= hosts; h++ {
			id := fabric.NodeID(len(nodes))
			nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: HCAName(pt, h), GUID: hcaGUID(i, h), Ports: 1, Place: fabric.Placement{Rack: rack[i]}})
			links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(i), Port: h}, B: fabric.PortRef{Node: id, Port: 1}})
		}
		for k, j := range nbrs[i] {
			if j < i {
				continue
			}
			back := sort.Search(len(nbrs[j]), func(m int) bool { return !before(rack, nbrs[j][m], i) })
			links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(i), Port: hosts + 1 + k}, B: fabric.PortRef{Node: fabric.NodeID(j), Port: hosts + 1 + back}})
		}
	}
	return fabric.New(nodes, links)
}
