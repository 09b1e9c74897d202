package cabling

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"slimroute/fabric"
)

// findings turns the classification into findings: one per difference,
// except that the differences touching an absent node go into that node's
// finding (or its rack's); one per degraded cable; one per ambiguity.
func (g *portGraph) findings() []Finding {
	groups, groupOf := g.absentGroups()
	var out []Finding
	for _, d := range g.differences() {
		steps := g.repair(d)
		if grp := g.absentGroupOf(d, groups, groupOf); grp != nil {
			grp.diffs = append(grp.diffs, d)
			grp.steps = append(grp.steps, steps...)
			continue
		}
		out = append(out, g.differenceFinding(d, steps))
	}
	for _, grp := range groups {
		out = append(out, g.absentFinding(grp))
	}
	for _, c := range g.degraded {
		s := []step{{OpReplace, c[0], c[1]}}
		out = append(out, g.finding(Degraded, c[0], s, numbered(g.texts(s)), c[:]))
	}
	for _, a := range g.id.groups {
		out = append(out, g.ambiguousFinding(a))
	}
	return append(out, g.misnamedFindings()...)
}

// misnamedFindings reports the planned nodes identified by their cables
// (not by description or GUID) whose discovered node description is the
// name of another planned node: the device in X's place says it is Y. Found by its
// cables it is cabled as X, but it may be Y's device in the wrong place,
// or X's with a wrong description — either way the plan and the fabric
// disagree, and the checker cannot call the fabric clean. (A description
// the plan does not know — a host name, a factory description — is no
// contradiction: that is how replaced devices are found.)
func (g *portGraph) misnamedFindings() []Finding {
	var out []Finding
	named := g.hostsNamed()
	for p := range g.nPlan {
		d := g.id.toFound[p]
		if m := g.id.method[p]; d < 0 || m == ByDescription || m == ByGUID {
			continue // by GUID it is the planned device: a wrong description is no wiring fault
		}
		n := g.found.Node(d)
		// a description several discovered nodes share carries their GUID
		// (fabric's uniqueNames): it is still the description
		desc := strings.TrimSuffix(n.Name, fmt.Sprintf(" (%s)", n.GUID))
		q, ok := describedAs(g.plan, fabric.Node{Kind: n.Kind, Name: desc})
		if !ok && named && n.Kind == fabric.HCA {
			out = append(out, g.unconfirmedFinding(fabric.NodeID(p), n, desc))
			continue
		}
		if !ok || int(q) == p {
			continue
		}
		instr := fmt.Sprintf("the device cabled as %s (GUID %s, found by %s) calls itself %q, another planned %s: "+
			"if it is %s, set its node description to %q (or map its GUID with --node-name-map); if it is %s, it is in %s's place",
			g.name(p), n.GUID, methodWords(g.id.method[p]), desc, g.plan.Node(q).Kind,
			g.name(p), g.name(p), desc, g.name(p))
		f := Finding{Kind: Misnamed, Rack: g.rack(p), Node: g.name(p), Nodes: appendNames(nil, g.name(p), desc), Instruction: instr, Actions: []Action{}}
		out = append(out, f)
	}
	return out
}

// hostsNamed reports whether the discovery names its hosts as the plan
// does: at least as many planned HCAs were identified by description or
// GUID as by their cable alone. Then a host found only by its cable is
// suspect (unconfirmedFinding); otherwise every host is (its description
// a host name, its GUID unknown to the plan), and a stranger in a host's
// port cannot be told from the host.
func (g *portGraph) hostsNamed() bool {
	named, cabled := 0, 0
	for p := range g.nPlan {
		if g.plan.Node(fabric.NodeID(p)).Kind != fabric.HCA || g.id.toFound[p] < 0 {
			continue
		}
		if m := g.id.method[p]; m == ByDescription || m == ByGUID {
			named++
		} else {
			cabled++
		}
	}
	return named > 0 && named >= cabled
}

// unconfirmedFinding reports planned host p, found only by its cable as
// the discovered node n with description desc, in a discovery whose other
// hosts carry their planned names or GUIDs: it may be p renamed or with a
// new adapter, or another host in p's port.
func (g *portGraph) unconfirmedFinding(p fabric.NodeID, n fabric.Node, desc string) Finding {
	name := g.name(int(p))
	instr := fmt.Sprintf("%s was not found by name or GUID; the device cabled in its place calls itself %q (GUID %s), while the other hosts carry their planned names or GUIDs: "+
		"if it is %s (renamed, or with a new adapter), set its node description to %q or map GUID %s to it with --node-name-map; otherwise it is a host the plan does not have — unplug it and cable %s there",
		g.placeName(int(p)), desc, n.GUID, name, name, n.GUID, name)
	return Finding{Kind: Unconfirmed, Rack: g.rack(int(p)), Node: name, Nodes: appendNames(nil, name, desc), Instruction: instr, Actions: []Action{}}
}

// seen reports whether port p is on a discovered node.
func (g *portGraph) seen(p int32) bool {
	k, _ := g.node(p)
	return k >= g.nPlan || g.id.toFound[k] >= 0
}

// absentGroup is the absent nodes one finding reports: a switch with the
// HCAs that hang on it only, a whole rack, or an HCA.
type absentGroup struct {
	kind  string
	rack  int
	nodes []fabric.NodeID
	diffs []difference
	steps []step
}

// absentGroups groups the plan nodes not found in the discovery (ambiguous
// candidates aside). It returns the groups and each plan node's group (-1).
func (g *portGraph) absentGroups() ([]*absentGroup, []int) {
	absent := func(p fabric.NodeID) bool { return g.id.toFound[p] < 0 && !g.id.ambiguousPlan[p] }
	switches, gone := map[int]int{}, map[int]int{}
	for _, s := range g.plan.IDsOf(fabric.Switch) {
		r := g.rack(int(s))
		switches[r]++
		if absent(s) {
			gone[r]++
		}
	}
	var groups []*absentGroup
	groupOf := make([]int, g.nPlan)
	for i := range groupOf {
		groupOf[i] = -1
	}
	join := func(gi int, n fabric.NodeID) {
		groups[gi].nodes = append(groups[gi].nodes, n)
		groupOf[n] = gi
	}
	open := func(kind string, rack int) int {
		groups = append(groups, &absentGroup{kind: kind, rack: rack})
		return len(groups) - 1
	}
	rackGroup := map[int]int{}
	for _, s := range g.plan.IDsOf(fabric.Switch) {
		if !absent(s) {
			continue
		}
		r := g.rack(int(s))
		if r <= 0 || gone[r] < switches[r] {
			join(open(MissingSwitch, r), s)
			continue
		}
		gi, ok := rackGroup[r]
		if !ok {
			gi = open(MissingRack, r)
			rackGroup[r] = gi
		}
		join(gi, s)
	}
	for _, h := range g.plan.IDsOf(fabric.HCA) {
		if !absent(h) {
			continue
		}
		gi := -1
		for p := 1; p <= g.plan.Node(h).Ports && gi < 0; p++ {
			if far, ok := g.plan.Peer(fabric.PortRef{Node: h, Port: p}); ok {
				gi = groupOf[far.Node]
			}
		}
		if gi < 0 {
			if rg, ok := rackGroup[g.rack(int(h))]; ok {
				gi = rg
			} else {
				gi = open(MissingHCA, g.rack(int(h)))
			}
		}
		join(gi, h)
	}
	return groups, groupOf
}

// absentGroupOf returns the group of the first absent node d touches.
func (g *portGraph) absentGroupOf(d difference, groups []*absentGroup, groupOf []int) *absentGroup {
	for _, p := range d.ports {
		if k, _ := g.node(p); k < g.nPlan && groupOf[k] >= 0 {
			return groups[groupOf[k]]
		}
	}
	return nil
}

// differenceFinding reports one difference that touches no absent node.
func (g *portGraph) differenceFinding(d difference, steps []step) Finding {
	kind, lead := Move, ""
	ops := map[string]int{}
	for _, s := range steps {
		ops[s.op]++
	}
	foreign := false
	for _, p := range d.ports {
		foreign = foreign || g.isForeign(p)
	}
	switch {
	case foreign:
		kind = UnknownNode
	case d.cycle:
		kind = Exchange
		if k := len(d.ports) / 2; k > 2 {
			lead = fmt.Sprintf("%d plugs are rotated, each in the port of the next; ", k)
			if len(steps) > 0 {
				if n, _ := g.node(steps[0].a); n < g.nPlan {
					lead = g.placeName(n) + ": " + lead
				}
			}
		}
	case ops[OpConnect]+ops[OpReplace] == len(steps):
		kind = Missing
	case ops[OpRemove]+ops[OpReplace] == len(steps):
		kind = Extra
	}
	first := d.ports[0]
	if len(steps) > 0 {
		first = steps[0].a
		if g.isForeign(first) {
			first = steps[0].b
		}
	}
	return g.finding(kind, first, steps, prefix(lead, g.texts(steps, d)), d.ports)
}

func (g *portGraph) absentFinding(grp *absentGroup) Finding {
	first := grp.nodes[0]
	name := g.name(int(first))
	var lead string
	switch grp.kind {
	case MissingRack:
		var sw []string
		for _, n := range grp.nodes {
			if g.plan.Node(n).Kind == fabric.Switch {
				sw = append(sw, g.name(int(n)))
			}
		}
		lead = fmt.Sprintf("rack %d: none of its %d switches answers (%s); power them up and check their cables", grp.rack, len(sw), strings.Join(sw, ", "))
		if len(sw) == 1 {
			lead = fmt.Sprintf("rack %d: its switch %s does not answer; power it up and check its cables", grp.rack, sw[0])
		}
	case MissingSwitch:
		lead = fmt.Sprintf("%s: not found; check its power and its cables", g.placeName(int(first)))
	default:
		lead = fmt.Sprintf("%s: not found (its cable is out, or the host is down)", g.placeName(int(first)))
	}
	if n := len(grp.nodes); n > 1 && grp.kind != MissingRack {
		var rest []string
		for _, x := range grp.nodes[1:] {
			rest = append(rest, g.name(int(x)))
		}
		lead += fmt.Sprintf(" (also not found: %s)", strings.Join(rest, ", "))
	}
	if g.cutOff {
		// beyond where the discovery stopped, a cable between two unseen
		// ports may well be plugged: only steps on a seen port are sure
		grp.steps = slices.DeleteFunc(grp.steps, func(s step) bool { return !g.seen(s.a) && !g.seen(s.b) })
	}
	texts := g.texts(grp.steps, grp.diffs...)
	instr := lead
	if len(texts) > 0 {
		instr = lead + "; " + numbered(texts)
	}
	var ports []int32
	for _, d := range grp.diffs {
		ports = append(ports, d.ports...)
	}
	f := g.finding(grp.kind, -1, grp.steps, instr, ports)
	f.Rack, f.Node, f.Port = grp.rack, name, 0
	f.Nodes = appendNames(nil, g.nodeNames(grp.nodes)...)
	f.Nodes = appendNames(f.Nodes, g.portNodeNames(ports)...)
	return f
}

func (g *portGraph) ambiguousFinding(a ambiguity) Finding {
	// discovered nodes in GUID order, not discovery order, so that the
	// report does not depend on the order ibnetdiscover met them in
	a.found = append([]fabric.NodeID(nil), a.found...)
	sort.Slice(a.found, func(i, j int) bool {
		x, y := g.found.Node(a.found[i]), g.found.Node(a.found[j])
		if x.GUID != y.GUID {
			return x.GUID < y.GUID
		}
		return x.Name < y.Name
	})
	var cands, found []string
	for _, p := range a.plan {
		cands = append(cands, g.name(int(p)))
	}
	what := "nodes"
	for _, d := range a.found {
		n := g.found.Node(d)
		found = append(found, fmt.Sprintf("%q (GUID %s)", n.Name, n.GUID))
		if n.Kind == fabric.Switch {
			what = "switches"
		}
	}
	instr := fmt.Sprintf("cannot tell which of the planned %s %s the discovered %s %s: their cables fit more than one equally well, so none of their cables is checked; "+
		"set their node descriptions to the planned names (or map their GUIDs with --node-name-map) and verify again",
		what, strings.Join(cands, ", "), plural(len(found), "node", what), strings.Join(found, ", "))
	if len(found) > 1 {
		instr = strings.Replace(instr, "the discovered", "the discovered "+fmt.Sprint(len(found)), 1)
	}
	f := Finding{Kind: Ambiguous, Nodes: appendNames(nil, cands...), Instruction: instr, Actions: []Action{}}
	if len(a.plan) > 0 {
		f.Rack, f.Node = g.rack(int(a.plan[0])), cands[0]
	}
	for _, d := range a.found {
		f.Nodes = appendNames(f.Nodes, g.found.Node(d).Name)
	}
	f.Candidates = append([]string(nil), f.Nodes...)
	return g.nameNeighbours(f, a)
}

// nameNeighbours adds to an ambiguous finding the identified nodes whose
// cables to or from the group are not as planned whichever way the group is
// resolved: a port planned to a candidate that holds no cable from the
// group's discovered nodes on that port number, or a port cabled to one of
// them that the plan does not give a candidate on that port number, and
// the node planned to such a port (its cable has nowhere to go), and a
// node holding the plug of a cable planned to a candidate. It
// adds every host planned to a candidate too: which of the group's
// devices should hold its cable is what cannot be told, so its cable goes
// unchecked.
func (g *portGraph) nameNeighbours(f Finding, a ambiguity) Finding {
	inPlan, inFound := map[fabric.NodeID]bool{}, map[fabric.NodeID]bool{}
	for _, p := range a.plan {
		inPlan[p] = true
	}
	for _, d := range a.found {
		inFound[d] = true
	}
	var touched []string
	for _, x := range a.plan {
		for p := 1; p <= g.plan.Node(x).Ports; p++ {
			y, ok := g.plan.Peer(fabric.PortRef{Node: x, Port: p})
			if !ok || inPlan[y.Node] || g.id.toFound[y.Node] < 0 {
				continue
			}
			z, ok := g.found.Peer(fabric.PortRef{Node: g.id.toFound[y.Node], Port: y.Port})
			if !ok || !inFound[z.Node] || z.Port != p || g.plan.Node(y.Node).Kind == fabric.HCA {
				touched = append(touched, g.name(int(y.Node)))
			}
			if ok && !inFound[z.Node] && g.id.toPlan[z.Node] >= 0 {
				// z holds the plug of a cable planned to the group, so
				// it is left alone with it (frozenPorts)
				touched = append(touched, g.name(int(g.id.toPlan[z.Node])))
			}
		}
	}
	for _, d := range a.found {
		for p := 1; p <= g.found.Node(d).Ports; p++ {
			e, ok := g.found.Peer(fabric.PortRef{Node: d, Port: p})
			if !ok || inFound[e.Node] || g.id.toPlan[e.Node] < 0 {
				continue
			}
			y := g.id.toPlan[e.Node]
			x, ok := g.plan.Peer(fabric.PortRef{Node: y, Port: e.Port})
			if !ok || !inPlan[x.Node] || x.Port != p {
				touched = append(touched, g.name(int(y)))
			}
			if ok && !inPlan[x.Node] {
				// e holds a cable into the group, so the port planned to
				// it cannot have its own (classify.go leaves both alone)
				touched = append(touched, g.name(int(x.Node)))
			}
		}
	}
	f.Nodes = appendNames(f.Nodes, touched...)
	return f
}

// finding fills in a finding's place (from port at, if ≥ 0), actions and
// the nodes of ports.
func (g *portGraph) finding(kind string, at int32, steps []step, instr string, ports []int32) Finding {
	f := Finding{Kind: kind, Instruction: instr, Actions: []Action{}, Nodes: appendNames(nil, g.portNodeNames(ports)...)}
	if at >= 0 {
		if k, p := g.node(at); k < g.nPlan {
			f.Rack, f.Node, f.Port = g.rack(k), g.name(k), p
		}
	}
	for _, s := range steps {
		f.Actions = append(f.Actions, Action{Op: s.op, A: g.end(s.a), B: g.end(s.b)})
	}
	return f
}

func (g *portGraph) end(p int32) End {
	k, port := g.node(p)
	e := End{Node: g.name(k), Port: port}
	if k >= g.nPlan {
		e.GUID = g.found.Node(g.foreign[k-g.nPlan]).GUID.String()
	}
	return e
}

func (g *portGraph) nodeNames(ns []fabric.NodeID) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = g.name(int(n))
	}
	return out
}

func (g *portGraph) portNodeNames(ports []int32) []string {
	var out []string
	for _, p := range ports {
		k, _ := g.node(p)
		out = append(out, g.name(k))
	}
	return out
}

// appendNames appends the names not yet in list.
func appendNames(list []string, names ...string) []string {
	if list == nil {
		list = []string{}
	}
	for _, n := range names {
		dup := false
		for _, m := range list {
			dup = dup || m == n
		}
		if !dup {
			list = append(list, n)
		}
	}
	return list
}

// name is the plan name of a node key, or a foreign node's description.
func (g *portGraph) name(k int) string {
	if k < g.nPlan {
		return g.plan.Node(fabric.NodeID(k)).Name
	}
	return g.found.Node(g.foreign[k-g.nPlan]).Name
}

func (g *portGraph) rack(k int) int {
	if k < g.nPlan {
		return g.plan.Node(fabric.NodeID(k)).Place.Rack
	}
	return 0
}

// placeName is "rack R, NAME", or NAME for a node without a rack; a foreign
// node, and a planned switch identified by its cables, are named with
// their GUID.
func (g *portGraph) placeName(k int) string {
	if k >= g.nPlan {
		return fmt.Sprintf("%s (GUID %s, not in the plan)", g.name(k), g.found.Node(g.foreign[k-g.nPlan]).GUID)
	}
	if r := g.rack(k); r > 0 {
		return fmt.Sprintf("rack %d, %s", r, g.label(k))
	}
	return g.label(k)
}

// label is plan node k's name, with the GUID of the device found in its
// place when that was not found by its description.
func (g *portGraph) label(k int) string {
	name := g.name(k)
	if d := g.id.toFound[k]; d >= 0 && g.plan.Node(fabric.NodeID(k)).Kind == fabric.Switch && g.id.method[k] != ByDescription {
		// not found by its description: the installer finds it by its
		// GUID, not by a label or rack position that may say otherwise
		found := g.found.Node(d)
		if p, ok := g.plan.NodeByName(found.Name); ok && int(p) != k {
			name = fmt.Sprintf("%s (the switch with GUID %s, which calls itself %s)", name, found.GUID, found.Name)
		} else {
			name = fmt.Sprintf("%s (the switch with GUID %s)", name, found.GUID)
		}
	}
	return name
}

// where names port p with its rack: "rack 3, sw-0-2-4 port 6".
func (g *portGraph) where(p int32) string {
	k, port := g.node(p)
	return fmt.Sprintf("%s port %d", g.placeName(k), port)
}

// short names port p without its rack: "sw-0-2-4 port 6".
func (g *portGraph) short(p int32) string {
	k, port := g.node(p)
	if k >= g.nPlan {
		return g.where(p)
	}
	return fmt.Sprintf("%s port %d", g.name(k), port)
}

// near names port p as seen from port ref: "port 9" on the same node,
// "sw-0-2-5 port 9" in the same rack, else with its rack.
func (g *portGraph) near(p, ref int32) string {
	k, port := g.node(p)
	kr, _ := g.node(ref)
	switch {
	case k == kr:
		return fmt.Sprintf("port %d", port)
	case k < g.nPlan && g.rack(k) > 0 && g.rack(k) == g.rack(kr):
		return fmt.Sprintf("%s port %d", g.label(k), port)
	}
	return g.where(p)
}

// texts says each step in the installer's words, replaying them on a bench
// of the differences' ports to name the far ends.
func (g *portGraph) texts(steps []step, ds ...difference) []string {
	b := g.newBench(ds...)
	var out []string
	for _, s := range steps {
		out = append(out, g.sentence(b, s))
		b.apply(s)
	}
	return out
}

func (g *portGraph) sentence(b *bench, s step) string {
	_, pa := g.node(s.a)
	_, pb := g.node(s.b)
	switch s.op {
	case OpExchange:
		ka, _ := g.node(s.a)
		kb, _ := g.node(s.b)
		na, nb := fmt.Sprintf("port %d", pa), fmt.Sprintf("port %d", pb)
		if ka != kb {
			na, nb = g.short(s.a), g.short(s.b)
		}
		return fmt.Sprintf("%s and %s: exchange the two plugs (%s then goes to %s, %s to %s)",
			g.where(s.a), g.near(s.b, s.a), na, g.short(b.peer[s.b]), nb, g.short(b.peer[s.a]))
	case OpMove:
		return fmt.Sprintf("%s: the cable to %s belongs in %s; move this plug there", g.where(s.a), g.short(b.peer[s.a]), g.near(s.b, s.a))
	case OpConnect:
		return fmt.Sprintf("%s: connect a cable to %s", g.where(s.a), g.near(s.b, s.a))
	case OpRemove:
		if g.isForeign(s.b) {
			return fmt.Sprintf("%s: cabled to %s, which is not in the plan; remove the cable (or add the node to the plan)", g.where(s.a), g.where(s.b))
		}
		return fmt.Sprintf("%s: remove the cable to %s", g.where(s.a), g.near(s.b, s.a))
	case OpReplace:
		c, ok := b.cable[s.a]
		if !ok { // an as-planned cable, not on any bench
			c = g.foundLink[s.a]
		}
		var now string
		if c >= 0 {
			now = fabric.Rate(g.foundLinks[c].Width, g.foundLinks[c].Speed)
		}
		pl := g.planLinks[g.planLink[s.a]]
		return fmt.Sprintf("%s: the cable to %s runs at %s, planned %s; reseat or replace it", g.where(s.a), g.short(s.b), now, fabric.Rate(pl.Width, pl.Speed))
	}
	return s.op
}

func numbered(texts []string) string {
	if len(texts) == 1 {
		return texts[0]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d steps, in this order: ", len(texts))
	for i, t := range texts {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d) %s", i+1, t)
	}
	return b.String()
}

func prefix(lead string, texts []string) string { return lead + numbered(texts) }

// sortFindings orders findings by rack, node and port, the order an
// installer walks the room in.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		switch {
		case a.Rack != b.Rack:
			return a.Rack < b.Rack
		case a.Node != b.Node:
			return a.Node < b.Node
		case a.Port != b.Port:
			return a.Port < b.Port
		case a.Kind != b.Kind:
			return a.Kind < b.Kind
		}
		return a.Instruction < b.Instruction
	})
}
