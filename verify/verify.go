// Package verify judges forwarding state: it follows every destination LID
// from every HCA port through the linear forwarding tables, with the path
// SL and the switches' SL-to-VL tables, and reports unreachable LIDs,
// loops, data mapped onto VL 15 (which switches drop), and cycles in the
// channel dependency graph (credit loops). It also follows every LID from
// every switch, so that a switch no HCA's path crosses still needs a
// working entry for every LID.
//
// It reads an lft.Tables value and nothing else — not the routing, not the
// VL assignment — so it judges slimroute's tables, OpenSM's dumps with
// SL2VL tables read back from switches, or anything in between alike, and
// it shares no code with what builds the tables: it depends on packages
// fabric and lft alone.
package verify

import (
	"fmt"
	"math/bits"
	"strings"

	"slimroute/fabric"
	"slimroute/lft"
)

// Report is the verdict of Check.
type Report struct {
	Sources      int `json:"sources"`      // HCA ports holding LIDs
	DLIDs        int `json:"dlids"`        // destination LIDs
	Walks        int `json:"walks"`        // (source group, DLID) paths followed (see Check)
	Channels     int `json:"channels"`     // (channel, VL) pairs in use
	Dependencies int `json:"dependencies"` // CDG edges
	VLs          int `json:"vls"`          // distinct VLs on inter-switch channels
	MaxVL        int `json:"max_vl"`       // the highest of them, -1 for none: switches must offer VLs 0..MaxVL
	// Cycle is one cycle of the CDG, nil when there is none.
	Cycle []CycleHop `json:"cycle,omitempty"`
}

// CycleHop is one channel of a CDG cycle: leaving Switch on Port on VL.
type CycleHop struct {
	Switch string `json:"switch"`
	Port   int    `json:"port"`
	VL     uint8  `json:"vl"`
}

// Acyclic reports whether the channel dependency graph has no cycle.
func (r *Report) Acyclic() bool { return r.Cycle == nil }

// CycleString renders the cycle as "sw-a[3] VL0 -> sw-b[7] VL0 -> … -> sw-a[3] VL0".
func (r *Report) CycleString() string {
	if r.Cycle == nil {
		return ""
	}
	parts := make([]string, 0, len(r.Cycle)+1)
	for _, h := range append(r.Cycle, r.Cycle[0]) {
		parts = append(parts, fmt.Sprintf("%s[%d] VL%d", h.Switch, h.Port, h.VL))
	}
	return strings.Join(parts, " -> ")
}

// maxProblems is how many problems an error lists.
const maxProblems = 10

// Check follows every destination LID from every HCA port that holds a
// LID, with the port's path SL toward it, through the forwarding tables;
// it fails if a cabled HCA port holds no LID, a LID is unreachable, a
// path loops, or a hop (the last, into the HCA, too) maps the path's SL
// onto VL 15. It follows every LID from every switch as well — a switch's
// own traffic is routed by its table, and every switch must reach every
// LID — for reachability and loops (those walks take no VLs). Each hop out of a switch onto another switch occupies the
// channel (switch, out port, VL), and consecutive channels of a path form
// a dependency; the report says whether the resulting CDG has a cycle, and
// shows one if so.
//
// Sources that enter the fabric alike are followed once: the same path-SL
// class, the same entry switch, and entry ports of one SL2VL class. That
// is exact, not a sample: such sources take the same channels on the same
// VLs to every LID. The DLIDs are taken switch by switch (the switch that
// delivers them), in units of work cut from the tables alone; within a
// unit, a DLID whose walks would repeat an earlier one's is skipped. Up to
// workers goroutines walk units (0 or 1: one); the report is the same for
// every value.
func Check(t *lft.Tables, workers int) (*Report, error) {
	lay := newLayout(t.Fabric())
	groups, problems := groupSources(t, lay)
	dlids := destinationLIDs(t)
	rep := &Report{DLIDs: len(dlids), MaxVL: -1}
	for _, g := range groups {
		rep.Sources += len(g.members)
	}
	if len(problems) > 0 {
		return rep, brokenError(problems)
	}
	ordered, bounds := chunkBySwitch(lay, t, dlids)
	res := walkAll(t, lay, newVLTables(t, lay), groups, ordered, bounds, workers)
	rep.Walks = res.walks
	if len(res.problems) > 0 {
		return rep, brokenError(res.problems)
	}
	for _, u := range res.used {
		if u {
			rep.Channels++
		}
	}
	rep.Dependencies, rep.VLs, rep.MaxVL = res.edges.count(), popcount(res.vls), bits.Len16(res.vls)-1
	for _, node := range res.edges.findCycle() {
		rep.Cycle = append(rep.Cycle, lay.cycleHop(t.Fabric(), node))
	}
	return rep, nil
}

// brokenError lists the distinct problems, in the order found (walks from
// many sources meet the same broken entry), at most maxProblems.
func brokenError(problems []string) error {
	var distinct []string
	seen := map[string]bool{}
	for _, p := range problems {
		if !seen[p] && len(distinct) < maxProblems {
			seen[p] = true
			distinct = append(distinct, p)
		}
	}
	return fmt.Errorf("the forwarding tables are broken: %s", strings.Join(distinct, "; "))
}

func popcount(v uint16) int {
	n := 0
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}

// destinationLIDs lists every LID of the LID plan, port by port.
func destinationLIDs(t *lft.Tables) []lft.LID {
	var out []lft.LID
	for _, pl := range t.LIDs().Ports() {
		for lid := pl.Base; lid <= pl.Top(); lid++ {
			out = append(out, lid)
		}
	}
	return out
}

// layout numbers the ports and the channels of a fabric densely: port p of
// node i is pOff[i]+p, and channel (switch i, port p) is chOff[i]+p.
type layout struct {
	pOff, chOff []int
	peer        []fabric.PortRef // per dense port: the port cabled to it, Node -1 if none
	switches    []fabric.NodeID
	swIndex     []int32 // per node: index in switches, -1 for an HCA
	maxPorts    int     // of a switch
	channels    int
}

func newLayout(f *fabric.Fabric) *layout {
	N := f.NumNodes()
	l := &layout{pOff: make([]int, N+1), chOff: make([]int, N+1), swIndex: make([]int32, N)}
	for i := 0; i < N; i++ {
		id := fabric.NodeID(i)
		ports := f.Ports(id)
		l.pOff[i+1] = l.pOff[i] + ports + 1
		w := 0
		l.swIndex[i] = -1
		if f.Kind(id) == fabric.Switch {
			w = ports + 1
			l.swIndex[i] = int32(len(l.switches))
			l.switches = append(l.switches, id)
			l.maxPorts = max(l.maxPorts, ports)
		}
		l.chOff[i+1] = l.chOff[i] + w
	}
	l.channels = l.chOff[N]
	l.peer = make([]fabric.PortRef, l.pOff[N])
	for i := range l.peer {
		l.peer[i].Node = -1
	}
	for i := 0; i < N; i++ {
		for port := 0; port <= f.Ports(fabric.NodeID(i)); port++ {
			if q, ok := f.Peer(fabric.PortRef{Node: fabric.NodeID(i), Port: port}); ok {
				l.peer[l.pOff[i]+port] = q
			}
		}
	}
	return l
}

// peerOf returns the port cabled to p, or Node -1.
func (l *layout) peerOf(p fabric.PortRef) fabric.PortRef {
	if p.Node < 0 || int(p.Node) >= len(l.pOff)-1 || p.Port < 0 || l.pOff[p.Node]+p.Port >= l.pOff[p.Node+1] {
		return fabric.PortRef{Node: -1}
	}
	return l.peer[l.pOff[p.Node]+p.Port]
}

// cycleHop names CDG node (channel*16 + VL).
func (l *layout) cycleHop(f *fabric.Fabric, node int32) CycleHop {
	ch, vl := int(node)/16, uint8(node%16)
	sw := 0
	for l.chOff[sw+1] <= ch {
		sw++
	}
	return CycleHop{Switch: f.Name(fabric.NodeID(sw)), Port: ch - l.chOff[sw], VL: vl}
}
