package wiringfaults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"slimroute/fabric"
)

// Report is a checker's report as the contract's JSON has it. The judge
// decodes it itself so that it shares no Go type with the checker; fields
// the judge does not use are left out.
type Report struct {
	Planned   int       `json:"planned_cables"`
	AsPlanned int       `json:"cables_as_planned"`
	Findings  []Finding `json:"findings"`
}

// Finding is one finding of a Report.
type Finding struct {
	Kind        string   `json:"kind"`
	Nodes       []string `json:"nodes"`
	Candidates  []string `json:"candidates"` // of an ambiguous finding
	Instruction string   `json:"instruction"`
	Actions     []Action `json:"actions"`
}

// Action is one physical step of a Finding.
type Action struct {
	Op string `json:"op"`
	A  End    `json:"a"`
	B  End    `json:"b"`
}

// End is a port named by plan name, or for a node not in the plan by its
// discovered description and GUID.
type End struct {
	Node string `json:"node"`
	GUID string `json:"guid,omitempty"`
	Port int    `json:"port"`
}

// Clean is the contract's Clean(): a report is clean when it has no
// findings.
func (r *Report) Clean() bool { return len(r.Findings) == 0 }

// Ambiguous is the finding kind for nodes the discovery cannot tell apart.
const Ambiguous = "ambiguous"

// Verdict is what the judge saw in a report it accepted.
type Verdict struct {
	Actions int
	// Candidates lists the plan nodes an ambiguous finding named; the
	// replay was held to the plan only away from them.
	Candidates []string
}

// Judge checks a checker's JSON report on case c of plan against the
// contract's invariant and returns the first violation it finds, saying
// what was wrong.
func Judge(plan *fabric.Fabric, c *Case, reportJSON []byte) (Verdict, error) {
	var r Report
	dec := json.NewDecoder(bytes.NewReader(reportJSON))
	if err := dec.Decode(&r); err != nil {
		return Verdict{}, fmt.Errorf("the report is not the contract's JSON: %w", err)
	}
	j := &judge{plan: plan, c: c, r: &r}
	for _, step := range []func() error{j.candidates, j.counts, j.replay, j.named} {
		if err := step(); err != nil {
			return Verdict{}, err
		}
	}
	v := Verdict{Actions: j.actions}
	for _, n := range j.cands {
		v.Candidates = append(v.Candidates, plan.Node(n).Name)
	}
	return v, nil
}

type judge struct {
	plan    *fabric.Fabric
	c       *Case
	r       *Report
	cands   []fabric.NodeID
	isCand  map[fabric.NodeID]bool
	actions int
}

// counts checks planned_cables, cables_as_planned and Clean() against the truth.
func (j *judge) counts() error {
	if want := len(j.plan.Links()); j.r.Planned != want {
		return fmt.Errorf("planned_cables is %d, but the plan has %d cables", j.r.Planned, want)
	}
	want := j.c.Physical.CablesAsPlanned()
	if sure := j.asPlannedAwayFromCandidates(); j.r.AsPlanned < sure || j.r.AsPlanned > want {
		return fmt.Errorf("cables_as_planned is %d, but %d of %d planned cables are really as planned (faults: %s)", j.r.AsPlanned, want, j.r.Planned, j.faults())
	}
	if j.r.Clean() != j.c.Clean() {
		if j.r.Clean() {
			return fmt.Errorf("the report has no findings (clean), but the fabric is miswired: %s; nodes touched: %s", j.faults(), j.names(j.c.Touched, 8))
		}
		return fmt.Errorf("the fabric is as planned, but the report has %d findings, the first %q: %s", len(j.r.Findings), j.r.Findings[0].Kind, j.r.Findings[0].Instruction)
	}
	return nil
}

// asPlannedAwayFromCandidates counts the as-planned cables that touch no
// ambiguous candidate. A checker that cannot tell the candidates apart
// cannot be sure of their cables either, so with an ambiguous finding the
// judge accepts any count between this and the true one (the contract's
// exception 5, read as covering the count as well as the replay).
func (j *judge) asPlannedAwayFromCandidates() int {
	n := 0
	for _, l := range j.plan.Links() {
		if j.c.Physical.AsPlanned(l.A) && !j.isCand[l.A.Node] && !j.isCand[l.B.Node] {
			n++
		}
	}
	return n
}

// candidates collects the nodes of ambiguous findings. Only switches with
// factory descriptions and GUIDs the plan does not know can be impossible
// to tell apart: in the other modes every node carries its plan name or
// planned GUID. Of the nodes an ambiguous finding names as its
// candidates, those that are switches not identified by a host count: HCAs
// keep their host names, and a switch whose planned HCA sits on its
// planned port is known by it. The finding may name such nodes, and any
// other, as concerned (its nodes); they stay held to the plan.
func (j *judge) candidates() error {
	j.isCand = map[fabric.NodeID]bool{}
	for i, f := range j.r.Findings {
		if f.Kind != Ambiguous {
			continue
		}
		if !j.c.Naming.NewGUIDs() {
			return fmt.Errorf("finding %d is ambiguous (%v), but with %s every node carries its plan name or planned GUID", i+1, f.Nodes, j.c.Naming)
		}
		found := false
		for _, name := range f.Candidates {
			n, err := j.node(End{Node: name})
			if err != nil {
				return fmt.Errorf("finding %d (ambiguous): %w", i+1, err)
			}
			if j.plan.Node(n).Kind == fabric.HCA || j.knownByHost(n) {
				continue
			}
			found = true
			if !j.isCand[n] {
				j.isCand[n] = true
				j.cands = append(j.cands, n)
			}
		}
		if !found {
			return fmt.Errorf("finding %d is ambiguous, but every candidate it names (%v) is an HCA or a switch known by its hosts", i+1, f.Candidates)
		}
	}
	return nil
}

// knownByHost reports whether switch sw holds, on a planned port, the HCA
// the plan puts there: the host's name then identifies the switch.
func (j *judge) knownByHost(sw fabric.NodeID) bool {
	for p := 1; p <= j.plan.Node(sw).Ports; p++ {
		port := fabric.PortRef{Node: sw, Port: p}
		want, planned := j.plan.Peer(port)
		got, plugged := j.c.Physical.Peer(port)
		if planned && plugged && got == want && j.plan.Node(want.Node).Kind == fabric.HCA {
			return true
		}
	}
	return false
}

// replay applies every action in report order to the true cabling and
// checks that each is legal, leaves as-planned cables and ambiguous
// candidates alone, and that together they restore the plan.
func (j *judge) replay() error {
	cab := j.c.Physical.Clone()
	for i, f := range j.r.Findings {
		for k, a := range f.Actions {
			j.actions++
			where := fmt.Sprintf("finding %d (%s: %q), action %d (%s %s[%d] %s[%d])", i+1, f.Kind, f.Instruction, k+1, a.Op, a.A.Node, a.A.Port, a.B.Node, a.B.Port)
			s, err := j.step(a)
			if err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			for _, p := range [2]fabric.PortRef{s.A, s.B} {
				if _, planned := j.plan.Peer(p); planned && j.c.Physical.AsPlanned(p) {
					return fmt.Errorf("%s: touches %s, whose cable was as planned", where, j.port(p))
				}
				if j.nearCandidate(cab, p) {
					return fmt.Errorf("%s: touches %s, on or cabled to a node the report calls ambiguous; the contract allows no action there", where, j.port(p))
				}
			}
			if err := cab.Apply(s); err != nil {
				return fmt.Errorf("%s: not possible at that moment: %w", where, err)
			}
		}
	}
	var wrong []string
	for _, p := range cab.Diff() {
		if j.nearCandidate(cab, p) || j.holdsCandidatesPlug(cab, p) || j.plannedToCandidatesCable(cab, p) {
			continue
		}
		want, planned := j.plan.Peer(p)
		got, plugged := cab.Peer(p)
		switch {
		case !planned:
			wrong = append(wrong, fmt.Sprintf("%s holds a cable to %s, which the plan does not have", j.port(p), j.port(got)))
		case !plugged:
			wrong = append(wrong, fmt.Sprintf("%s is empty, but the plan cables it to %s", j.port(p), j.port(want)))
		case got != want:
			wrong = append(wrong, fmt.Sprintf("%s holds a cable to %s, but the plan cables it to %s", j.port(p), j.port(got), j.port(want)))
		default:
			wrong = append(wrong, fmt.Sprintf("%s still holds a degraded cable", j.port(p)))
		}
	}
	if len(wrong) > 0 {
		return fmt.Errorf("after replaying all %d actions the cabling is not the plan (%d ports wrong; faults: %s): %s", j.actions, len(wrong), j.faults(), strings.Join(first(wrong, 6), "; "))
	}
	return nil
}

// holdsCandidatesPlug reports whether port p holds the cable of a port
// planned to an ambiguous candidate (an HCA of a candidate plugged into
// another switch, say): that cable cannot be put right without touching
// the candidate's port, which the contract forbids, so p is not held to
// the plan either.
func (j *judge) holdsCandidatesPlug(cab *Cabling, p fabric.PortRef) bool {
	q, ok := cab.Peer(p)
	if !ok {
		return false
	}
	far, planned := j.plan.Peer(q)
	return planned && j.isCand[far.Node]
}

// plannedToCandidatesCable reports whether the port p is planned to holds
// a cable to an ambiguous candidate (a planned peer's plug moved into a
// candidate, say) or a candidate's plug (holdsCandidatesPlug): p's cable
// cannot be plugged there without unplugging that one, which the contract
// forbids, so p is not held to the plan either.
func (j *judge) plannedToCandidatesCable(cab *Cabling, p fabric.PortRef) bool {
	want, planned := j.plan.Peer(p)
	if !planned {
		return false
	}
	q, ok := cab.Peer(want)
	return ok && j.isCand[q.Node] || j.holdsCandidatesPlug(cab, want)
}

// nearCandidate reports whether port p is on, planned to, or cabled to an
// ambiguous candidate: the contract holds such cables to nothing.
func (j *judge) nearCandidate(cab *Cabling, p fabric.PortRef) bool {
	if j.isCand[p.Node] {
		return true
	}
	if q, ok := j.plan.Peer(p); ok && j.isCand[q.Node] {
		return true
	}
	q, ok := cab.Peer(p)
	return ok && j.isCand[q.Node]
}

// named checks that every node the faults touched is in some finding's Nodes.
func (j *judge) named() error {
	seen := map[fabric.NodeID]bool{}
	for i, f := range j.r.Findings {
		for _, name := range f.Nodes {
			n, err := j.node(End{Node: name})
			if err != nil {
				return fmt.Errorf("finding %d (%s) names %q: %w", i+1, f.Kind, name, err)
			}
			seen[n] = true
		}
	}
	var missed []fabric.NodeID
	for _, n := range j.c.Touched {
		if !seen[n] {
			missed = append(missed, n)
		}
	}
	if len(missed) > 0 {
		return fmt.Errorf("no finding names %s, which the faults touched (faults: %s)", j.names(missed, 8), j.faults())
	}
	return nil
}

// step resolves an action's ends to plan ports.
func (j *judge) step(a Action) (Step, error) {
	na, err := j.node(a.A)
	if err != nil {
		return Step{}, fmt.Errorf("end a: %w", err)
	}
	nb, err := j.node(a.B)
	if err != nil {
		return Step{}, fmt.Errorf("end b: %w", err)
	}
	return Step{Op(a.Op), fabric.PortRef{Node: na, Port: a.A.Port}, fabric.PortRef{Node: nb, Port: a.B.Port}}, nil
}

// node resolves a node named by the report: a plan name, or the discovered
// description (and GUID, if given) of a node the checker did not identify,
// which the truth maps to the plan node it physically is.
func (j *judge) node(e End) (fabric.NodeID, error) {
	if n, ok := j.plan.NodeByName(e.Node); ok {
		return n, nil
	}
	d, ok := j.c.Found.NodeByName(e.Node)
	if !ok {
		return 0, fmt.Errorf("%q is neither a plan node nor a discovered node", e.Node)
	}
	if e.GUID != "" {
		g, err := fabric.ParseGUID(e.GUID)
		if err != nil || g != j.c.Found.Node(d).GUID {
			return 0, fmt.Errorf("discovered node %q has GUID %s, not %q", e.Node, j.c.Found.Node(d).GUID, e.GUID)
		}
	}
	return j.c.PlanOf[d], nil
}

func (j *judge) port(p fabric.PortRef) string {
	return fmt.Sprintf("%s[%d]", j.plan.Node(p.Node).Name, p.Port)
}

func (j *judge) names(ns []fabric.NodeID, most int) string {
	var out []string
	for _, n := range ns {
		out = append(out, j.plan.Node(n).Name)
	}
	return strings.Join(first(out, most), ", ")
}

// faults describes the case's faults for an error message.
func (j *judge) faults() string {
	if len(j.c.Faults) == 0 {
		if j.c.Clean() {
			return "none"
		}
		return fmt.Sprintf("hand-made case, nodes touched: %s", j.names(j.c.Touched, 8))
	}
	var out []string
	for _, f := range j.c.Faults {
		var steps []string
		for _, s := range f.Undo {
			steps = append(steps, fmt.Sprintf("%s %s %s", s.Op, j.port(s.A), j.port(s.B)))
		}
		out = append(out, fmt.Sprintf("%s (undo: %s)", f.Kind, strings.Join(steps, ", ")))
	}
	return fmt.Sprintf("seed %d, %s, %s", j.c.Seed, j.c.Naming, strings.Join(out, "; "))
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("… %d more", len(s)-n))
	}
	return s
}
