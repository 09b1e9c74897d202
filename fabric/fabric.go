// Package fabric models an InfiniBand fabric: switches and channel adapters
// (HCAs) joined port to port by links.
//
// A Fabric is an immutable value built by New, which validates it. The
// algorithms that route over it use the views in switches.go (a compact
// switch multigraph with the endpoint ports of each switch). Readers and writers for the formats the
// InfiniBand tools use live next to the model, one format per file.
package fabric

import (
	"errors"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
)

// GUID is an InfiniBand globally unique identifier (node, port or system
// image GUID). The zero GUID means "not known".
type GUID uint64

// String formats g the way OpenSM's files do: 0x and 16 lower-case hex digits.
func (g GUID) String() string { return fmt.Sprintf("0x%016x", uint64(g)) }

// ParseGUID parses a GUID written in hex, with or without a 0x prefix.
func ParseGUID(s string) (GUID, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if t == "" || len(t) > 16 {
		return 0, fmt.Errorf("invalid GUID %q: want up to 16 hex digits", s)
	}
	v, err := strconv.ParseUint(t, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid GUID %q: want up to 16 hex digits", s)
	}
	return GUID(v), nil
}

// Kind is the type of a node.
type Kind uint8

const (
	// Switch is an InfiniBand switch; its port 0 is the management port.
	Switch Kind = iota + 1
	// HCA is a channel adapter (host or target); its ports start at 1.
	HCA
)

func (k Kind) String() string {
	switch k {
	case Switch:
		return "switch"
	case HCA:
		return "hca"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// NodeID identifies a node inside one Fabric: its index in Fabric.Nodes.
type NodeID int

// PortRef names one physical port of a node.
type PortRef struct {
	Node NodeID
	Port int
}

// Placement bounds: the tallest racks sold have about 60 units, and a
// fabric of MaxRack racks is far beyond any machine room, so that a
// mistyped position cannot give cables of a million kilometres or make a
// layout allocate without end.
const (
	MaxRack      = 100000
	MaxRackUnits = 100
)

// Placement says where a node stands. Racks and rack units count from 1;
// zero means "not placed".
type Placement struct {
	Rack int `json:"rack,omitempty"`
	U    int `json:"u,omitempty"`
}

// PortAttr holds what is known of one port beyond its cabling: its GUID and,
// for a discovered fabric, its LID and LMC. Zero fields are unknown.
type PortAttr struct {
	GUID GUID
	LID  uint16
	LMC  uint8
}

// Node is a switch or an HCA.
type Node struct {
	Kind Kind
	// Name is the node description, unique within a fabric. Readers take it
	// from the NodeDescription; builders encode the node's role in it.
	Name string
	// GUID is the node GUID; zero when unknown.
	GUID GUID
	// Ports is the number of physical ports (not counting switch port 0).
	Ports int
	// Attrs holds per-port attributes, keyed by port number (0 is a switch's
	// management port). Nil or missing entries are unknown.
	Attrs map[int]PortAttr
	// Place is the node's rack position, if planned.
	Place Placement
}

// PortGUID returns the GUID of port p. A switch's ports all carry the node
// GUID; an HCA port's GUID is taken from Attrs or, when absent, is the node
// GUID plus the port number (the rule ibsim and most vendors follow).
func (n Node) PortGUID(p int) GUID {
	if a, ok := n.Attrs[p]; ok && a.GUID != 0 {
		return a.GUID
	}
	if n.GUID == 0 {
		return 0
	}
	if n.Kind == Switch {
		return n.GUID
	}
	return n.GUID + GUID(p)
}

// Link is one cable between two ports. A and B are ordered so that A < B
// (by node, then port) in a validated Fabric.
type Link struct {
	A, B  PortRef
	Width Width
	Speed Speed
}

// Fabric is a validated, immutable fabric. Use New to build one. Its fields
// are unexported and every accessor returns a copy, so no caller can change a
// Fabric another part of the program holds.
type Fabric struct {
	nodes  []Node
	links  []Link
	byPort [][]int32 // per node, per port number: link index or -1
	byName map[string]NodeID
	byGUID map[GUID]NodeID
}

// New validates nodes and links and returns the fabric they form. Links are
// normalised (A before B) and sorted, so the same cabling listed in any
// order yields the same Fabric. New reports every problem it finds, each
// naming the node and port concerned, in the same order for the same input:
// nodes by NodeID, ports by number, then links in their sorted order.
// kindAndGUID names a node apart from its name: its kind and GUID.
func kindAndGUID(n Node) string {
	if n.GUID == 0 {
		return n.Kind.String() + " without GUID"
	}
	return n.Kind.String() + " " + n.GUID.String()
}

func New(nodes []Node, links []Link) (*Fabric, error) {
	nodes = cloneNodes(nodes)
	f := &Fabric{
		nodes:  nodes,
		byPort: make([][]int32, len(nodes)),
		byName: make(map[string]NodeID, len(nodes)),
		byGUID: make(map[GUID]NodeID, len(nodes)),
	}
	var errs []error
	fail := func(format string, args ...any) {
		if len(errs) < maxErrors {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	portOwner := make(map[GUID]PortRef)
	for i := range nodes {
		n := &nodes[i]
		id := NodeID(i)
		switch {
		case n.Kind != Switch && n.Kind != HCA:
			fail("node %d (%q): unknown kind %d", i, n.Name, n.Kind)
		case n.Name == "":
			fail("node %d (%s %s): empty name; every node needs a unique node description", i, n.Kind, n.GUID)
		case n.Ports < 1 || n.Ports > MaxPorts:
			fail("node %q: %d ports; a node has 1 to %d ports", n.Name, n.Ports, MaxPorts)
		}
		if prev, dup := f.byName[n.Name]; dup && n.Name != "" {
			fail("node %q (%s): duplicate name, also of %s; node names must be unique: rename one of them", n.Name, kindAndGUID(*n), kindAndGUID(nodes[prev]))
		} else {
			f.byName[n.Name] = id
		}
		if n.GUID != 0 {
			if prev, dup := f.byGUID[n.GUID]; dup {
				fail("node %q: GUID %s already used by node %q", n.Name, n.GUID, nodes[prev].Name)
			} else {
				f.byGUID[n.GUID] = id
			}
		}
		for _, p := range sortedPorts(n.Attrs) {
			if p < 0 || p > n.Ports || (p == 0 && n.Kind != Switch) {
				fail("node %q: attributes for port %d, which it does not have (ports 1..%d)", n.Name, p, n.Ports)
			}
		}
		validPorts := n.Ports >= 1 && n.Ports <= MaxPorts
		if n.Kind == HCA && validPorts {
			for p := 1; p <= n.Ports; p++ {
				g := n.PortGUID(p)
				if g == 0 {
					continue
				}
				if prev, dup := portOwner[g]; dup {
					fail("node %q port %d: port GUID %s already used by %q port %d", n.Name, p, g, nodes[prev.Node].Name, prev.Port)
				}
				portOwner[g] = PortRef{id, p}
			}
		}
		if validPorts {
			ports := make([]int32, n.Ports+1)
			for p := range ports {
				ports[p] = -1
			}
			f.byPort[i] = ports
		}
	}
	for _, g := range sortedGUIDs(portOwner) {
		if id, ok := f.byGUID[g]; ok && id != portOwner[g].Node {
			pr := portOwner[g]
			fail("node %q port %d: port GUID %s is the node GUID of %q", nodes[pr.Node].Name, pr.Port, g, nodes[id].Name)
		}
	}

	norm := make([]Link, 0, len(links))
	for _, l := range links {
		if portLess(l.B, l.A) {
			l.A, l.B = l.B, l.A
		}
		norm = append(norm, l)
	}
	sort.SliceStable(norm, func(i, j int) bool { return portLess(norm[i].A, norm[j].A) })
	f.links = norm
	for i, l := range norm {
		ok := true
		for _, end := range [2]PortRef{l.A, l.B} {
			if end.Node < 0 || int(end.Node) >= len(nodes) {
				fail("link %d: node %d does not exist", i, end.Node)
				ok = false
				continue
			}
			n := &nodes[end.Node]
			if f.byPort[end.Node] == nil {
				ok = false // its port count is out of range, reported above
				continue
			}
			if end.Port < 1 || end.Port > n.Ports {
				fail("node %q: port %d is beyond its port count (ports 1..%d)", n.Name, end.Port, n.Ports)
				ok = false
			}
		}
		if !ok {
			continue
		}
		if l.A == l.B {
			fail("node %q port %d: cabled to itself", nodes[l.A.Node].Name, l.A.Port)
			continue
		}
		for _, end := range [2]PortRef{l.A, l.B} {
			slot := &f.byPort[end.Node][end.Port]
			if *slot >= 0 {
				other := norm[*slot]
				fail("node %q port %d: used by two links (%s and %s)", nodes[end.Node].Name, end.Port, f.linkString(other), f.linkString(l))
				continue
			}
			*slot = int32(i)
		}
		if nodes[l.A.Node].Kind == HCA && nodes[l.B.Node].Kind == HCA {
			fail("link %s: HCA cabled to HCA; slimroute routes switched fabrics only", f.linkString(l))
		}
	}
	if need := f.lidsNeeded(); need > MaxLIDs {
		fail("the fabric needs %d LIDs (a LID per switch and per cabled HCA port), more than the %d unicast LIDs of one InfiniBand subnet (0x0001–0xBFFF): split it into subnets of at most %d switches and HCA ports", need, MaxLIDs, MaxLIDs)
	}
	if len(errs) > 0 {
		if len(errs) == maxErrors {
			errs = append(errs, errors.New("(more problems not shown)"))
		}
		return nil, errors.Join(errs...)
	}
	return f, nil
}

// lidsNeeded counts the LIDs f needs at LMC 0: one per switch and one per
// cabled HCA port (of New's port table, links entered).
func (f *Fabric) lidsNeeded() int {
	n := 0
	for i, nd := range f.nodes {
		if nd.Kind == Switch {
			n++
			continue
		}
		for _, slot := range f.byPort[i] {
			if slot >= 0 {
				n++
			}
		}
	}
	return n
}

// MaxPorts is the largest port count a node may have (port numbers are 8 bit
// and 255 means "drop" in a forwarding table).
const MaxPorts = 254

// MaxLIDs is the number of unicast LIDs of one InfiniBand subnet
// (0x0001–0xBFFF). Every switch and every HCA port takes one, so a fabric
// with more of them cannot be one subnet: New refuses it, and the builders
// refuse it before they allocate it.
const MaxLIDs = 0xBFFF

const maxErrors = 20

func portLess(a, b PortRef) bool {
	if a.Node != b.Node {
		return a.Node < b.Node
	}
	return a.Port < b.Port
}

func sortedGUIDs[V any](m map[GUID]V) []GUID {
	out := make([]GUID, 0, len(m))
	for g := range m {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (f *Fabric) linkString(l Link) string {
	return fmt.Sprintf("%s <-> %s", f.PortString(l.A), f.PortString(l.B))
}

// PortString formats a port as "name[port]", the way ibnetdiscover does.
func (f *Fabric) PortString(p PortRef) string {
	if p.Node < 0 || int(p.Node) >= len(f.nodes) {
		return fmt.Sprintf("node%d[%d]", p.Node, p.Port)
	}
	return fmt.Sprintf("%q[%d]", f.nodes[p.Node].Name, p.Port)
}

// NumNodes returns the number of nodes.
func (f *Fabric) NumNodes() int { return len(f.nodes) }

// Node returns a copy of node id (its Attrs map copied too).
func (f *Fabric) Node(id NodeID) Node { return cloneNode(f.nodes[id]) }

// Nodes returns a copy of all nodes, indexed by NodeID.
func (f *Fabric) Nodes() []Node { return cloneNodes(f.nodes) }

// Kind, Name and Ports return one field of node id without copying the node:
// the accessors for loops that run once per port or per table entry.
func (f *Fabric) Kind(id NodeID) Kind { return f.nodes[id].Kind }

// Name returns the name (node description) of node id.
func (f *Fabric) Name(id NodeID) string { return f.nodes[id].Name }

// GUID returns the node GUID of node id.
func (f *Fabric) GUID(id NodeID) GUID { return f.nodes[id].GUID }

// Ports returns the number of physical ports of node id.
func (f *Fabric) Ports(id NodeID) int { return f.nodes[id].Ports }

// PortGUID returns the GUID of port p (see Node.PortGUID).
func (f *Fabric) PortGUID(p PortRef) GUID { return f.nodes[p.Node].PortGUID(p.Port) }

// PortAttr returns the attributes known for port p, if any.
func (f *Fabric) PortAttr(p PortRef) (PortAttr, bool) {
	a, ok := f.nodes[p.Node].Attrs[p.Port]
	return a, ok
}

// Links returns a copy of all links, sorted by their A end.
func (f *Fabric) Links() []Link { return append([]Link(nil), f.links...) }

// NumLinks returns the number of links.
func (f *Fabric) NumLinks() int { return len(f.links) }

// Link returns link i of Links.
func (f *Fabric) Link(i int) Link { return f.links[i] }

func cloneNode(n Node) Node {
	if n.Attrs != nil {
		n.Attrs = maps.Clone(n.Attrs)
	}
	return n
}

func cloneNodes(nodes []Node) []Node {
	out := make([]Node, len(nodes))
	for i, n := range nodes {
		out[i] = cloneNode(n)
	}
	return out
}

// NodeByName finds a node by its name (node description).
func (f *Fabric) NodeByName(name string) (NodeID, bool) {
	id, ok := f.byName[name]
	return id, ok
}

// NodeByGUID finds a node by its node GUID.
func (f *Fabric) NodeByGUID(g GUID) (NodeID, bool) {
	id, ok := f.byGUID[g]
	return id, ok
}

// LinkAt returns the index in Links of the link cabled to port p.
func (f *Fabric) LinkAt(p PortRef) (int, bool) {
	if p.Node < 0 || int(p.Node) >= len(f.byPort) || p.Port < 0 || p.Port >= len(f.byPort[p.Node]) {
		return 0, false
	}
	i := f.byPort[p.Node][p.Port]
	return int(i), i >= 0
}

// CabledIn says whether cable l of f joins the same ports in fabric g,
// matched by node GUID and port number.
func (f *Fabric) CabledIn(g *Fabric, l Link) bool {
	ga, ok1 := g.NodeByGUID(f.GUID(l.A.Node))
	gb, ok2 := g.NodeByGUID(f.GUID(l.B.Node))
	if !ok1 || !ok2 {
		return false
	}
	peer, ok := g.Peer(PortRef{Node: ga, Port: l.A.Port})
	return ok && peer == PortRef{Node: gb, Port: l.B.Port}
}

// CabledAlike says whether node id of f is cabled in fabric g as in f,
// matched by node GUID and port number: g has it with as many ports, and
// each of its ports leads to the same port of the same node, or nowhere,
// in both.
func (f *Fabric) CabledAlike(id NodeID, g *Fabric) bool {
	gid, ok := g.NodeByGUID(f.GUID(id))
	if !ok || g.Ports(gid) != f.Ports(id) {
		return false
	}
	for p := 1; p <= f.Ports(id); p++ {
		a, had := f.Peer(PortRef{Node: id, Port: p})
		b, has := g.Peer(PortRef{Node: gid, Port: p})
		if had != has || had && (f.GUID(a.Node) != g.GUID(b.Node) || a.Port != b.Port) {
			return false
		}
	}
	return true
}

// Peer returns the port at the other end of the cable in port p.
func (f *Fabric) Peer(p PortRef) (PortRef, bool) {
	i, ok := f.LinkAt(p)
	if !ok {
		return PortRef{}, false
	}
	l := f.links[i]
	if l.A == p {
		return l.B, true
	}
	return l.A, true
}

// IDsOf returns the ids of all nodes of kind k, in NodeID order.
func (f *Fabric) IDsOf(k Kind) []NodeID {
	var out []NodeID
	for i := range f.nodes {
		if f.nodes[i].Kind == k {
			out = append(out, NodeID(i))
		}
	}
	return out
}
