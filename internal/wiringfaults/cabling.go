// Package wiringfaults breaks planned fabrics the way installers do and
// judges what a wiring checker says about them.
//
// Generate takes a plan and a seed and returns a Case: the true physical
// cabling after 0 to 10 faults (plugs exchanged, rotated or moved, cables
// missing, extra or between the wrong pair, a switch missing, a link that
// trains degraded), what ibnetdiscover would see of it in one of three
// naming modes, and which discovered node is which planned one. Judge
// replays a checker's report, read as JSON, on that truth and checks the
// invariant of /work/contract-issue12.md (the contract between the checker
// and this package): the actions are legal, they restore exactly the plan,
// they leave as-planned ports alone, the counts and Clean agree with the
// truth, and every touched node is named.
//
// The package shares no types with the checker on purpose: it reads the
// checker's report only through its JSON.
package wiringfaults

import (
	"fmt"

	"slimroute/fabric"
)

// Op is a physical step on the cabling, as the contract names them.
type Op string

// The physical steps of the contract.
const (
	Exchange Op = "exchange" // the plugs in A and B trade places
	Move     Op = "move"     // the plug in A goes to the empty port B
	Connect  Op = "connect"  // a new cable between the empty ports A and B
	Remove   Op = "remove"   // the cable between A and B is taken out
	Replace  Op = "replace"  // the cable between A and B is swapped for a good one
)

// Step is one physical step on plan ports.
type Step struct {
	Op   Op
	A, B fabric.PortRef
}

// slot is what one physical port holds.
type slot struct {
	plugged bool
	peer    fabric.PortRef
	// rate is the rate the cable in this port trains at; a zero Width and
	// Speed mean "the planned rate". Both ends of a cable carry the same.
	rate rate
}

type rate struct {
	Width fabric.Width
	Speed fabric.Speed
}

func (r rate) degraded() bool { return r != rate{} }

// Cabling is the physical state of a fabric: which port's plug goes where,
// and which cables train below their planned rate. Nodes and ports are
// those of the plan: every planned node exists physically, discovered or
// not. The zero value is not usable; see NewCabling.
type Cabling struct {
	plan  *fabric.Fabric
	ports [][]slot // per plan node, per port number (index 0 unused)
}

// NewCabling returns the cabling of plan exactly as planned.
func NewCabling(plan *fabric.Fabric) *Cabling {
	c := &Cabling{plan: plan, ports: make([][]slot, plan.NumNodes())}
	for i, n := range plan.Nodes() {
		c.ports[i] = make([]slot, n.Ports+1)
	}
	for _, l := range plan.Links() {
		c.plug(l.A, l.B, rate{})
	}
	return c
}

// Clone returns an independent copy of c.
func (c *Cabling) Clone() *Cabling {
	d := &Cabling{plan: c.plan, ports: make([][]slot, len(c.ports))}
	for i := range c.ports {
		d.ports[i] = append([]slot(nil), c.ports[i]...)
	}
	return d
}

// Peer returns the port at the far end of the cable plugged into p.
func (c *Cabling) Peer(p fabric.PortRef) (fabric.PortRef, bool) {
	if !c.valid(p) || !c.ports[p.Node][p.Port].plugged {
		return fabric.PortRef{}, false
	}
	return c.ports[p.Node][p.Port].peer, true
}

// Degraded reports whether the cable in p trains below its planned rate.
func (c *Cabling) Degraded(p fabric.PortRef) bool {
	return c.valid(p) && c.ports[p.Node][p.Port].plugged && c.ports[p.Node][p.Port].rate.degraded()
}

// AsPlanned reports whether port p holds exactly what the plan puts there:
// the planned peer on a cable that is not degraded, or nothing when the
// plan leaves it empty.
func (c *Cabling) AsPlanned(p fabric.PortRef) bool {
	want, planned := c.plan.Peer(p)
	got, plugged := c.Peer(p)
	if !planned || !plugged {
		return planned == plugged
	}
	return got == want && !c.Degraded(p)
}

// Apply performs one step, or explains why it is not possible in the
// current state (a port that must hold a plug is empty, or the reverse).
func (c *Cabling) Apply(s Step) error {
	for _, p := range [2]fabric.PortRef{s.A, s.B} {
		if !c.valid(p) {
			return fmt.Errorf("port %s does not exist in the plan", c.name(p))
		}
	}
	if s.A == s.B {
		return fmt.Errorf("both ends are %s", c.name(s.A))
	}
	a, b := &c.ports[s.A.Node][s.A.Port], &c.ports[s.B.Node][s.B.Port]
	switch s.Op {
	case Exchange:
		if !a.plugged || !b.plugged {
			return c.needs(s, "hold a plug", !a.plugged, !b.plugged)
		}
		if a.peer == s.B {
			return nil // the two ends of one cable: trading them changes nothing
		}
		x, y, ra, rb := a.peer, b.peer, a.rate, b.rate
		c.unplug(s.A)
		c.unplug(s.B)
		c.plug(s.A, y, rb)
		c.plug(s.B, x, ra)
	case Move:
		if !a.plugged || b.plugged {
			return c.needs(s, "hold a plug (A) and be empty (B)", !a.plugged, b.plugged)
		}
		x, r := a.peer, a.rate
		c.unplug(s.A)
		c.plug(s.B, x, r)
	case Connect:
		if a.plugged || b.plugged {
			return c.needs(s, "be empty", a.plugged, b.plugged)
		}
		c.plug(s.A, s.B, rate{})
	case Remove, Replace:
		if !a.plugged || a.peer != s.B {
			return fmt.Errorf("%s %s %s: no cable joins these two ports (%s holds %s)", s.Op, c.name(s.A), c.name(s.B), c.name(s.A), c.holds(s.A))
		}
		c.unplug(s.A)
		if s.Op == Replace {
			c.plug(s.A, s.B, rate{})
		}
	default:
		return fmt.Errorf("unknown op %q: want exchange, move, connect, remove or replace", s.Op)
	}
	return nil
}

func (c *Cabling) needs(s Step, what string, badA, badB bool) error {
	var bad []string
	if badA {
		bad = append(bad, fmt.Sprintf("%s holds %s", c.name(s.A), c.holds(s.A)))
	}
	if badB {
		bad = append(bad, fmt.Sprintf("%s holds %s", c.name(s.B), c.holds(s.B)))
	}
	return fmt.Errorf("%s %s %s: both ports must %s, but %v", s.Op, c.name(s.A), c.name(s.B), what, bad)
}

func (c *Cabling) holds(p fabric.PortRef) string {
	q, ok := c.Peer(p)
	if !ok {
		return "nothing"
	}
	return "a cable to " + c.name(q)
}

func (c *Cabling) name(p fabric.PortRef) string {
	if p.Node < 0 || int(p.Node) >= c.plan.NumNodes() {
		return fmt.Sprintf("node#%d[%d]", p.Node, p.Port)
	}
	return fmt.Sprintf("%s[%d]", c.plan.Node(p.Node).Name, p.Port)
}

func (c *Cabling) valid(p fabric.PortRef) bool {
	return p.Node >= 0 && int(p.Node) < len(c.ports) && p.Port >= 1 && p.Port < len(c.ports[p.Node])
}

func (c *Cabling) plug(a, b fabric.PortRef, r rate) {
	c.ports[a.Node][a.Port] = slot{plugged: true, peer: b, rate: r}
	c.ports[b.Node][b.Port] = slot{plugged: true, peer: a, rate: r}
}

func (c *Cabling) unplug(a fabric.PortRef) {
	b := c.ports[a.Node][a.Port].peer
	c.ports[a.Node][a.Port] = slot{}
	c.ports[b.Node][b.Port] = slot{}
}

// eachPort calls fn for every port of every plan node, in plan order.
func (c *Cabling) eachPort(fn func(p fabric.PortRef)) {
	for n := range c.ports {
		for port := 1; port < len(c.ports[n]); port++ {
			fn(fabric.PortRef{Node: fabric.NodeID(n), Port: port})
		}
	}
}

// Diff returns the plan ports that are not as planned, in plan order.
func (c *Cabling) Diff() []fabric.PortRef {
	var out []fabric.PortRef
	c.eachPort(func(p fabric.PortRef) {
		if !c.AsPlanned(p) {
			out = append(out, p)
		}
	})
	return out
}

// CablesAsPlanned counts the planned cables that are present as planned.
func (c *Cabling) CablesAsPlanned() int {
	n := 0
	for _, l := range c.plan.Links() {
		if c.AsPlanned(l.A) && c.AsPlanned(l.B) {
			n++
		}
	}
	return n
}
