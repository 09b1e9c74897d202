package cabling

import (
	"fmt"
	"strings"

	"slimroute/fabric"
)

// Verify works in three steps, one file each:
//
//  1. identify.go: which discovered node is which planned node (by node
//     description, GUID, attached hosts, then neighbours);
//  2. classify.go: both cablings on one set of ports, so that every port is
//     as planned, or part of exactly one difference (a path or a cycle of
//     cables that are not where the plan puts them);
//  3. actions.go: the fewest physical steps that turn each difference into
//     the plan, and findings.go: the findings that carry them.
//
// The counts come from the same classification as the findings, so the
// report cannot say "clean" while counting mismatches.

// Finding kinds.
const (
	Exchange      = "exchange"       // plugs to exchange: two of them, or a rotation of k
	Move          = "move"           // a plug in the wrong port or on the wrong node
	Missing       = "missing"        // a planned cable is absent: connect it
	Extra         = "extra"          // a cable the plan does not have: remove it
	Degraded      = "degraded"       // the right peer, at a lower width or speed: replace
	MissingSwitch = "missing-switch" // a planned switch is absent
	MissingHCA    = "missing-hca"    // a planned HCA is absent
	MissingRack   = "missing-rack"   // every switch of a rack is absent
	UnknownNode   = "unknown-node"   // a cable to a node the plan does not know: remove
	Ambiguous     = "ambiguous"      // discovered nodes that cannot be told apart
	Misnamed      = "misnamed"       // a node found by its cables that calls itself another planned node
	Unconfirmed   = "unconfirmed"    // a host found only by its cable where the other hosts carry their planned names or GUIDs
	Unanchored    = "unanchored"     // no discovered node is a planned one by description or GUID: nothing to compare against
)

// Action ops: the physical steps an installer performs.
const (
	OpExchange = "exchange" // the plugs in A and B trade places
	OpMove     = "move"     // the plug in A goes to the empty port B
	OpConnect  = "connect"  // a new cable between the empty ports A and B
	OpRemove   = "remove"   // the cable between A and B is taken out
	OpReplace  = "replace"  // the cable between A and B is replaced by a good one
)

// Identification methods, in the order Verify tries them.
const (
	ByDescription = "description"
	ByGUID        = "guid"
	ByHosts       = "hosts"
	ByNeighbours  = "neighbours"
	ByElimination = "elimination" // the one unidentified switch left for the one planned switch left
)

var methods = []string{ByDescription, ByGUID, ByHosts, ByNeighbours, ByElimination}

// Report is the result of Verify.
type Report struct {
	Planned   int `json:"planned_cables"`    // cables (links) in the plan
	AsPlanned int `json:"cables_as_planned"` // between the planned ports, not degraded
	// Identified counts the planned nodes found in the discovery, per
	// method; Unidentified lists the planned nodes not found.
	Identified   []MethodCount `json:"identified"`
	Unidentified []string      `json:"unidentified,omitempty"`
	// CutOff names the discovered switch the discovery could not leave: it
	// has no cable to another switch although the plan gives it some, so
	// ibnetdiscover ran from it (or a host on it), and the planned
	// switches not found may be only out of its reach.
	CutOff   string    `json:"cut_off,omitempty"`
	Findings []Finding `json:"findings"`
}

// MethodCount is how many planned nodes one method identified.
type MethodCount struct {
	Method string `json:"method"`
	Count  int    `json:"count"`
}

// Finding is one wiring problem with what to do about it.
type Finding struct {
	Kind string `json:"kind"`
	Rack int    `json:"rack"` // rack of the first node concerned (0: none/unknown)
	Node string `json:"node"` // first plan node concerned ("" if none)
	Port int    `json:"port,omitempty"`
	// Nodes lists every node the finding concerns: plan names, or for nodes
	// not in the plan their discovered descriptions.
	Nodes []string `json:"nodes"`
	// Candidates, for an ambiguous finding, are the nodes that cannot be
	// told apart: the planned switches and the discovered nodes. The other
	// Nodes are concerned (a cable to them goes unchecked) but known.
	Candidates  []string `json:"candidates,omitempty"`
	Instruction string   `json:"instruction"`
	Actions     []Action `json:"actions"` // physical steps, in order
	// Cables are the planned cables of the ports the finding acts on, as
	// the plan's labels and sheets name them (Report.WithCables).
	Cables []PlannedCable `json:"cables,omitempty"`
}

// Action is one physical step on the cabling.
type Action struct {
	Op string `json:"op"`
	A  End    `json:"a"`
	B  End    `json:"b"`
}

// End is a port an action concerns.
type End struct {
	// Node is the plan name of the node; for a node not in the plan, its
	// discovered node description.
	Node string `json:"node"`
	// GUID is, for a node not in the plan, its discovered node GUID.
	GUID string `json:"guid,omitempty"`
	Port int    `json:"port"`
}

// Clean reports whether every planned cable is present as planned and
// nothing unplanned is cabled. Every port that is not as planned belongs to
// a finding, so this is the same as AsPlanned == Planned with no unplanned
// or degraded cable.
func (r *Report) Clean() bool { return len(r.Findings) == 0 }

// Summary is the report's first lines in words: the cable count, the
// findings, and how the nodes were identified.
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d planned cables as planned; %d %s\n", r.AsPlanned, r.Planned, len(r.Findings), plural(len(r.Findings), "finding", "findings"))
	var parts []string
	total := 0
	for _, m := range r.Identified {
		if m.Count > 0 {
			parts = append(parts, fmt.Sprintf("%d by %s", m.Count, methodWords(m.Method)))
		}
		total += m.Count
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	fmt.Fprintf(&b, "%d planned %s identified: %s", total, plural(total, "node", "nodes"), strings.Join(parts, ", "))
	if n := len(r.Unidentified); n > 0 {
		const most = 10
		names := r.Unidentified
		if n > most {
			names = append(names[:most:most], fmt.Sprintf("and %d more", n-most))
		}
		fmt.Fprintf(&b, "; %d not found: %s", n, strings.Join(names, ", "))
	}
	b.WriteString("\n")
	if r.CutOff != "" {
		fmt.Fprintf(&b, "the discovery could not leave %s: none of its planned switch cables is plugged, so ibnetdiscover ran from it (or a host on it) and the switches not found may only be out of its reach: plug its switch cables and discover again before acting on the findings for them\n", r.CutOff)
	}
	return b.String()
}

func methodWords(m string) string {
	switch m {
	case ByDescription:
		return "node description"
	case ByGUID:
		return "GUID"
	case ByHosts:
		return "attached hosts"
	case ByNeighbours:
		return "neighbouring switches"
	case ByElimination:
		return "elimination"
	}
	return m
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Verify compares the discovered fabric (from ibnetdiscover, any naming)
// with the planned one and returns a complete report: every port that is
// not as planned is in exactly one finding, with the physical steps that
// put it right. Nil fabrics count as empty.
func Verify(plan, found *fabric.Fabric) *Report {
	r, _ := verify(plan, found)
	return r
}

// verify is Verify, also returning the classification for tests.
func verify(plan, found *fabric.Fabric) (*Report, *portGraph) {
	plan, found = orEmpty(plan), orEmpty(found)
	id := identify(plan, found)
	g := newPortGraph(plan, found, id)
	rep := &Report{Planned: len(g.planLinks), AsPlanned: g.asPlanned, Findings: []Finding{}}
	for _, m := range methods {
		rep.Identified = append(rep.Identified, MethodCount{m, id.count(m)})
	}
	for p := range plan.NumNodes() {
		if id.toFound[p] < 0 {
			rep.Unidentified = append(rep.Unidentified, plan.Node(fabric.NodeID(p)).Name)
		}
	}
	if f, ok := unanchored(plan, found, id); ok {
		rep.Findings = append(rep.Findings, f)
		return rep, g
	}
	rep.CutOff = cutOff(plan, found, id)
	g.cutOff = rep.CutOff != ""
	rep.Findings = append(rep.Findings, g.findings()...)
	sortFindings(rep.Findings)
	return rep, g
}

// unanchored returns the one finding of a comparison that nothing
// anchors: no discovered node is a planned node by its description or its
// GUID (factory descriptions, host names the plan does not have, GUIDs
// unknown), so every cable would be a finding of its own.
func unanchored(plan, found *fabric.Fabric, id *identity) (Finding, bool) {
	if plan.NumNodes() == 0 || found.NumNodes() == 0 {
		return Finding{}, false
	}
	for _, m := range methods {
		if id.count(m) > 0 {
			return Finding{}, false
		}
	}
	var names []string
	for d := range min(found.NumNodes(), 3) {
		names = append(names, fmt.Sprintf("%q", found.Node(fabric.NodeID(d)).Name))
	}
	return Finding{Kind: Unanchored, Nodes: []string{}, Actions: []Action{},
		Instruction: fmt.Sprintf("none of the %d discovered nodes (named like %s) is a planned node by its node description or its GUID, so nothing anchors the comparison and every cable would differ: name the discovered nodes with their planned names in a node-name-map (--node-name-map FILE, a line 0xGUID \"planned name\" per node), give the devices their planned node descriptions%s", found.NumNodes(), strings.Join(names, ", "), hostAdvice(found))}, true
}

// hostAdvice is the unanchored finding's advice for a discovery whose
// HCAs describe themselves by host name and device ("node017 mlx5_0"):
// make the plan with the host names.
func hostAdvice(found *fabric.Fabric) string {
	for _, n := range found.Nodes() {
		if host, device, ok := strings.Cut(n.Name, " "); ok && n.Kind == fabric.HCA && host != "" && device != "" {
			return fmt.Sprintf(", or — the HCAs carry host names, such as %q — make the plan with the cluster's host names (cabling plan --hosts: a pattern such as node%%03d, a list in rack order, or a CSV rack,u,host)", host)
		}
	}
	return ""
}

// cutOff returns "rack R, NAME" (or NAME) of the planned switch whose
// discovered device has no cable to another switch while the plan gives it
// some, when planned switches are missing: a discovery reaches a switch
// only over cables, so that one is where it started and could not go on.
func cutOff(plan, found *fabric.Fabric, id *identity) string {
	missing := false
	for _, p := range plan.IDsOf(fabric.Switch) {
		missing = missing || id.toFound[p] < 0
	}
	for _, p := range plan.IDsOf(fabric.Switch) {
		d := id.toFound[p]
		if !missing || d < 0 || switchCables(plan, p) == 0 || switchCables(found, d) > 0 {
			continue
		}
		if r := plan.Node(p).Place.Rack; r > 0 {
			return fmt.Sprintf("rack %d, %s", r, plan.Node(p).Name)
		}
		return plan.Node(p).Name
	}
	return ""
}

// switchCables counts the cables of node n to switches.
func switchCables(f *fabric.Fabric, n fabric.NodeID) int {
	k := 0
	for q := 1; q <= f.Ports(n); q++ {
		if far, ok := f.Peer(fabric.PortRef{Node: n, Port: q}); ok && f.Kind(far.Node) == fabric.Switch {
			k++
		}
	}
	return k
}

func orEmpty(f *fabric.Fabric) *fabric.Fabric {
	if f != nil {
		return f
	}
	e, _ := fabric.New(nil, nil)
	return e
}
