package wiringfaults

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"slimroute/fabric"
)

var (
	plansOnce sync.Once
	plans     map[string]*fabric.Fabric
)

func testPlan(t testing.TB, name string) *fabric.Fabric {
	plansOnce.Do(func() {
		plans = map[string]*fabric.Fabric{}
		for _, n := range Plans {
			f, err := Plan(n)
			if err != nil {
				panic(err)
			}
			plans[n] = f
		}
	})
	return plans[name]
}

// oracle is a trivially correct checker: it knows the truth and answers
// with each fault's undo steps, one finding per fault, the true count of
// as-planned cables, and every touched node in the first finding.
func oracle(plan *fabric.Fabric, c *Case) *Report {
	r := &Report{Planned: len(plan.Links()), AsPlanned: c.Physical.CablesAsPlanned(), Findings: []Finding{}}
	end := func(p fabric.PortRef) End { return End{Node: plan.Node(p.Node).Name, Port: p.Port} }
	for _, f := range c.Faults {
		fd := Finding{Kind: string(f.Kind), Instruction: "undo " + string(f.Kind), Nodes: []string{}}
		for _, s := range f.Undo {
			fd.Actions = append(fd.Actions, Action{Op: string(s.Op), A: end(s.A), B: end(s.B)})
		}
		r.Findings = append(r.Findings, fd)
	}
	for _, n := range c.Touched {
		r.Findings[0].Nodes = append(r.Findings[0].Nodes, plan.Node(n).Name)
	}
	return r
}

// diffOracle is the other trivially correct checker, for compound cases
// where faults overlap: from the truth it removes every cable that is not
// as planned, then connects every planned cable that is absent and replaces
// every degraded one; all touched nodes go in one finding.
func diffOracle(plan *fabric.Fabric, c *Case) *Report {
	r := &Report{Planned: len(plan.Links()), AsPlanned: c.Physical.CablesAsPlanned(), Findings: []Finding{}}
	if c.Clean() {
		return r
	}
	end := func(p fabric.PortRef) End { return End{Node: plan.Node(p.Node).Name, Port: p.Port} }
	fd := Finding{Kind: "diff", Nodes: []string{}}
	var connect, replace []Action
	for _, p := range c.Physical.Diff() {
		x, plugged := c.Physical.Peer(p)
		want, planned := plan.Peer(p)
		switch {
		case plugged && planned && x == want:
			if portLess(p, x) {
				replace = append(replace, Action{Op: "replace", A: end(p), B: end(x)})
			}
		case plugged && portLess(p, x):
			fd.Actions = append(fd.Actions, Action{Op: "remove", A: end(p), B: end(x)})
		}
		if planned && (!plugged || x != want) && portLess(p, want) {
			connect = append(connect, Action{Op: "connect", A: end(p), B: end(want)})
		}
	}
	fd.Actions = append(append(fd.Actions, connect...), replace...)
	for _, n := range c.Touched {
		fd.Nodes = append(fd.Nodes, plan.Node(n).Name)
	}
	r.Findings = append(r.Findings, fd)
	return r
}

func encode(t testing.TB, r *Report) []byte {
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// clone deep-copies a report through its JSON.
func clone(t testing.TB, r *Report) *Report {
	var out Report
	if err := json.Unmarshal(encode(t, r), &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// mutation breaks a correct report the way a faulty checker would; it
// returns false when the report has nothing it applies to.
type mutation struct {
	name  string
	apply func(rng *rand.Rand, plan *fabric.Fabric, c *Case, r *Report) bool
}

// randomAction picks an action of r.
func randomAction(rng *rand.Rand, r *Report) *Action {
	var all []*Action
	for i := range r.Findings {
		for k := range r.Findings[i].Actions {
			all = append(all, &r.Findings[i].Actions[k])
		}
	}
	if len(all) == 0 {
		return nil
	}
	return all[rng.IntN(len(all))]
}

// healthyCable picks a planned cable that is as planned in the case.
func healthyCable(rng *rand.Rand, plan *fabric.Fabric, c *Case) (fabric.Link, bool) {
	for range 1000 {
		l := plan.Links()[rng.IntN(len(plan.Links()))]
		if c.Physical.AsPlanned(l.A) {
			return l, true
		}
	}
	return fabric.Link{}, false
}

var mutations = []mutation{
	{"drop an action", func(rng *rand.Rand, _ *fabric.Fabric, _ *Case, r *Report) bool {
		i := rng.IntN(len(r.Findings))
		f := &r.Findings[i]
		if len(f.Actions) == 0 {
			return false
		}
		k := rng.IntN(len(f.Actions))
		f.Actions = append(f.Actions[:k], f.Actions[k+1:]...)
		return true
	}},
	{"shift a port", func(rng *rand.Rand, plan *fabric.Fabric, _ *Case, r *Report) bool {
		a := randomAction(rng, r)
		e := &a.A
		if rng.IntN(2) == 0 {
			e = &a.B
		}
		n, _ := plan.NodeByName(e.Node)
		if e.Port < plan.Node(n).Ports {
			e.Port++
		} else {
			e.Port--
		}
		return true
	}},
	{"reorder a rotation", func(rng *rand.Rand, _ *fabric.Fabric, _ *Case, r *Report) bool {
		for i := range r.Findings {
			if f := &r.Findings[i]; f.Kind == string(Rotation) {
				f.Actions[0], f.Actions[1] = f.Actions[1], f.Actions[0]
				return true
			}
		}
		return false
	}},
	{"add an action on a healthy cable", func(rng *rand.Rand, plan *fabric.Fabric, c *Case, r *Report) bool {
		l, ok := healthyCable(rng, plan, c)
		if !ok {
			return false
		}
		end := func(p fabric.PortRef) End { return End{Node: plan.Node(p.Node).Name, Port: p.Port} }
		r.Findings = append(r.Findings, Finding{Kind: "degraded", Nodes: []string{end(l.A).Node},
			Actions: []Action{{Op: "replace", A: end(l.A), B: end(l.B)}}})
		return true
	}},
	{"exchange two healthy plugs and back", func(rng *rand.Rand, plan *fabric.Fabric, c *Case, r *Report) bool {
		l1, ok1 := healthyCable(rng, plan, c)
		l2, ok2 := healthyCable(rng, plan, c)
		if !ok1 || !ok2 || l1 == l2 {
			return false
		}
		a := End{Node: plan.Node(l1.A.Node).Name, Port: l1.A.Port}
		b := End{Node: plan.Node(l2.A.Node).Name, Port: l2.A.Port}
		r.Findings[0].Actions = append(r.Findings[0].Actions, Action{"exchange", a, b}, Action{"exchange", a, b})
		return true
	}},
	{"claim clean", func(_ *rand.Rand, _ *fabric.Fabric, _ *Case, r *Report) bool {
		r.Findings = nil
		return true
	}},
	{"miscount as-planned cables", func(_ *rand.Rand, _ *fabric.Fabric, _ *Case, r *Report) bool {
		r.AsPlanned++
		return true
	}},
	{"leave a touched node unnamed", func(rng *rand.Rand, _ *fabric.Fabric, _ *Case, r *Report) bool {
		nodes := r.Findings[0].Nodes
		k := rng.IntN(len(nodes))
		r.Findings[0].Nodes = append(nodes[:k], nodes[k+1:]...)
		return true
	}},
	{"call a switch ambiguous and skip its actions", func(rng *rand.Rand, plan *fabric.Fabric, c *Case, r *Report) bool {
		if c.Naming.NewGUIDs() {
			return false // there a switch may really be ambiguous
		}
		sw := plan.IDsOf(fabric.Switch)[rng.IntN(len(plan.IDsOf(fabric.Switch)))]
		name := plan.Node(sw).Name
		r.Findings = append(r.Findings, Finding{Kind: Ambiguous, Nodes: []string{name}, Candidates: []string{name}})
		return true
	}},
}

// TestJudgeAcceptsTheOracleAndRejectsEveryMutation generates thousands of
// cases, checks that the judge accepts the oracle's report on each, and that
// it rejects every mutation of it.
func TestJudgeAcceptsTheOracleAndRejectsEveryMutation(t *testing.T) {
	seeds := 150
	if testing.Short() {
		seeds = 30
	}
	rejected := map[string]int{}
	cases := 0
	for _, name := range Plans {
		plan := testPlan(t, name)
		for _, naming := range Namings {
			for seed := uint64(1); seed <= uint64(seeds); seed++ {
				rng := rand.New(rand.NewPCG(seed, 7))
				n := 1 + rng.IntN(MaxFaults)
				compound := seed%3 == 0
				c, err := Generate(plan, seed, Options{Naming: naming, Faults: n, Compound: compound})
				if err != nil {
					t.Fatal(err)
				}
				cases++
				good := oracle(plan, c)
				if compound {
					good = diffOracle(plan, c)
				}
				if _, err := Judge(plan, c, encode(t, good)); err != nil {
					t.Fatalf("%s %s seed %d: the judge rejects the oracle: %v", name, naming, seed, err)
				}
				for _, m := range mutations {
					bad := clone(t, good)
					if !m.apply(rng, plan, c, bad) {
						continue
					}
					if _, err := Judge(plan, c, encode(t, bad)); err == nil {
						t.Errorf("%s %s seed %d: the judge accepts the oracle with %q", name, naming, seed, m.name)
					}
					rejected[m.name]++
				}
			}
		}
	}
	for _, m := range mutations {
		t.Logf("%-45s rejected in %d of %d cases", m.name, rejected[m.name], cases)
		if rejected[m.name] == 0 {
			t.Errorf("mutation %q never applied", m.name)
		}
	}
}

// TestJudgeOnCleanFabric: with no fault, the judge wants an empty report.
func TestJudgeOnCleanFabric(t *testing.T) {
	for _, name := range Plans {
		plan := testPlan(t, name)
		for _, naming := range Namings {
			c, err := Generate(plan, 1, Options{Naming: naming})
			if err != nil {
				t.Fatal(err)
			}
			if !c.Clean() || len(c.Unseen) != 0 || c.Found.NumNodes() != plan.NumNodes() {
				t.Fatalf("%s %s: the clean case is not clean: touched %v, unseen %v", name, naming, c.Touched, c.Unseen)
			}
			good := &Report{Planned: len(plan.Links()), AsPlanned: len(plan.Links())}
			if _, err := Judge(plan, c, encode(t, good)); err != nil {
				t.Errorf("%s %s: %v", name, naming, err)
			}
			noisy := clone(t, good)
			noisy.Findings = []Finding{{Kind: "extra", Nodes: []string{plan.Node(0).Name}}}
			if _, err := Judge(plan, c, encode(t, noisy)); err == nil || !strings.Contains(err.Error(), "as planned") {
				t.Errorf("%s %s: a finding on a clean fabric: %v", name, naming, err)
			}
		}
	}
}

// TestJudgeErrorsSayWhatWasWrong pins the wording a reader of a failed
// property test relies on.
func TestJudgeErrorsSayWhatWasWrong(t *testing.T) {
	plan := testPlan(t, "sf5")
	c, err := Generate(plan, 3, Options{Naming: PlanDescriptions, Faults: 1, Kinds: []Kind{MissingCable}})
	if err != nil {
		t.Fatal(err)
	}
	good := oracle(plan, c)
	for _, tc := range []struct {
		name, want string
		mutate     func(r *Report)
	}{
		{"not JSON", "not the contract's JSON", nil},
		{"clean", "no findings (clean), but the fabric is miswired: seed 3", func(r *Report) { r.Findings = nil }},
		{"unknown node", `"nosuch" is neither a plan node nor a discovered node`, func(r *Report) { r.Findings[0].Actions[0].A.Node = "nosuch" }},
		{"illegal", "not possible at that moment", func(r *Report) { r.Findings[0].Actions[0].Op = "remove" }},
		{"incomplete", "is empty, but the plan cables it to", func(r *Report) { r.Findings[0].Actions = nil }},
		{"unnamed", "no finding names", func(r *Report) { r.Findings[0].Nodes = nil }},
	} {
		b := []byte("{")
		if tc.mutate != nil {
			bad := clone(t, good)
			tc.mutate(bad)
			b = encode(t, bad)
		}
		_, err := Judge(plan, c, b)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// TestJudgeFollowsNodesTheCheckerCouldNotIdentify: an action may name a
// discovered node by its description and GUID; the judge maps it to the
// plan node it physically is.
func TestJudgeFollowsNodesTheCheckerCouldNotIdentify(t *testing.T) {
	plan := testPlan(t, "clos2")
	c, err := Generate(plan, 5, Options{Naming: FactoryNewGUIDs, Faults: 1, Kinds: []Kind{ExtraCable}})
	if err != nil {
		t.Fatal(err)
	}
	r := oracle(plan, c)
	a := &r.Findings[0].Actions[0].A
	found := foundOf(c, a.Node)
	a.Node, a.GUID = c.Found.Node(found).Name, c.Found.Node(found).GUID.String()
	if _, err := Judge(plan, c, encode(t, r)); err != nil {
		t.Fatal(err)
	}
	a.GUID = "0x1"
	if _, err := Judge(plan, c, encode(t, r)); err == nil || !strings.Contains(err.Error(), "has GUID") {
		t.Fatalf("a wrong GUID: %v", err)
	}
}

func foundOf(c *Case, planName string) fabric.NodeID {
	for d, pn := range c.PlanOf {
		if c.Physical.plan.Node(pn).Name == planName {
			return fabric.NodeID(d)
		}
	}
	panic(fmt.Sprintf("%s not discovered", planName))
}

// TestJudgeAmbiguityRules: on the twin cases, an ambiguous finding about
// the twins with no action on their cables is accepted in both truths; a
// confident move is wrong in one; ambiguity where names, planned GUIDs or
// hosts identify the nodes is rejected.
func TestJudgeAmbiguityRules(t *testing.T) {
	plan, err := TwinPlan()
	if err != nil {
		t.Fatal(err)
	}
	straight, crossed, err := TwinCases(plan, FactoryNewGUIDs)
	if err != nil {
		t.Fatal(err)
	}
	honest := &Report{Planned: 5, AsPlanned: 2, Findings: []Finding{{Kind: Ambiguous, Nodes: []string{"twin-a", "twin-b", "leaf"}, Candidates: []string{"twin-a", "twin-b"}}}}
	confident := &Report{Planned: 5, AsPlanned: 3, Findings: []Finding{{Kind: "move", Nodes: []string{"twin-a", "twin-b", "leaf"}, Actions: []Action{
		{Op: "move", A: End{Node: "leaf", Port: 5}, B: End{Node: "leaf", Port: 3}},
		{Op: "move", A: End{Node: "leaf", Port: 6}, B: End{Node: "leaf", Port: 4}},
	}}}}
	hedging := clone(t, honest)
	hedging.Findings[0].Actions = confident.Findings[0].Actions
	onlyLeaf := clone(t, honest)
	onlyLeaf.Findings[0].Nodes = []string{"leaf", "host-1"}
	onlyLeaf.Findings[0].Candidates = onlyLeaf.Findings[0].Nodes
	confidentOK := 0
	for _, c := range []*Case{straight, crossed} {
		v, err := Judge(plan, c, encode(t, honest))
		if err != nil || strings.Join(v.Candidates, " ") != "twin-a twin-b" {
			t.Fatalf("honest ambiguity: %v, candidates %v", err, v.Candidates)
		}
		if _, err := Judge(plan, c, encode(t, confident)); err == nil {
			confidentOK++
		}
		if _, err := Judge(plan, c, encode(t, hedging)); err == nil || !strings.Contains(err.Error(), "calls ambiguous") {
			t.Errorf("actions on the twins' cables next to an ambiguous finding: %v", err)
		}
		if _, err := Judge(plan, c, encode(t, onlyLeaf)); err == nil || !strings.Contains(err.Error(), "known by its hosts") {
			t.Errorf("ambiguity about a leaf known by its hosts: %v", err)
		}
	}
	if confidentOK != 1 {
		t.Errorf("a confident move is right in %d of the two truths, want exactly 1", confidentOK)
	}
	named, _, err := TwinCases(plan, FactoryPlannedGUIDs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Judge(plan, named, encode(t, honest)); err == nil || !strings.Contains(err.Error(), "planned GUID") {
		t.Errorf("ambiguity with planned GUIDs: %v", err)
	}
}

// TestJudgeHoldsNoPortToAPlugInACandidate: a twin's plug moved into the
// port a host is planned to (the host's cable taken out) leaves the host's
// port to nobody: its planned port holds a cable into a twin the report
// calls ambiguous, which no action may touch. An honest report that says
// nothing about it is accepted in both truths; one that plugs the host
// back is rejected.
func TestJudgeHoldsNoPortToAPlugInACandidate(t *testing.T) {
	plan, err := TwinPlan()
	if err != nil {
		t.Fatal(err)
	}
	port := func(name string, n int) fabric.PortRef {
		id, _ := plan.NodeByName(name)
		return fabric.PortRef{Node: id, Port: n}
	}
	honest := &Report{Planned: 5, AsPlanned: 1, Findings: []Finding{{Kind: Ambiguous, Nodes: []string{"twin-a", "twin-b", "leaf", "host-1"}, Candidates: []string{"twin-a", "twin-b"}}}}
	hedging := clone(t, honest)
	hedging.Findings = append(hedging.Findings, Finding{Kind: "missing", Nodes: []string{"host-1"}, Actions: []Action{
		{Op: "connect", A: End{Node: "host-1", Port: 1}, B: End{Node: "leaf", Port: 1}},
	}})
	for _, cross := range []bool{false, true} {
		a, b := 1, 6
		if cross {
			a, b = 6, 1
		}
		c, err := Break(plan, 1, FactoryNewGUIDs, []Step{
			{Remove, port("leaf", 1), port("host-1", 1)},
			{Move, port("leaf", 3), port("leaf", a)},
			{Move, port("leaf", 4), port("leaf", b)},
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Judge(plan, c, encode(t, honest)); err != nil {
			t.Errorf("crossed %v: the honest report: %v", cross, err)
		}
		if _, err := Judge(plan, c, encode(t, hedging)); err == nil || !strings.Contains(err.Error(), "calls ambiguous") {
			t.Errorf("crossed %v: plugging the host into a port that holds a twin's cable: %v", cross, err)
		}
	}
}

// FuzzJudge: whatever the report's bytes, the judge answers with a verdict
// or an error, never a panic.
func FuzzJudge(f *testing.F) {
	plan := testPlan(f, "clos2")
	c, err := Generate(plan, 3, Options{Naming: FactoryNewGUIDs, Faults: 6})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(encode(f, oracle(plan, c)))
	f.Add([]byte(`{"findings":[{"kind":"ambiguous","nodes":["leaf-0"]},{"actions":[{"op":"move","a":{"node":"leaf-0","port":-1},"b":{"node":"","port":999}}]}]}`))
	f.Fuzz(func(t *testing.T, report []byte) {
		Judge(plan, c, report)
	})
}
