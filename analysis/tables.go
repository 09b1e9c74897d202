// Package analysis measures layered routings: path lengths, link-disjoint
// paths per pair, edge forwarding index, and link loads under traffic
// patterns. It works on forwarding tables, so slimroute's routings and the
// LFT dumps of OpenSM's engines are measured by the same code.
package analysis

import (
	"fmt"
	"sort"

	"slimroute/fabric"
	"slimroute/layers"
)

// Tables is a layered, destination-based routing seen through its
// forwarding tables. Switches are numbered 0..NumSwitches−1 and endpoints
// (cabled HCA ports) 0..NumEndpoints−1; channels are directed inter-switch
// cables, 0..NumChannels−1.
type Tables interface {
	NumLayers() int
	NumSwitches() int
	NumEndpoints() int
	NumChannels() int
	// Endpoint returns the HCA port of endpoint d and the switch it hangs off.
	Endpoint(d int) (port fabric.PortRef, sw int)
	// Step returns the channel switch s forwards on toward endpoint d in a
	// layer and the switch it reaches, or local=true when d hangs off s.
	Step(layer, s, d int) (ch, next int, local bool, err error)
	// ChannelName names a channel for people: "sw-0-1-2[7] -> sw-1-3-4[9]".
	ChannelName(ch int) string
}

// routingTables adapts a layers.Routing.
type routingTables struct{ r *layers.Routing }

// FromRouting returns the tables of a slimroute routing.
func FromRouting(r *layers.Routing) Tables { return routingTables{r} }

func (t routingTables) NumLayers() int    { return t.r.NumLayers() }
func (t routingTables) NumSwitches() int  { return t.r.NumSwitches() }
func (t routingTables) NumEndpoints() int { return t.r.NumEndpoints() }
func (t routingTables) NumChannels() int  { return t.r.NumChannels() }
func (t routingTables) Endpoint(d int) (fabric.PortRef, int) {
	dest := t.r.Dests()[d]
	return dest.Port, dest.Switch
}
func (t routingTables) Step(layer, s, d int) (int, int, bool, error) {
	id, c, local := t.r.HopChannel(layer, s, d)
	if local {
		return 0, s, true, nil
	}
	return id, c.Peer, false, nil
}
func (t routingTables) ChannelName(ch int) string {
	s, c := t.r.ChannelAt(ch)
	f := t.r.Fabric
	return fmt.Sprintf("%s[%d] -> %s[%d]", f.Node(t.r.SwitchID(s)).Name, c.Port, f.Node(t.r.SwitchID(c.Peer)).Name, c.PeerPort)
}

// fabricTables holds forwarding tables read from files, mapped onto a
// fabric: lft[s][layer*N + d] is the egress port of switch s toward
// endpoint d at LID offset layer (0 = no entry).
type fabricTables struct {
	f      *fabric.Fabric
	v      *fabric.SwitchView
	layers int
	eps    []fabric.PortRef
	epSw   []int
	chOff  []int
	portCh []map[int]int // per switch: port -> channel index in v.Adj
	lft    [][]uint8
}

// newFabricTables lays out the switches, channels and endpoints of f; the
// tables themselves come with allocate.
func newFabricTables(f *fabric.Fabric) *fabricTables {
	v := f.SwitchView()
	t := &fabricTables{f: f, v: v}
	t.chOff = make([]int, len(v.IDs)+1)
	t.portCh = make([]map[int]int, len(v.IDs))
	for s := range v.IDs {
		t.chOff[s+1] = t.chOff[s] + len(v.Adj[s])
		t.portCh[s] = map[int]int{}
		for i, c := range v.Adj[s] {
			t.portCh[s][c.Port] = i
		}
	}
	for s := range v.IDs {
		for _, ep := range v.Endpoints[s] {
			t.eps = append(t.eps, ep)
			t.epSw = append(t.epSw, s)
		}
	}
	// endpoints in fabric order (HCA node, then port): "rank order"
	idx := make([]int, len(t.eps))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		x, y := t.eps[idx[a]], t.eps[idx[b]]
		if x.Node != y.Node {
			return x.Node < y.Node
		}
		return x.Port < y.Port
	})
	eps, sws := make([]fabric.PortRef, len(idx)), make([]int, len(idx))
	for i, j := range idx {
		eps[i], sws[i] = t.eps[j], t.epSw[j]
	}
	t.eps, t.epSw = eps, sws
	return t
}

// allocate sizes the tables for the given number of layers.
func (t *fabricTables) allocate(layers int) {
	t.layers = layers
	t.lft = make([][]uint8, len(t.v.IDs))
	for s := range t.lft {
		t.lft[s] = make([]uint8, layers*len(t.eps))
	}
}

func (t *fabricTables) NumLayers() int    { return t.layers }
func (t *fabricTables) NumSwitches() int  { return len(t.v.IDs) }
func (t *fabricTables) NumEndpoints() int { return len(t.eps) }
func (t *fabricTables) NumChannels() int  { return t.chOff[len(t.v.IDs)] }
func (t *fabricTables) Endpoint(d int) (fabric.PortRef, int) {
	return t.eps[d], t.epSw[d]
}

func (t *fabricTables) Step(layer, s, d int) (int, int, bool, error) {
	p := int(t.lft[s][layer*len(t.eps)+d])
	sw := t.f.Node(t.v.IDs[s])
	if p == 0 {
		return 0, 0, false, fmt.Errorf("%s has no entry for %s at LID offset %d", sw.Name, t.f.PortString(t.eps[d]), layer)
	}
	if i, ok := t.portCh[s][p]; ok {
		return t.chOff[s] + i, t.v.Adj[s][i].Peer, false, nil
	}
	if peer, ok := t.f.Peer(fabric.PortRef{Node: t.v.IDs[s], Port: p}); ok && peer == t.eps[d] {
		return 0, s, true, nil
	}
	return 0, 0, false, fmt.Errorf("%s sends %s (LID offset %d) out of port %d, which does not lead toward it", sw.Name, t.f.PortString(t.eps[d]), layer, p)
}

func (t *fabricTables) ChannelName(ch int) string {
	s := sort.Search(len(t.chOff), func(i int) bool { return t.chOff[i] > ch }) - 1
	c := t.v.Adj[s][ch-t.chOff[s]]
	return fmt.Sprintf("%s[%d] -> %s[%d]", t.f.Node(t.v.IDs[s]).Name, c.Port, t.f.Node(t.v.IDs[c.Peer]).Name, c.PeerPort)
}
