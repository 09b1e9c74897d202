package dragonflyplus

import "slimroute/fabric"

// GUID layout: 16-bit prefix ("DS" for switches, "DT" for HCAs — the
// terminals), the group (16 bits), 0 for a leaf or 1 for a spine (4 bits),
// the switch in its group (8 bits) and, for HCAs, the host index (12
// bits); the low 8 bits stay free for port GUIDs. GUID order is node
// order, as routing a fabric read from a file takes it.
const (
	switchPrefix = 0x4453
	hcaPrefix    = 0x4454
)

func leafGUID(g, j int) fabric.GUID  { return guid(switchPrefix, g, 0, j, 0) }
func spineGUID(g, j int) fabric.GUID { return guid(switchPrefix, g, 1, j, 0) }

func guid(prefix uint64, g, kind, j, i int) fabric.GUID {
	return fabric.GUID(prefix<<48 | uint64(g)<<32 | uint64(kind)<<28 | uint64(j)<<20 | uint64(i)<<8)
}

// Build constructs the Dragonfly+ fabric for p. Node order: group by
// group its leaves, then its spines; then the HCAs leaf by leaf. A leaf's
// ports 1..Endpoints carry its HCAs, then one port per spine of its
// group; a spine's first ports go to the leaves, then its global ports. A
// group stands in a rack of its own.
func Build(p Params) (*fabric.Fabric, error) {
	s, err := Resolve(p)
	if err != nil {
		return nil, err
	}
	L, S := s.Leaves, s.Spines
	per := L + S
	nodes := make([]fabric.Node, 0, s.Groups*(per+L*s.Endpoints))
	var links []fabric.Link
	for g := 0; g < s.Groups; g++ {
		for j := 0; j < L; j++ {
			nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: LeafName(g, j), GUID: leafGUID(g, j), Ports: s.Radix, Place: fabric.Placement{Rack: g + 1}})
		}
		for j := 0; j < S; j++ {
			nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: SpineName(g, j), GUID: spineGUID(g, j), Ports: s.Radix, Place: fabric.Placement{Rack: g + 1}})
		}
		for j := 0; j < L; j++ {
			for k := 0; k < S; k++ {
				links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(g*per + j), Port: s.Endpoints + 1 + k}, B: fabric.PortRef{Node: fabric.NodeID(g*per + L + k), Port: 1 + j}})
			}
		}
	}
	links = append(links, s.globalCables()...)
	for g := 0; g < s.Groups; g++ {
		for j := 0; j < L; j++ {
			for i := 1; i <= s.Endpoints; i++ {
				id := fabric.NodeID(len(nodes))
				nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: HCAName(g, j, i), GUID: guid(hcaPrefix, g, 0, j, i), Ports: 1, Place: fabric.Placement{Rack: g + 1}})
				links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(g*per + j), Port: i}, B: fabric.PortRef{Node: id, Port: 1}})
			}
		}
	}
	return fabric.New(nodes, links)
}

// globalCables joins every pair of groups by PerPair cables. A group's
// global slots t = 0 … Spines·Global − 1 sit on spine t mod Spines, global
// port t / Spines; slot d·PerPair + k of group g leads to group
// g + d + 1 (mod Groups), which uses its slot (Groups − d − 2)·PerPair + k
// for the way back — so a pair's cables spread over the spines.
func (s Shape) globalCables() []fabric.Link {
	per, m := s.Leaves+s.Spines, s.PerPair
	end := func(g, t int) fabric.PortRef {
		return fabric.PortRef{Node: fabric.NodeID(g*per + s.Leaves + t%s.Spines), Port: s.Leaves + 1 + t/s.Spines}
	}
	var links []fabric.Link
	for g := 0; g < s.Groups; g++ {
		for d := 0; d < s.Groups-1; d++ {
			h := (g + d + 1) % s.Groups
			if h < g {
				continue // listed from h
			}
			back := s.Groups - d - 2
			for k := 0; k < m; k++ {
				links = append(links, fabric.Link{A: end(g, d*m+k), B: end(h, back*m+k)})
			}
		}
	}
	return links
}
