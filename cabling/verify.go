package cabling

import (
	"fmt"
	"sort"
	"strings"

	"slimroute/fabric"
)

// Finding kinds.
const (
	MissingRack   = "missing-rack"   // every switch of a rack is absent
	MissingSwitch = "missing-switch" // a planned switch is absent
	Missing       = "missing"        // a planned cable is absent
	Extra         = "extra"          // a cable the plan does not have
	WrongPort     = "wrong-port"     // a cable on the right switch, wrong port
	Swap          = "swap"           // two cables exchanged on one switch
	WrongSwitch   = "wrong-switch"   // a cable's far end on another switch
	UnknownNode   = "unknown-node"   // a cable to a node the plan does not know
	Degraded      = "degraded"       // a cable at lower width or speed than planned
)

// Finding is one wiring problem with what to do about it.
type Finding struct {
	Kind        string `json:"kind"`
	Rack        int    `json:"rack"`
	Node        string `json:"node"`
	Port        int    `json:"port,omitempty"`
	Instruction string `json:"instruction"`
}

// Report is the result of Verify.
type Report struct {
	// Matched counts planned nodes found in the discovered fabric, and how
	// (by description, GUID, or attached hosts).
	Matched   int            `json:"matched"`
	MatchedBy map[string]int `json:"matched_by"`
	Planned   int            `json:"planned_cables"`
	OK        int            `json:"cables_ok"`
	Findings  []Finding      `json:"findings"`
}

// Clean reports whether the fabric is cabled as planned.
func (r *Report) Clean() bool { return len(r.Findings) == 0 }

type port struct {
	node fabric.NodeID // in the plan
	num  int
}

// Verify compares a discovered fabric with the planned one. Discovered
// nodes are matched to planned ones by node description, then by node
// GUID, then — for switches still carrying factory descriptions — by the
// planned switch most of their attached HCAs belong to.
func Verify(plan, found *fabric.Fabric) *Report {
	rep := &Report{MatchedBy: map[string]int{}}
	toPlan := match(plan, found, rep)
	present := map[fabric.NodeID]bool{}
	for _, p := range toPlan {
		present[p] = true
	}
	rep.Matched = len(present)

	// discovered peers in plan terms; -1 node: unknown
	type peer struct {
		p       port
		unknown string
		w       fabric.Width
		s       fabric.Speed
	}
	disc := map[port]peer{}
	for _, l := range found.Links() {
		ends := [2]fabric.PortRef{l.A, l.B}
		for i, e := range ends {
			o := ends[1-i]
			pe, ok := toPlan[e.Node]
			if !ok {
				continue
			}
			var pr peer
			if po, ok := toPlan[o.Node]; ok {
				pr.p = port{po, o.Port}
			} else {
				pr.p = port{-1, o.Port}
				n := found.Node(o.Node)
				pr.unknown = fmt.Sprintf("%s (%s)", n.Name, n.GUID)
			}
			pr.w, pr.s = l.Width, l.Speed
			disc[port{pe, e.Port}] = pr
		}
	}
	planned := map[port]port{}
	for _, l := range plan.Links() {
		a, b := port{l.A.Node, l.A.Port}, port{l.B.Node, l.B.Port}
		planned[a], planned[b] = b, a
	}
	rep.Planned = len(plan.Links())
	name := func(p port) string { return plan.Node(p.node).Name }
	rack := func(p port) int { return plan.Node(p.node).Place.Rack }
	where := func(p port) string {
		if r := rack(p); r > 0 {
			return fmt.Sprintf("rack %d, %s port %d", r, name(p), p.num)
		}
		return fmt.Sprintf("%s port %d", name(p), p.num)
	}
	add := func(kind string, at port, format string, args ...any) {
		rep.Findings = append(rep.Findings, Finding{Kind: kind, Rack: rack(at), Node: name(at), Port: at.num, Instruction: fmt.Sprintf(format, args...)})
	}

	// absent switches (and whole racks) are one finding each
	absentByRack := map[int][]string{}
	switchesByRack := map[int]int{}
	for _, id := range plan.IDsOf(fabric.Switch) {
		r := plan.Node(id).Place.Rack
		switchesByRack[r]++
		if !present[id] {
			absentByRack[r] = append(absentByRack[r], plan.Node(id).Name)
		}
	}
	racks := make([]int, 0, len(absentByRack))
	for r := range absentByRack {
		racks = append(racks, r)
	}
	sort.Ints(racks)
	for _, r := range racks {
		names := absentByRack[r]
		if len(names) == switchesByRack[r] && r > 0 {
			rep.Findings = append(rep.Findings, Finding{Kind: MissingRack, Rack: r, Instruction: fmt.Sprintf("rack %d: none of its %d switches answers; power it up and cable it (%s)", r, len(names), strings.Join(names, ", "))})
			continue
		}
		for _, n := range names {
			rep.Findings = append(rep.Findings, Finding{Kind: MissingSwitch, Rack: r, Node: n, Instruction: fmt.Sprintf("rack %d, %s: not found; check its power and its cables", r, n)})
		}
	}

	done := map[port]bool{}
	// ports of planned cables, in a stable order
	var ends []port
	for p := range planned {
		ends = append(ends, p)
	}
	sortPorts(ends)
	for _, x := range ends {
		y := planned[x]
		if done[x] || !present[x.node] || !present[y.node] {
			continue
		}
		dx, okx := disc[x]
		dy, oky := disc[y]
		if okx && dx.p == y {
			done[x], done[y] = true, true
			rep.OK++
			if l := linkOf(plan, x); l != nil && ((l.Width != 0 && dx.w != 0 && dx.w < l.Width) || (l.Speed != 0 && dx.s != 0 && dx.s < l.Speed)) {
				add(Degraded, x, "%s: the cable to %s runs at %s, planned %s; reseat or replace it", where(x), name(y), fabric.Rate(dx.w, dx.s), fabric.Rate(l.Width, l.Speed))
			}
			continue
		}
		// two cables exchanged on x's node
		if okx && dx.p.node >= 0 {
			for x2, y2 := range planned {
				if x2.node != x.node || x2 == x || done[x2] {
					continue
				}
				if d2, ok := disc[x2]; ok && d2.p == y && dx.p == y2 {
					add(Swap, x, "%s and port %d: the two cables are swapped; exchange them (port %d goes to %s, port %d to %s)",
						where(x), x2.num, x.num, endName(plan, y), x2.num, endName(plan, y2))
					done[x], done[y], done[x2], done[y2] = true, true, true, true
					break
				}
			}
			if done[x] {
				continue
			}
		}
		switch {
		case !okx && oky && dy.p.node == x.node:
			// the cable reached the right switch on the wrong port
			add(WrongPort, x, "%s: the cable to %s is in port %d; move it to port %d", where(port{x.node, dy.p.num}), endName(plan, y), dy.p.num, x.num)
			done[x], done[y], done[port{x.node, dy.p.num}] = true, true, true
		case !okx && oky && dy.p.node >= 0:
			at := dy.p
			add(WrongSwitch, at, "%s: the cable from %s belongs in %s; move it there", where(at), endName(plan, y), where(x))
			done[x], done[y], done[at] = true, true, true
		case okx && !oky && dx.p.node == y.node:
			add(WrongPort, y, "%s: the cable to %s is in port %d; move it to port %d", where(port{y.node, dx.p.num}), endName(plan, x), dx.p.num, y.num)
			done[x], done[y], done[port{y.node, dx.p.num}] = true, true, true
		case okx && !oky && dx.p.node >= 0:
			at := dx.p
			add(WrongSwitch, at, "%s: the cable from %s belongs in %s; move it there", where(at), endName(plan, x), where(y))
			done[x], done[y], done[at] = true, true, true
		case !okx && !oky:
			add(Missing, x, "%s: connect a cable to %s", where(x), endName(plan, y))
			done[x], done[y] = true, true
		}
	}
	// what is left in the discovered fabric: extra cables and unknown nodes
	var left []port
	for p := range disc {
		if !done[p] {
			left = append(left, p)
		}
	}
	sortPorts(left)
	for _, p := range left {
		d := disc[p]
		if done[p] {
			continue
		}
		if d.p.node < 0 {
			add(UnknownNode, p, "%s: cabled to %s port %d, which is not in the plan; remove it or update the plan", where(p), d.unknown, d.p.num)
			done[p] = true
			continue
		}
		if _, planned := planned[p]; planned && !done[d.p] {
			continue // explained from the other end
		}
		add(Extra, p, "%s: remove the cable to %s", where(p), endName(plan, d.p))
		done[p], done[d.p] = true, true
	}
	sort.SliceStable(rep.Findings, func(i, j int) bool {
		a, b := rep.Findings[i], rep.Findings[j]
		if a.Rack != b.Rack {
			return a.Rack < b.Rack
		}
		if a.Node != b.Node {
			return a.Node < b.Node
		}
		return a.Port < b.Port
	})
	return rep
}

// sortPorts orders ports by node, then port number.
func sortPorts(ps []port) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].node != ps[j].node {
			return ps[i].node < ps[j].node
		}
		return ps[i].num < ps[j].num
	})
}

func endName(f *fabric.Fabric, p port) string {
	return fmt.Sprintf("%s port %d", f.Node(p.node).Name, p.num)
}

func linkOf(f *fabric.Fabric, p port) *fabric.Link {
	i, ok := f.LinkAt(fabric.PortRef{Node: p.node, Port: p.num})
	if !ok {
		return nil
	}
	l := f.Link(i)
	return &l
}

// match maps discovered nodes to planned ones.
func match(plan, found *fabric.Fabric, rep *Report) map[fabric.NodeID]fabric.NodeID {
	toPlan := map[fabric.NodeID]fabric.NodeID{}
	used := map[fabric.NodeID]bool{}
	set := func(d, p fabric.NodeID, how string) {
		if used[p] || plan.Node(p).Kind != found.Node(d).Kind {
			return
		}
		toPlan[d], used[p] = p, true
		rep.MatchedBy[how]++
	}
	for i := range found.Nodes() {
		d := fabric.NodeID(i)
		if p, ok := plan.NodeByName(found.Node(d).Name); ok {
			set(d, p, "description")
		}
	}
	for i := range found.Nodes() {
		d := fabric.NodeID(i)
		if _, ok := toPlan[d]; ok || found.Node(d).GUID == 0 {
			continue
		}
		if p, ok := plan.NodeByGUID(found.Node(d).GUID); ok {
			set(d, p, "guid")
		}
	}
	// switches by their hosts: the planned switch most of whose HCAs are
	// attached to this one
	for i := range found.Nodes() {
		d := fabric.NodeID(i)
		if _, ok := toPlan[d]; ok || found.Node(d).Kind != fabric.Switch {
			continue
		}
		votes := map[fabric.NodeID]int{}
		for p := 1; p <= found.Node(d).Ports; p++ {
			peer, ok := found.Peer(fabric.PortRef{Node: d, Port: p})
			if !ok {
				continue
			}
			ph, ok := toPlan[peer.Node]
			if !ok || plan.Node(ph).Kind != fabric.HCA {
				continue
			}
			if sw, ok := plan.Peer(fabric.PortRef{Node: ph, Port: peer.Port}); ok {
				votes[sw.Node]++
			}
		}
		best, n := fabric.NodeID(-1), 0
		for sw, v := range votes {
			if v > n || (v == n && sw < best) {
				best, n = sw, v
			}
		}
		if n > 0 {
			set(d, best, "hosts")
		}
	}
	return toPlan
}
