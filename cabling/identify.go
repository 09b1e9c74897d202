package cabling

import (
	"slices"
	"sort"
	"strings"

	"slimroute/fabric"
)

// identity says which discovered node is which planned node.
type identity struct {
	toPlan  []fabric.NodeID // per discovered node: its plan node, or -1
	toFound []fabric.NodeID // per plan node: its discovered node, or -1
	method  []string        // per plan node: how it was identified
	// groups are discovered nodes that fit several plan nodes equally well
	// (or several discovered nodes that fit one): no guess is made for them.
	groups         []ambiguity
	ambiguousPlan  []bool // per plan node: a candidate of a group
	ambiguousFound []bool // per discovered node: in a group
}

// ambiguity is one set of discovered nodes and the plan nodes they could be.
type ambiguity struct {
	found []fabric.NodeID // ascending
	plan  []fabric.NodeID // ascending
}

// identify matches discovered nodes to plan nodes: by node description,
// then by node GUID, then by votes of the nodes already identified (see
// byVotes). A plan node is matched at most once, and only to a node of its
// kind.
func identify(plan, found *fabric.Fabric) *identity {
	id := &identity{
		toPlan:         fill(found.NumNodes()),
		toFound:        fill(plan.NumNodes()),
		method:         make([]string, plan.NumNodes()),
		ambiguousPlan:  make([]bool, plan.NumNodes()),
		ambiguousFound: make([]bool, found.NumNodes()),
	}
	fn := found.Nodes()
	for d := range fn {
		if p, ok := describedAs(plan, fn[d]); ok {
			id.set(plan, found, fabric.NodeID(d), p, ByDescription)
		}
	}
	for d := range fn {
		if fn[d].GUID == 0 || id.toPlan[d] >= 0 {
			continue
		}
		if p, ok := plan.NodeByGUID(fn[d].GUID); ok {
			id.set(plan, found, fabric.NodeID(d), p, ByGUID)
		}
	}
	newVoting(plan, found, id).run()
	id.leftoverSwitches(plan, found)
	if id.swapByCables(plan, found) {
		// a switch left a name for one nobody had: the names left
		// unidentified are settled again without the old ambiguities
		id.groups = nil
		clear(id.ambiguousPlan)
		clear(id.ambiguousFound)
		newVoting(plan, found, id).run()
		id.leftoverSwitches(plan, found)
	}
	id.crossedLabels(plan, found)
	return id
}

// describedAs returns the planned node that discovered node n's
// description names: the whole description, or for an HCA the host name
// it begins with, when that is a planned HCA's name — an operating system
// describes its HCA by host name and device ("node017 mlx5_0", "node017
// HCA-1"), and a plan made with host names names its HCAs by them. A
// description that fabric made unique with the GUID ("node017 (0x…)":
// several devices call themselves node017) names no host.
func describedAs(plan *fabric.Fabric, n fabric.Node) (fabric.NodeID, bool) {
	if p, ok := plan.NodeByName(n.Name); ok {
		return p, true
	}
	host, device := fabric.HostName(n.Name)
	if n.Kind != fabric.HCA || host == "" || device == "" || strings.HasPrefix(device, "(") {
		return -1, false
	}
	p, ok := plan.NodeByName(host)
	return p, ok && plan.Node(p).Kind == fabric.HCA
}

// crossedLabels settles the devices whose node description names one
// planned node and whose GUID another (descriptions swapped on two
// switches in their right places, or two devices mounted in each other's
// places and described by place): description and GUID each name a
// device, and the cables tell which. A device identified by description
// whose GUID is planned to another node takes that node's name — trading
// names with the device that had it, if any — when that puts more of
// their cables as planned (fit).
func (id *identity) crossedLabels(plan, found *fabric.Fabric) {
	for d, n := range found.Nodes() {
		p := id.toPlan[d]
		if p < 0 || id.method[p] != ByDescription || n.GUID == 0 {
			continue
		}
		q, ok := plan.NodeByGUID(n.GUID)
		if !ok || q == p || plan.Node(q).Kind != n.Kind {
			continue
		}
		id.trade(plan, found, fabric.NodeID(d), q, ByGUID)
	}
}

// swapByCables revisits the switches identified by their cables (hosts,
// neighbours, elimination): the votes name a switch after whichever cables
// were identified first — its hosts, when every switch has a factory
// description and a GUID the plan does not know — and a switch whose host
// cables were exchanged with another's is named after its hosts against
// all of its switch cables. Two such switches trade names when that puts
// more of both their cables as planned (the votes' score: 2 for the
// planned node and port, 1 for the node), in passes until no trade gains:
// the findings then ask for the fewest steps, and name each switch after
// most of its cables. A switch may also take the name of a planned switch
// that nobody has (one left ambiguous or unidentified, when its hosts were
// exchanged with another's); swapByCables reports whether one did.
func (id *identity) swapByCables(plan, found *fabric.Fabric) (tookFree bool) {
	byCables := func(p fabric.NodeID) bool {
		m := id.method[p]
		return plan.Node(p).Kind == fabric.Switch && (m == ByHosts || m == ByNeighbours || m == ByElimination)
	}
	free := func(p fabric.NodeID) bool { return plan.Node(p).Kind == fabric.Switch && id.toFound[p] < 0 }
	for pass := 0; pass < 8; pass++ {
		traded := false
		for _, p1 := range plan.IDsOf(fabric.Switch) {
			if !byCables(p1) {
				continue
			}
			for _, p2 := range id.candidates(plan, found, id.toFound[p1]) {
				if p2 == p1 || !byCables(p2) && !free(p2) {
					continue
				}
				wasFree := free(p2)
				if id.trade(plan, found, id.toFound[p1], p2, ByNeighbours) {
					traded, tookFree = true, tookFree || wasFree
					break
				}
			}
		}
		if !traded {
			return tookFree
		}
	}
	return tookFree
}

func (id *identity) assign(d, p fabric.NodeID) { id.toPlan[d], id.toFound[p] = p, d }

// trade names discovered node d, identified as plan node p, as plan node q
// instead, and the node identified as q (if any) as p — and keeps that,
// both names then identified how, only if it puts more of their cables as
// planned (fit); a p left without a node is unidentified.
func (id *identity) trade(plan, found *fabric.Fabric, d, q fabric.NodeID, how string) bool {
	p, d2 := id.toPlan[d], id.toFound[q]
	score := func() int {
		n := id.fit(plan, found, d)
		if d2 >= 0 {
			n += id.fit(plan, found, d2)
		}
		return n
	}
	before := score()
	id.toFound[p] = -1
	id.assign(d, q)
	if d2 >= 0 {
		id.assign(d2, p)
	}
	if score() > before {
		id.method[q], id.method[p] = how, how
		if d2 < 0 {
			id.method[p] = ""
		}
		return true
	}
	id.assign(d, p) // as it was
	if d2 >= 0 {
		id.assign(d2, q)
	} else {
		id.toFound[q] = -1
	}
	return false
}

// fit scores discovered node d's cables against the plan node it is
// identified as: 2 for a far end identified as the planned peer at the
// planned port, 1 for the planned peer at another port.
func (id *identity) fit(plan, found *fabric.Fabric, d fabric.NodeID) int {
	p, n := id.toPlan[d], 0
	for q := 1; q <= found.Ports(d); q++ {
		far, ok := found.Peer(fabric.PortRef{Node: d, Port: q})
		if !ok || id.toPlan[far.Node] < 0 {
			continue
		}
		want, ok := plan.Peer(fabric.PortRef{Node: id.toPlan[far.Node], Port: far.Port})
		w := 1 // a host's cable
		if found.Kind(far.Node) == fabric.Switch {
			w = switchCable
		}
		switch {
		case !ok || want.Node != p:
		case want.Port == q:
			n += 2 * w
		default:
			n += w
		}
	}
	return n
}

// switchCable weighs a switch-to-switch cable in fit above all of a
// switch's host cables together: the switch cables are the fabric's
// skeleton and span the racks, the hosts hang on it, so a switch whose
// host cables and switch cables disagree is where its switch cables say
// (hosts plugged into the wrong switch), not where its hosts say.
const switchCable = 1 << 10

// candidates lists, in plan order without repeats, the plan nodes that
// d's identified far ends are planned to be cabled to.
func (id *identity) candidates(plan, found *fabric.Fabric, d fabric.NodeID) []fabric.NodeID {
	var out []fabric.NodeID
	for q := 1; q <= found.Ports(d); q++ {
		far, ok := found.Peer(fabric.PortRef{Node: d, Port: q})
		if !ok || id.toPlan[far.Node] < 0 {
			continue
		}
		if want, ok := plan.Peer(fabric.PortRef{Node: id.toPlan[far.Node], Port: far.Port}); ok && !slices.Contains(out, want.Node) {
			out = append(out, want.Node)
		}
	}
	slices.Sort(out)
	return out
}

// leftoverSwitches settles the discovered switches that no vote reached:
// with factory descriptions and new GUIDs, a switch whose cables all went to
// free ports (or to other such switches) is still most likely a planned
// switch that was not identified, not a stranger. One such switch and one
// unidentified planned switch are each other's by elimination; more of
// them cannot be told apart, so they are ambiguous together. Only when no
// planned switch is left unidentified are they strangers (not in the plan).
// HCAs are not treated so: their node descriptions are host names. Nor is
// a discovery in which nothing was identified: it is not of this plan.
func (id *identity) leftoverSwitches(plan, found *fabric.Fabric) {
	if id.count(ByDescription)+id.count(ByGUID) == 0 {
		return
	}
	var ds, ps []fabric.NodeID
	for d, n := range found.Nodes() {
		if n.Kind == fabric.Switch && id.toPlan[d] < 0 && !id.ambiguousFound[d] {
			ds = append(ds, fabric.NodeID(d))
		}
	}
	for _, p := range plan.IDsOf(fabric.Switch) {
		if id.toFound[p] < 0 && !id.ambiguousPlan[p] {
			ps = append(ps, p)
		}
	}
	switch {
	case len(ds) == 0 || len(ps) == 0:
	case len(ds) == 1 && len(ps) == 1:
		id.set(plan, found, ds[0], ps[0], ByElimination)
	default:
		for _, p := range ps {
			id.ambiguousPlan[p] = true
		}
		for _, d := range ds {
			id.ambiguousFound[d] = true
		}
		id.groups = append(id.groups, ambiguity{found: ds, plan: ps})
	}
}

func fill(n int) []fabric.NodeID {
	s := make([]fabric.NodeID, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

func (id *identity) set(plan, found *fabric.Fabric, d, p fabric.NodeID, how string) {
	if id.toPlan[d] >= 0 || id.toFound[p] >= 0 || plan.Node(p).Kind != found.Node(d).Kind {
		return
	}
	id.toPlan[d], id.toFound[p], id.method[p] = p, d, how
}

func (id *identity) count(how string) int {
	n := 0
	for _, m := range id.method {
		if m == how {
			n++
		}
	}
	return n
}

// vote is the evidence that a discovered node is plan node plan: each of its
// cables whose far end is identified and planned to plan scores 2 when the
// port numbers agree with the plan, 1 when only the node does.
type vote struct {
	plan  fabric.NodeID
	score int
	hosts int // the part of score from HCAs
}

// voting identifies the remaining discovered nodes by their neighbours,
// the way an installer would: the hosts on a switch, then the switches
// next to identified ones, name it. It runs in rounds until nothing
// changes. A round accepts a discovered node d as plan node X only when X
// is d's strictly best candidate and d is X's strictly best claimant, and
// only the most decisive such pairs (largest lead over the runner-up), so
// that weak evidence waits for the rounds that bring more. Whatever is left
// with votes is ambiguous.
type voting struct {
	plan, found *fabric.Fabric
	id          *identity
	planKind    []fabric.Kind
	foundKind   []fabric.Kind
	foundPorts  []int
	best        []int // per plan node: the highest score any discovered node gives it this round
	claimants   []int // per plan node: how many discovered nodes give it that score
}

// claim is one discovered node's standing in a round.
type claim struct {
	d      fabric.NodeID
	votes  []vote // best first
	margin int    // lead of the best over the runner-up
}

func newVoting(plan, found *fabric.Fabric, id *identity) *voting {
	v := &voting{plan: plan, found: found, id: id,
		best: make([]int, plan.NumNodes()), claimants: make([]int, plan.NumNodes())}
	for _, n := range plan.Nodes() {
		v.planKind = append(v.planKind, n.Kind)
	}
	for _, n := range found.Nodes() {
		v.foundKind = append(v.foundKind, n.Kind)
		v.foundPorts = append(v.foundPorts, n.Ports)
	}
	return v
}

func (v *voting) run() {
	for {
		claims := v.round()
		accepted := v.accept(claims)
		if len(accepted) == 0 {
			v.ambiguous(claims)
			return
		}
		for _, c := range accepted {
			how := ByNeighbours
			if 2*c.votes[0].hosts >= c.votes[0].score {
				how = ByHosts
			}
			v.id.set(v.plan, v.found, c.d, c.votes[0].plan, how)
		}
	}
}

// round collects the votes for every unidentified discovered node.
func (v *voting) round() []claim {
	for i := range v.best {
		v.best[i], v.claimants[i] = 0, 0
	}
	var claims []claim
	for d := range v.foundKind {
		if v.id.toPlan[d] >= 0 {
			continue
		}
		vs := v.votes(fabric.NodeID(d))
		if len(vs) == 0 {
			continue
		}
		c := claim{d: fabric.NodeID(d), votes: vs, margin: vs[0].score}
		if len(vs) > 1 {
			c.margin -= vs[1].score
		}
		claims = append(claims, c)
		for _, x := range vs {
			switch {
			case x.score > v.best[x.plan]:
				v.best[x.plan], v.claimants[x.plan] = x.score, 1
			case x.score == v.best[x.plan]:
				v.claimants[x.plan]++
			}
		}
	}
	return claims
}

// votes returns the candidates for discovered node d, best first (ties by
// plan order).
func (v *voting) votes(d fabric.NodeID) []vote {
	var vs []vote
	for p := 1; p <= v.foundPorts[d]; p++ {
		far, ok := v.found.Peer(fabric.PortRef{Node: d, Port: p})
		if !ok {
			continue
		}
		e := v.id.toPlan[far.Node]
		if e < 0 {
			continue
		}
		want, ok := v.plan.Peer(fabric.PortRef{Node: e, Port: far.Port})
		if !ok || v.id.toFound[want.Node] >= 0 || v.planKind[want.Node] != v.foundKind[d] {
			continue
		}
		w := 1
		if want.Port == p {
			w = 2
		}
		h := 0
		if v.planKind[e] == fabric.HCA {
			h = w
		}
		i := 0
		for i < len(vs) && vs[i].plan != want.Node {
			i++
		}
		if i == len(vs) {
			vs = append(vs, vote{plan: want.Node})
		}
		vs[i].score += w
		vs[i].hosts += h
	}
	sort.Slice(vs, func(i, j int) bool {
		if vs[i].score != vs[j].score {
			return vs[i].score > vs[j].score
		}
		return vs[i].plan < vs[j].plan
	})
	return vs
}

// accept picks the claims this round settles: strict on both sides, and
// the most decisive only.
func (v *voting) accept(claims []claim) []claim {
	var ok []claim
	most := 0
	for _, c := range claims {
		b := c.votes[0]
		if c.margin <= 0 || v.best[b.plan] != b.score || v.claimants[b.plan] != 1 {
			continue
		}
		ok = append(ok, c)
		most = max(most, c.margin)
	}
	out := ok[:0]
	for _, c := range ok {
		if c.margin == most {
			out = append(out, c)
		}
	}
	return out
}

// ambiguous groups the claims no round could settle: a discovered node
// goes with its tied best candidates and with the candidates it claims as
// strongly as anyone; groups that share a node merge.
func (v *voting) ambiguous(claims []claim) {
	nPlan := len(v.planKind) // keys: plan node i, discovered node nPlan+d
	sets := unionFind{}
	var keys []int
	for _, c := range claims {
		d := nPlan + int(c.d)
		keys = append(keys, d)
		for _, x := range c.votes {
			if x.score == c.votes[0].score || x.score == v.best[x.plan] {
				sets.union(d, int(x.plan))
				keys = append(keys, int(x.plan))
			}
		}
	}
	sort.Ints(keys)
	group := map[int]int{} // root → index in v.id.groups
	for i, k := range keys {
		if i > 0 && keys[i-1] == k {
			continue
		}
		r := sets.find(k)
		gi, ok := group[r]
		if !ok {
			gi = len(v.id.groups)
			group[r] = gi
			v.id.groups = append(v.id.groups, ambiguity{})
		}
		a := &v.id.groups[gi]
		if k < nPlan {
			a.plan = append(a.plan, fabric.NodeID(k))
			v.id.ambiguousPlan[k] = true
		} else {
			a.found = append(a.found, fabric.NodeID(k-nPlan))
			v.id.ambiguousFound[k-nPlan] = true
		}
	}
}

// unionFind is a disjoint-set forest over ints; absent keys are roots.
type unionFind map[int]int

func (u unionFind) find(x int) int {
	for {
		p, ok := u[x]
		if !ok || p == x {
			return x
		}
		if gp, ok := u[p]; ok {
			u[x] = gp // path halving
		}
		x = p
	}
}

// union joins the sets of a and b under the smaller root, so that roots
// do not depend on the order of the unions.
func (u unionFind) union(a, b int) {
	ra, rb := u.find(a), u.find(b)
	if ra != rb {
		u[max(ra, rb)] = min(ra, rb)
	}
}
