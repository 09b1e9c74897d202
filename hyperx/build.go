package hyperx

import "slimroute/fabric"

// GUID layout: 16-bit prefix ("HX" for switches, "HH" for HCAs), the
// switch's index (24 bits) and, for HCAs, the host index (12 bits); the
// low 8 bits stay free for port GUIDs.
const (
	switchPrefix = 0x4858
	hcaPrefix    = 0x4848
)

// port returns the port of switch c toward the switch that differs from
// it in dimension d, where it has value v, on trunk cable k: the HCAs
// first, then dimension by dimension, the other values in order.
func (s Shape) port(c Coord, d, v, k int) int {
	p := s.Endpoints + 1
	for e := 0; e < d; e++ {
		p += (s.Dims[e] - 1) * s.Trunk
	}
	rank := v
	if v > c[d] {
		rank--
	}
	return p + rank*s.Trunk + k
}

// Build constructs the HyperX fabric for p. Switches come first in node
// order (the first dimension fastest), then the HCAs switch by switch, on
// ports 1..Endpoints. A rack holds one line of the first dimension, so
// its cables stay within the rack.
func Build(p Params) (*fabric.Fabric, error) {
	s, err := Resolve(p)
	if err != nil {
		return nil, err
	}
	nodes := make([]fabric.Node, 0, s.Switches*(1+s.Endpoints))
	for i := 0; i < s.Switches; i++ {
		c := s.CoordOf(i)
		nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: SwitchName(c), GUID: fabric.GUID(uint64(switchPrefix)<<48 | uint64(i)<<20), Ports: s.Radix, Place: fabric.Placement{Rack: i/s.Dims[0] + 1}})
	}
	var links []fabric.Link
	for i := 0; i < s.Switches; i++ {
		c := s.CoordOf(i)
		for h := 1; h <= s.Endpoints; h++ {
			id := fabric.NodeID(len(nodes))
			nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: HCAName(c, h), GUID: fabric.GUID(uint64(hcaPrefix)<<48 | uint64(i)<<20 | uint64(h)<<8), Ports: 1, Place: fabric.Placement{Rack: i/s.Dims[0] + 1}})
			links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(i), Port: h}, B: fabric.PortRef{Node: id, Port: 1}})
		}
		links = append(links, s.cablesFrom(c)...)
	}
	return fabric.New(nodes, links)
}

// cablesFrom lists the cables from switch c to the switches of its lines
// that come after it in node order.
func (s Shape) cablesFrom(c Coord) []fabric.Link {
	i := s.IndexOf(c)
	var links []fabric.Link
	o := append(Coord(nil), c...)
	for d := range s.Dims {
		for v := c[d] + 1; v < s.Dims[d]; v++ {
			o[d] = v
			j := s.IndexOf(o)
			for k := 0; k < s.Trunk; k++ {
				links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(i), Port: s.port(c, d, v, k)}, B: fabric.PortRef{Node: fabric.NodeID(j), Port: s.port(o, d, c[d], k)}})
			}
		}
		o[d] = c[d]
	}
	return links
}
