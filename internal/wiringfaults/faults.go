package wiringfaults

import (
	"math/rand/v2"
	"slices"

	"slimroute/fabric"
)

// Kind is a kind of wiring fault an installer makes.
type Kind string

// The fault kinds of issue 12.
const (
	ExchangeOnSwitch    Kind = "exchange-on-switch"    // two switch-switch plugs traded on one switch
	ExchangeInRack      Kind = "exchange-in-rack"      // … between two switches of one rack
	ExchangeAcrossRacks Kind = "exchange-across-racks" // … between switches of two racks
	Rotation            Kind = "rotation"              // 3–5 plugs rotated, on one switch or across switches
	HCAExchangeOnSwitch Kind = "hca-exchange-on-switch"
	HCAExchangeAcross   Kind = "hca-exchange-across-switches"
	MoveToFreePort      Kind = "move-to-free-port"    // a plug moved to a free port of its switch
	MoveToOtherSwitch   Kind = "move-to-other-switch" // … to a free port of another switch
	MissingCable        Kind = "missing-cable"        // a switch-switch cable absent
	MissingHCACable     Kind = "missing-hca-cable"    // an HCA's only cable absent: the HCA is not discovered
	ExtraCable          Kind = "extra-cable"          // a cable between two free ports
	WrongPair           Kind = "wrong-pair"           // a planned cable plugged between two other switches
	MissingSwitch       Kind = "missing-switch"       // a switch in place but none of its cables plugged
	Degraded            Kind = "degraded"             // a cable in place that trains below the planned rate
	HostSetsExchanged   Kind = "host-sets-exchanged"  // every host plug of one switch traded with another's, port for port
)

// Kinds lists every fault kind, in a fixed order.
//
// By default every fault changes ports that no other fault of the same
// case touches, so faults never cancel each other. In compound mode
// (Options.Compound) a fault may take a plug an earlier fault displaced
// (exchange a plug that was moved, rotate plugs of which one was already
// exchanged), so the final cabling need not be a union of textbook shapes.
var Kinds = []Kind{
	ExchangeOnSwitch, ExchangeInRack, ExchangeAcrossRacks, Rotation,
	HCAExchangeOnSwitch, HCAExchangeAcross, MoveToFreePort, MoveToOtherSwitch,
	MissingCable, MissingHCACable, ExtraCable, WrongPair, MissingSwitch, Degraded,
	HostSetsExchanged,
}

// Fault is one injected fault.
type Fault struct {
	Kind Kind
	// Undo is a sequence of steps that reverses this fault in the state it
	// left. Applied for all faults in reverse order, they restore the plan;
	// without compound mode faults touch disjoint ports, so any order does,
	// and tests use them as a trivially correct checker.
	Undo []Step
}

// injector applies faults to a cabling, each on ports no earlier fault used.
type injector struct {
	plan *fabric.Fabric
	cab  *Cabling
	rng  *rand.Rand
	used map[fabric.PortRef]bool // ports some fault changed
	// usedOrder lists the used ports in the order faults took them, for
	// deterministic draws among them.
	usedOrder []fabric.PortRef
	hold      map[fabric.PortRef]bool // ports the fault being drawn already took
	compound  bool                    // faults may take plugs earlier faults displaced
	missing   map[fabric.NodeID]bool
	switches  []fabric.NodeID
	nominal   rate // the planned rate of the plan's cables; zero if unknown
}

func newInjector(plan *fabric.Fabric, rng *rand.Rand) *injector {
	return &injector{
		plan: plan, cab: NewCabling(plan), rng: rng,
		used: map[fabric.PortRef]bool{}, hold: map[fabric.PortRef]bool{}, missing: map[fabric.NodeID]bool{},
		switches: plan.IDsOf(fabric.Switch),
		nominal:  nominalRate(plan),
	}
}

// nominalRate is the rate the plan gives its first cable; Plan gives every
// cable the same.
func nominalRate(plan *fabric.Fabric) rate {
	if len(plan.Links()) == 0 {
		return rate{}
	}
	l := plan.Links()[0]
	return rate{l.Width, l.Speed}
}

// tries bounds every random search; a fault that finds no room fails and
// the caller draws another kind.
const tries = 64

func (in *injector) isSwitch(n fabric.NodeID) bool { return in.plan.Node(n).Kind == fabric.Switch }

func (in *injector) rack(n fabric.NodeID) int { return in.plan.Node(n).Place.Rack }

// plugOn picks a plugged port of a switch whose far end is a switch (hca
// false) or an HCA (hca true), and which the fault being drawn has not
// taken. Unless in compound mode, the cable must also be as planned and
// untouched at both ends. It returns the port and its far end.
func (in *injector) plugOn(sw fabric.NodeID, hca bool) (fabric.PortRef, fabric.PortRef, bool) {
	n := in.plan.Node(sw)
	for range tries {
		p := fabric.PortRef{Node: sw, Port: 1 + in.rng.IntN(n.Ports)}
		x, ok := in.cab.Peer(p)
		if !ok || in.hold[p] || in.hold[x] || in.isSwitch(x.Node) == hca {
			continue
		}
		if !in.compound && (in.used[p] || in.used[x] || !in.cab.AsPlanned(p)) {
			continue
		}
		return p, x, true
	}
	return fabric.PortRef{}, fabric.PortRef{}, false
}

// anyPlug is plugOn on a random switch for which pred holds.
//
// In compound mode, half the picks first try the plugs earlier faults
// changed, so that faults pile up on the same cables.
func (in *injector) anyPlug(hca bool, pred func(fabric.NodeID) bool) (fabric.PortRef, fabric.PortRef, bool) {
	if in.compound && len(in.usedOrder) > 0 && in.rng.IntN(2) == 0 {
		for range tries {
			p := in.usedOrder[in.rng.IntN(len(in.usedOrder))]
			if x, ok := in.cab.Peer(p); ok && in.isSwitch(p.Node) && !in.missing[p.Node] && (pred == nil || pred(p.Node)) &&
				!in.hold[p] && !in.hold[x] && in.isSwitch(x.Node) != hca {
				return p, x, true
			}
		}
	}
	for range tries {
		sw := in.switches[in.rng.IntN(len(in.switches))]
		if in.missing[sw] || (pred != nil && !pred(sw)) {
			continue
		}
		if p, x, ok := in.plugOn(sw, hca); ok {
			return p, x, true
		}
	}
	return fabric.PortRef{}, fabric.PortRef{}, false
}

// freePort picks a port of sw that the plan leaves empty and nothing uses.
func (in *injector) freePort(sw fabric.NodeID) (fabric.PortRef, bool) {
	if in.missing[sw] {
		return fabric.PortRef{}, false
	}
	n := in.plan.Node(sw)
	for range tries {
		p := fabric.PortRef{Node: sw, Port: 1 + in.rng.IntN(n.Ports)}
		if _, planned := in.plan.Peer(p); planned || in.used[p] {
			continue
		}
		if _, plugged := in.cab.Peer(p); plugged {
			continue
		}
		return p, true
	}
	return fabric.PortRef{}, false
}

func (in *injector) randomSwitch(pred func(fabric.NodeID) bool) (fabric.NodeID, bool) {
	for range tries {
		sw := in.switches[in.rng.IntN(len(in.switches))]
		if !in.missing[sw] && (pred == nil || pred(sw)) {
			return sw, true
		}
	}
	return 0, false
}

func (in *injector) use(ps ...fabric.PortRef) {
	for _, p := range ps {
		if !in.used[p] {
			in.usedOrder = append(in.usedOrder, p)
		}
		in.used[p] = true
	}
}

func (in *injector) apply(s Step) {
	if err := in.cab.Apply(s); err != nil {
		panic("wiringfaults: injector broke its own precondition: " + err.Error())
	}
}

// inject applies one fault of kind k, or reports that the fabric has no
// room left for it.
func (in *injector) inject(k Kind) (Fault, bool) {
	switch k {
	case ExchangeOnSwitch, ExchangeInRack, ExchangeAcrossRacks, HCAExchangeOnSwitch, HCAExchangeAcross:
		return in.exchange(k)
	case Rotation:
		return in.rotation()
	case MoveToFreePort, MoveToOtherSwitch:
		return in.move(k)
	case MissingCable, MissingHCACable:
		a, b, ok := in.anyPlug(k == MissingHCACable, nil)
		if !ok {
			return Fault{}, false
		}
		in.use(a, b)
		in.apply(Step{Remove, a, b})
		return Fault{k, []Step{{Connect, a, b}}}, true
	case ExtraCable:
		return in.extra()
	case WrongPair:
		return in.wrongPair()
	case MissingSwitch:
		return in.missingSwitch()
	case Degraded:
		return in.degrade()
	case HostSetsExchanged:
		return in.hostSets()
	}
	return Fault{}, false
}

// hostSets trades every host plug of one switch with the host plug in the
// same port of another switch — the host cables of two switches swapped
// wholesale, each switch keeping its switch cables. Both switches must have
// hosts on the same ports, each cable as planned and untouched.
func (in *injector) hostSets() (Fault, bool) {
	hosts := func(sw fabric.NodeID) []fabric.PortRef {
		var out []fabric.PortRef
		for q := 1; q <= in.plan.Ports(sw); q++ {
			p := fabric.PortRef{Node: sw, Port: q}
			if x, ok := in.plan.Peer(p); ok && !in.isSwitch(x.Node) {
				out = append(out, p)
			}
		}
		return out
	}
	fresh := func(ps []fabric.PortRef) bool {
		for _, p := range ps {
			x, ok := in.cab.Peer(p)
			if !ok || in.used[p] || in.used[x] || !in.cab.AsPlanned(p) {
				return false
			}
		}
		return len(ps) > 0
	}
	for range tries {
		a, okA := in.randomSwitch(func(sw fabric.NodeID) bool { return fresh(hosts(sw)) })
		b, okB := in.randomSwitch(func(sw fabric.NodeID) bool {
			return sw != a && fresh(hosts(sw)) && slices.EqualFunc(hosts(sw), hosts(a), func(x, y fabric.PortRef) bool { return x.Port == y.Port })
		})
		if !okA || !okB {
			continue
		}
		var undo []Step
		for i, pa := range hosts(a) {
			pb := hosts(b)[i]
			xa, _ := in.cab.Peer(pa)
			xb, _ := in.cab.Peer(pb)
			in.use(pa, pb, xa, xb)
			in.apply(Step{Exchange, pa, pb})
			undo = append(undo, Step{Exchange, pa, pb})
		}
		return Fault{HostSetsExchanged, undo}, true
	}
	return Fault{}, false
}

// exchange trades the plugs of two cables: on one switch, between switches
// of one rack or of two racks; switch-switch cables or HCA cables.
func (in *injector) exchange(k Kind) (Fault, bool) {
	hca := k == HCAExchangeOnSwitch || k == HCAExchangeAcross
	for range tries {
		a, x, ok := in.anyPlug(hca, nil)
		if !ok {
			return Fault{}, false
		}
		var other func(fabric.NodeID) bool
		switch k {
		case ExchangeOnSwitch, HCAExchangeOnSwitch:
			other = func(n fabric.NodeID) bool { return n == a.Node }
		case ExchangeInRack:
			other = func(n fabric.NodeID) bool { return n != a.Node && in.rack(n) == in.rack(a.Node) }
		case ExchangeAcrossRacks:
			other = func(n fabric.NodeID) bool { return in.rack(n) != in.rack(a.Node) }
		case HCAExchangeAcross:
			other = func(n fabric.NodeID) bool { return n != a.Node }
		}
		in.hold[a], in.hold[x] = true, true // keep the second pick off this cable
		b, y, ok := in.anyPlug(hca, other)
		clear(in.hold)
		// after the exchange a holds y and b holds x: no cable may join a
		// switch to itself
		if !ok || y.Node == a.Node || x.Node == b.Node {
			continue
		}
		in.use(a, x, b, y)
		in.apply(Step{Exchange, a, b})
		return Fault{k, []Step{{Exchange, a, b}}}, true
	}
	return Fault{}, false
}

// rotation moves k = 3..5 plugs one place on: the plug of a[i] goes to
// a[i-1], so a[i] holds the far end of a[i+1]. Half the rotations stay on
// one switch, the others span random switches; plugs are of either kind.
func (in *injector) rotation() (Fault, bool) {
	k := 3 + in.rng.IntN(3)
	oneSwitch := in.rng.IntN(2) == 0
	for range tries {
		var a, x []fabric.PortRef
		var pred func(fabric.NodeID) bool
		for len(a) < k {
			p, q, ok := in.anyPlug(in.rng.IntN(3) == 0, pred)
			if !ok {
				break
			}
			a, x = append(a, p), append(x, q)
			in.hold[p], in.hold[q] = true, true
			if oneSwitch {
				sw := p.Node
				pred = func(n fabric.NodeID) bool { return n == sw }
			}
		}
		clear(in.hold)
		bad := len(a) < k
		for i := range a {
			bad = bad || x[(i+1)%len(a)].Node == a[i].Node
		}
		if bad {
			continue
		}
		in.use(a...)
		in.use(x...)
		// Physical result: a[i] – x[i+1]. Exchanging a[0] with a[1], then
		// with a[2], … puts every plug back, in this order only.
		rates := make([]rate, k) // a cable keeps its rate wherever it goes
		for i := range a {
			rates[i] = in.cab.ports[a[i].Node][a[i].Port].rate
			in.cab.unplug(a[i])
		}
		for i := range a {
			in.cab.plug(a[i], x[(i+1)%k], rates[(i+1)%k])
		}
		f := Fault{Kind: Rotation}
		for i := 1; i < k; i++ {
			f.Undo = append(f.Undo, Step{Exchange, a[0], a[i]})
		}
		return f, true
	}
	return Fault{}, false
}

// move puts the plug of a cable (switch-switch or HCA) into a free port of
// the same switch or of another one.
func (in *injector) move(k Kind) (Fault, bool) {
	for range tries {
		a, x, ok := in.anyPlug(in.rng.IntN(2) == 0, nil)
		if !ok {
			return Fault{}, false
		}
		sw := a.Node
		if k == MoveToOtherSwitch {
			if sw, ok = in.randomSwitch(func(n fabric.NodeID) bool { return n != a.Node && n != x.Node }); !ok {
				continue
			}
		}
		b, ok := in.freePort(sw)
		if !ok {
			continue
		}
		in.use(a, x, b)
		in.apply(Step{Move, a, b})
		return Fault{k, []Step{{Move, b, a}}}, true
	}
	return Fault{}, false
}

func (in *injector) extra() (Fault, bool) {
	for range tries {
		s, _ := in.randomSwitch(nil)
		t, ok := in.randomSwitch(func(n fabric.NodeID) bool { return n != s })
		if !ok {
			continue
		}
		a, ok1 := in.freePort(s)
		b, ok2 := in.freePort(t)
		if !ok1 || !ok2 {
			continue
		}
		in.use(a, b)
		in.apply(Step{Connect, a, b})
		return Fault{ExtraCable, []Step{{Remove, a, b}}}, true
	}
	return Fault{}, false
}

// wrongPair takes a planned switch-switch cable out and plugs it between
// free ports of two other switches.
func (in *injector) wrongPair() (Fault, bool) {
	for range tries {
		a, b, ok := in.anyPlug(false, nil)
		if !ok {
			return Fault{}, false
		}
		other := func(n fabric.NodeID) bool { return n != a.Node && n != b.Node }
		s, ok1 := in.randomSwitch(other)
		t, ok2 := in.randomSwitch(func(n fabric.NodeID) bool { return other(n) && n != s })
		if !ok1 || !ok2 {
			continue
		}
		c, ok1 := in.freePort(s)
		d, ok2 := in.freePort(t)
		if !ok1 || !ok2 {
			continue
		}
		in.use(a, b, c, d)
		in.apply(Step{Remove, a, b})
		in.apply(Step{Connect, c, d})
		return Fault{WrongPair, []Step{{Remove, c, d}, {Connect, a, b}}}, true
	}
	return Fault{}, false
}

// missingSwitch unplugs every cable of a switch none of whose ports, nor
// their far ends, another fault used.
func (in *injector) missingSwitch() (Fault, bool) {
	for range tries {
		sw, _ := in.randomSwitch(nil)
		var ends [][2]fabric.PortRef
		clean := true
		for p := 1; p <= in.plan.Node(sw).Ports; p++ {
			a := fabric.PortRef{Node: sw, Port: p}
			x, plugged := in.cab.Peer(a)
			clean = clean && !in.used[a] && in.cab.AsPlanned(a) && !(plugged && in.used[x])
			if plugged {
				ends = append(ends, [2]fabric.PortRef{a, x})
			}
		}
		if !clean {
			continue
		}
		f := Fault{Kind: MissingSwitch}
		for p := 1; p <= in.plan.Node(sw).Ports; p++ {
			in.use(fabric.PortRef{Node: sw, Port: p})
		}
		for _, e := range ends {
			in.use(e[1])
			in.apply(Step{Remove, e[0], e[1]})
			f.Undo = append(f.Undo, Step{Connect, e[0], e[1]})
		}
		in.missing[sw] = true
		return f, true
	}
	return Fault{}, false
}

// degradedRates are the rates a 4xQDR cable may train at instead, all of
// them simulated by ibsim.
var degradedRates = []rate{{fabric.Width1x, fabric.QDR}, {fabric.Width4x, fabric.SDR}, {fabric.Width4x, fabric.DDR}, {fabric.Width1x, fabric.SDR}}

// A cable can only be seen to train slower than planned when the plan gives a
// rate; the degraded rate is below it in width or speed and above in neither.
func (in *injector) degrade() (Fault, bool) {
	var slower []rate
	for _, r := range degradedRates {
		if r.Width <= in.nominal.Width && r.Speed <= in.nominal.Speed && r != in.nominal {
			slower = append(slower, r)
		}
	}
	a, x, ok := in.anyPlug(in.rng.IntN(3) == 0, nil)
	for range tries {
		if !ok || !in.cab.Degraded(a) {
			break
		}
		a, x, ok = in.anyPlug(in.rng.IntN(3) == 0, nil)
	}
	if !ok || len(slower) == 0 || in.cab.Degraded(a) {
		return Fault{}, false
	}
	in.use(a, x)
	r := slower[in.rng.IntN(len(slower))]
	in.cab.unplug(a)
	in.cab.plug(a, x, r)
	return Fault{Degraded, []Step{{Replace, a, x}}}, true
}
