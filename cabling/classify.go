package cabling

import (
	"slimroute/fabric"
)

// portGraph puts the plan and the discovery on one set of ports: the ports
// of every plan node (identified or not), then the ports of discovered nodes
// the plan does not have ("foreign" nodes). Each port has at most one
// planned peer and at most one found peer. A port whose two peers agree is
// as planned (or unused); every other port is part of a difference: the
// planned and found cables that are not where they should be form paths and
// cycles, each port on exactly one of them.
//
// Cables that touch an ambiguous node (see identity) are left out of both
// cablings: nothing is claimed about them beyond the ambiguous finding.
// Nor about the ports planned to an ambiguous node and the cables found
// in them (frozenPorts), nor about a port whose cable goes into an
// ambiguous node: its planned cable cannot be plugged without unplugging
// that one.
type portGraph struct {
	plan, found *fabric.Fabric
	id          *identity
	cutOff      bool // the discovery could not leave its first switch (cutOff in verify.go)
	nPlan       int
	foreign     []fabric.NodeID // per node key ≥ nPlan: the discovered node
	foreignKey  []int           // per discovered node: its node key if foreign, else -1
	base        []int32         // per node key: index of its port 0; one more entry at the end
	planned     []int32         // per port: planned peer, or -1
	cabled      []int32         // per port: found peer, or -1
	planLink    []int32         // per port: index into planLinks, or -1
	foundLink   []int32         // per port: index into foundLinks, or -1
	planLinks   []fabric.Link
	foundLinks  []fabric.Link
	asPlanned   int
	degraded    [][2]int32 // as-planned cables that train slower than planned
	// plainRepairs counts differences whose planned steps failed their
	// check (see repair); tests require zero.
	plainRepairs int
}

func newPortGraph(plan, found *fabric.Fabric, id *identity) *portGraph {
	g := &portGraph{plan: plan, found: found, id: id, nPlan: plan.NumNodes(),
		planLinks: plan.Links(), foundLinks: found.Links()}
	g.layOut()
	frozen := g.frozenPorts()
	for _, l := range g.foundLinks { // a cable into an ambiguous node
		a, okA := g.foundPort(l.A)
		b, okB := g.foundPort(l.B)
		if okA && !okB {
			frozen[a] = true
		}
		if okB && !okA {
			frozen[b] = true
		}
	}
	for i, l := range g.foundLinks {
		a, okA := g.foundPort(l.A)
		b, okB := g.foundPort(l.B)
		switch {
		case !okA || !okB:
		case frozen[a] || frozen[b]:
			frozen[a], frozen[b] = true, true
		default:
			g.join(g.cabled, g.foundLink, a, b, i)
		}
	}
	for i, l := range g.planLinks {
		a, b := g.planPort(l.A), g.planPort(l.B)
		if id.ambiguousPlan[l.A.Node] || id.ambiguousPlan[l.B.Node] || frozen[a] || frozen[b] {
			continue
		}
		g.join(g.planned, g.planLink, a, b, i)
	}
	for p := range g.planned {
		q := g.planned[p]
		if q <= int32(p) || g.cabled[p] != q {
			continue
		}
		if g.slower(g.foundLink[p], g.planLink[p]) {
			g.degraded = append(g.degraded, [2]int32{int32(p), q})
		} else {
			g.asPlanned++
		}
	}
	return g
}

// frozenPorts marks the ports planned to an ambiguous node: which port
// of the candidates their cable belongs in is unknown, so nothing is
// claimed about them. newPortGraph freezes the far ends of the cables
// found in them as well (their planned cables are left out too): the
// cable that holds such a port cannot be moved without touching it.
func (g *portGraph) frozenPorts() []bool {
	frozen := make([]bool, len(g.planned))
	for _, l := range g.planLinks {
		a, b := g.id.ambiguousPlan[l.A.Node], g.id.ambiguousPlan[l.B.Node]
		if a && !b {
			frozen[g.planPort(l.B)] = true
		}
		if b && !a {
			frozen[g.planPort(l.A)] = true
		}
	}
	return frozen
}

// layOut numbers the ports: a plan node gets as many as the plan or its
// discovered node has, whichever is more; foreign nodes follow.
func (g *portGraph) layOut() {
	g.foreignKey = make([]int, g.found.NumNodes())
	for d := range g.found.NumNodes() {
		g.foreignKey[d] = -1
		if g.id.toPlan[d] < 0 && !g.id.ambiguousFound[d] {
			g.foreignKey[d] = g.nPlan + len(g.foreign)
			g.foreign = append(g.foreign, fabric.NodeID(d))
		}
	}
	foundPorts := make([]int, g.found.NumNodes())
	for d, n := range g.found.Nodes() {
		foundPorts[d] = n.Ports
	}
	n := int32(0)
	for p, pn := range g.plan.Nodes() {
		g.base = append(g.base, n)
		ports := pn.Ports
		if d := g.id.toFound[p]; d >= 0 {
			ports = max(ports, foundPorts[d])
		}
		n += int32(ports) + 1
	}
	for _, d := range g.foreign {
		g.base = append(g.base, n)
		n += int32(foundPorts[d]) + 1
	}
	g.base = append(g.base, n)
	g.planned, g.cabled = fill32(n), fill32(n)
	g.planLink, g.foundLink = fill32(n), fill32(n)
}

func fill32(n int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

func (g *portGraph) join(peer, link []int32, a, b int32, i int) {
	if a < 0 || b < 0 || peer[a] >= 0 || peer[b] >= 0 {
		return // a validated fabric cables a port once; be safe anyway
	}
	peer[a], peer[b] = b, a
	link[a], link[b] = int32(i), int32(i)
}

func (g *portGraph) planPort(p fabric.PortRef) int32 {
	return g.index(int(p.Node), p.Port)
}

// foundPort maps a discovered port to the graph; false for the ports of
// ambiguous nodes.
func (g *portGraph) foundPort(p fabric.PortRef) (int32, bool) {
	if k := g.id.toPlan[p.Node]; k >= 0 {
		return g.index(int(k), p.Port), true
	}
	if k := g.foreignKey[p.Node]; k >= 0 {
		return g.index(k, p.Port), true
	}
	return -1, false // an ambiguous node
}

func (g *portGraph) index(key, port int) int32 {
	i := g.base[key] + int32(port)
	if port < 0 || i >= g.base[key+1] {
		return -1
	}
	return i
}

// node returns the node key and port number of port i.
func (g *portGraph) node(i int32) (int, int) {
	lo, hi := 0, len(g.base)-1 // base is ascending: find the last base ≤ i
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if g.base[mid] <= i {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, int(i - g.base[lo])
}

// slower reports whether found link f trains below planned link p's width or
// speed (where both are known).
func (g *portGraph) slower(f, p int32) bool {
	if f < 0 || p < 0 {
		return false
	}
	fl, pl := g.foundLinks[f], g.planLinks[p]
	return (fl.Width != 0 && pl.Width != 0 && fl.Width < pl.Width) || (fl.Speed != 0 && pl.Speed != 0 && fl.Speed < pl.Speed)
}

// differs reports whether port i is not as planned (its peers disagree).
func (g *portGraph) differs(i int32) bool { return g.planned[i] != g.cabled[i] }

// difference is one path or cycle of ports whose planned and found cables
// disagree. Along ports, the edges alternate between found and planned
// cables; found[k] tells which kind joins ports[k] and ports[k+1] (for a
// cycle, the last edge closes it).
type difference struct {
	ports []int32
	found []bool
	cycle bool
}

// differences lists every difference once, in port order of its first port.
func (g *portGraph) differences() []difference {
	seen := make([]bool, len(g.planned))
	var out []difference
	for i := range g.planned {
		p := int32(i)
		if seen[p] || !g.differs(p) {
			continue
		}
		d := g.walk(p)
		for _, q := range d.ports {
			seen[q] = true
		}
		out = append(out, d)
	}
	return out
}

// Edges of a difference are found cables or planned ones; a walk never
// leaves a port by the kind of edge it arrived on.
const (
	viaNone = iota
	viaFound
	viaPlanned
)

// walk follows the alternating edges from p to one end (or once round a
// cycle), then collects the difference from that end.
func (g *portGraph) walk(p int32) difference {
	x, via := p, viaNone
	for {
		next, how := g.step(x, via)
		if next < 0 {
			return g.collect(x, false)
		}
		if next == p {
			return g.collect(p, true)
		}
		x, via = next, how
	}
}

// step leaves port x by the edge it did not arrive on, by its found cable
// when both are open.
func (g *portGraph) step(x int32, via int) (int32, int) {
	if via != viaFound && g.cabled[x] >= 0 {
		return g.cabled[x], viaFound
	}
	if via != viaPlanned && g.planned[x] >= 0 {
		return g.planned[x], viaPlanned
	}
	return -1, via
}

func (g *portGraph) collect(start int32, cycle bool) difference {
	d := difference{cycle: cycle}
	x, via := start, viaNone
	for {
		d.ports = append(d.ports, x)
		next, how := g.step(x, via)
		if next < 0 {
			return d
		}
		d.found = append(d.found, how == viaFound)
		if cycle && next == start {
			return d
		}
		x, via = next, how
	}
}
