package layers

import (
	"errors"
	"fmt"

	"slimroute/internal/laps"

	"slimroute/fabric"
)

// Next-hop table entries: a channel index into the switch's usable
// channels (0..252), or one of these.
const (
	hopNone  = 0xFF // no route (never left in a finished routing)
	hopLocal = 0xFE // the destination hangs off (or is) this switch
)

// Routing is the result of Compute: for every layer, destination and
// switch, the next hop.
type Routing struct {
	Fabric *fabric.Fabric
	// Bounds are the path-length bounds used for layers ≥ 1.
	Bounds Bounds
	// Stats describe each layer.
	Stats []LayerStats
	// Trees is the number of trees per destination switch in layers ≥ 1
	// (Options.Trees resolved; -1: one per endpoint).
	Trees int
	// Unattached lists HCA ports whose only cable is avoided: they are not
	// destinations.
	Unattached []fabric.PortRef
	g          *graph
	layers     int
	next       [][]uint8 // [layer][dest*S + switch]; layers ≥ 1 hold endpoints only
	// share[d] is the endpoint whose layer-≥1 trees endpoint d shares (the
	// first of its group), d itself when it has its own
	share []int
	// fatTree: routed by the fat-tree construction (see fattree.go)
	fatTree bool
	// template: the tables of the Options.Template it was computed with,
	// as they are (see OfTemplate)
	template *Template
	// Traffic says what the traffic pass did (Options.Traffic), nil when
	// it did not run.
	Traffic *TrafficStats
	// Passes lists the passes Compute ran, in order, with their times
	// (zero without Options.Clock).
	Passes []laps.Lap
	// dfGroup, dfLeaf: a Dragonfly+ routed group pair by group pair
	// (dragonflyplus.go): per switch index its group and whether it is a
	// leaf; nil otherwise
	dfGroup []int32
	dfLeaf  []bool
}

// DragonflyPlus returns, when the routing was built for a Dragonfly+ group
// pair by group pair (dragonflyplus.go), every switch's group and whether
// it is a leaf, by switch index; ok is false otherwise.
func (r *Routing) DragonflyPlus() (group []int32, leaf []bool, ok bool) {
	return r.dfGroup, r.dfLeaf, r.dfGroup != nil
}

// LayerStats summarises one layer.
type LayerStats struct {
	Layer int `json:"layer"`
	// Pairs counts (source switch with endpoints, destination endpoint)
	// pairs on different switches.
	Pairs int `json:"pairs"`
	// InBounds counts those whose path length lies within the bounds
	// (layer 0: all, being minimal); Fallback the rest, which got the
	// shortest route consistent with the layer's other paths.
	InBounds int `json:"in_bounds"`
	Fallback int `json:"fallback"`
	// Lengths[h] counts pairs whose path has h switch-to-switch hops.
	Lengths []int `json:"lengths"`
}

// OfTemplate tells whether r's tables are t's as they are: t fitted the
// fabric (Options.Template) and no pass changed them since. r then has
// t's routes in every layer, switch index for switch index.
func (r *Routing) OfTemplate(t *Template) bool { return t != nil && r.template == t }

// NumLayers returns the number of layers.
func (r *Routing) NumLayers() int { return r.layers }

// NumSwitches returns the number of switches; switch indices are 0..n−1 in
// NodeID order.
func (r *Routing) NumSwitches() int { return len(r.g.ids) }

// SwitchIndex returns the switch index of node id, or -1 for an HCA.
func (r *Routing) SwitchIndex(id fabric.NodeID) int { return r.g.index[id] }

// SwitchID returns the node of switch index s.
func (r *Routing) SwitchID(s int) fabric.NodeID { return r.g.ids[s] }

// Dests returns the destinations: the endpoints (0..NumEndpoints−1) in
// routing order, then one per switch. The slice must not be modified.
func (r *Routing) Dests() []Dest { return r.g.dests }

// NumDests returns the number of destinations: endpoints and switches.
func (r *Routing) NumDests() int { return len(r.g.dests) }

// DestPort returns the port of destination d: a cabled HCA port, or a
// switch's port 0.
func (r *Routing) DestPort(d int) fabric.PortRef { return r.g.dests[d].Port }

// DestSwitch returns the switch index destination d hangs off (or is).
func (r *Routing) DestSwitch(d int) int { return r.g.dests[d].Switch }

// NextPorts writes the egress port of every switch toward destination d
// in a layer into out (one per switch index): NextPort for all switches
// at once.
func (r *Routing) NextPorts(layer, d int, out []uint8) {
	for s := range out {
		out[s] = uint8(r.NextPort(layer, s, d))
	}
}

// NumEndpoints returns the number of endpoint destinations.
func (r *Routing) NumEndpoints() int { return r.g.nEP }

// Channels returns the usable inter-switch channels of switch s, the
// channel indices Hop refers to. The slice must not be modified.
func (r *Routing) Channels(s int) []fabric.Channel { return r.g.adj[s] }

func (r *Routing) entry(layer, s, d int) uint8 {
	if layer > 0 && d >= r.g.nEP {
		layer = 0 // switch destinations own one LID: layer 0 only
	}
	return r.next[layer][d*len(r.g.ids)+s]
}

// Hop returns the next hop of switch s toward destination d in a layer: the
// channel to take, or local=true when d hangs off (or is) s.
func (r *Routing) Hop(layer, s, d int) (c fabric.Channel, local bool) {
	_, c, local = r.HopChannel(layer, s, d)
	return c, local
}

// HopChannel is Hop with the channel's global id (see ChannelID).
func (r *Routing) HopChannel(layer, s, d int) (id int, c fabric.Channel, local bool) {
	e := r.entry(layer, s, d)
	if e == hopLocal {
		return 0, fabric.Channel{}, true
	}
	return r.g.chOff[s] + int(e), r.g.adj[s][e], false
}

// SharedWith returns the endpoint destination whose trees endpoint d
// follows in layers ≥ 1 (see Options.Trees): d itself, or the first
// endpoint of its group, which comes before it. A switch destination
// shares nothing.
func (r *Routing) SharedWith(d int) int {
	if d >= len(r.share) {
		return d
	}
	return r.share[d]
}

// NextSwitch returns the switch index the next hop of switch s toward
// destination d leads to in a layer, or -1 when d hangs off (or is) s: Hop
// for the hot loops of the VL assigners.
func (r *Routing) NextSwitch(layer, s, d int) int {
	e := r.entry(layer, s, d)
	if e == hopLocal || e == hopNone {
		return -1
	}
	return int(r.g.peer[r.g.chOff[s]+int(e)])
}

// NextPort returns the egress port of switch s toward destination d in a
// layer: an inter-switch port, the port facing d's HCA when d hangs off s,
// or 0 when d is s itself.
func (r *Routing) NextPort(layer, s, d int) int {
	c, local := r.Hop(layer, s, d)
	if local {
		return r.g.dests[d].SwitchPort
	}
	return c.Port
}

// ErrLoop reports a forwarding loop; a finished routing never has one.
var ErrLoop = errors.New("forwarding loop")

// Path returns the switches a packet from switch s to destination d visits
// in a layer, s first and d's switch last.
func (r *Routing) Path(layer, s, d int) ([]int, error) {
	path := []int{s}
	err := r.walk(layer, s, d, func(x, e int) { path = append(path, r.g.adj[x][e].Peer) })
	return path, err
}

// PathChannels is Path as global channel ids (see ChannelID), for metrics.
func (r *Routing) PathChannels(layer, s, d int, buf []int) ([]int, error) {
	buf = buf[:0]
	err := r.walk(layer, s, d, func(x, e int) { buf = append(buf, r.g.chOff[x]+e) })
	return buf, err
}

// walk follows the layer's next hops from switch s toward d, calling hop
// with each switch and the channel index it takes.
func (r *Routing) walk(layer, s, d int, hop func(x, e int)) error {
	for x, steps := s, 0; ; steps++ {
		e := r.entry(layer, x, d)
		switch {
		case e == hopLocal:
			return nil
		case e == hopNone:
			return fmt.Errorf("layer %d: no route from %s to %s", layer, r.switchName(x), r.DestName(d))
		case steps >= len(r.g.ids):
			return fmt.Errorf("layer %d, %s to %s: %w", layer, r.switchName(s), r.DestName(d), ErrLoop)
		}
		hop(x, int(e))
		x = r.g.adj[x][e].Peer
	}
}

// NumChannels returns the number of usable directed inter-switch channels.
func (r *Routing) NumChannels() int { return r.g.chOff[len(r.g.ids)] }

// ChannelID numbers channel i of switch s globally, 0..NumChannels−1.
func (r *Routing) ChannelID(s, i int) int { return r.g.chOff[s] + i }

// ChannelAt inverts ChannelID.
func (r *Routing) ChannelAt(id int) (s int, c fabric.Channel) {
	lo, hi := 0, len(r.g.ids)
	for lo+1 < hi {
		m := (lo + hi) / 2
		if r.g.chOff[m] <= id {
			lo = m
		} else {
			hi = m
		}
	}
	return lo, r.g.adj[lo][id-r.g.chOff[lo]]
}

// Hosts returns the number of endpoints attached to switch s.
func (r *Routing) Hosts(s int) int { return r.g.hosts[s] }

func (r *Routing) switchName(s int) string { return r.g.f.Node(r.g.ids[s]).Name }

// DestName names destination d: "hca-0-1-2-3[1]" or a switch name.
func (r *Routing) DestName(d int) string {
	p := r.g.dests[d].Port
	if p.Port == 0 {
		return r.g.f.Node(p.Node).Name
	}
	return r.g.f.PortString(p)
}
