// Package analysis measures layered routings: path lengths, link-disjoint
// paths per pair beside the most the graph allows within the length bounds
// (the ceiling, ceiling.go), edge forwarding index, and link loads under
// traffic patterns and every shift permutation. It works on forwarding tables, so slimroute's routings and the
// LFT dumps of OpenSM's engines are measured by the same code.
package analysis

import (
	"fmt"
	"math/bits"
	"sort"

	"slimroute/fabric"
	"slimroute/lft"
)

// view is a layered, destination-based routing seen through its
// forwarding tables. Switches are numbered 0..numSwitches−1 and endpoints
// (cabled HCA ports, in rank order) 0..numEndpoints−1; channels are
// directed inter-switch cables, 0..numChannels−1.
// lft[s][layer*N + d] is the egress port of switch s toward endpoint d at
// LID offset layer (0 = no entry).
type view struct {
	f      *fabric.Fabric
	v      *fabric.SwitchView
	layers int
	eps    []fabric.PortRef
	epSw   []int
	chOff  []int
	portCh []map[int]int // per switch: port -> channel index in v.Adj
	bases  []lft.LID     // per endpoint: its base LID
	lft    [][]uint8
}

// newLayout lays out the switches, channels and endpoints of f; the
// tables themselves come with allocate.
func newLayout(f *fabric.Fabric) *view {
	v := f.SwitchView()
	t := &view{f: f, v: v}
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

// newView reads the forwarding tables of t for the given number of layers:
// an endpoint's LID base+k is layer k. layers 0 takes 2^LMC of the
// endpoint with the most LIDs.
func newView(t *lft.Tables, layers int) (*view, error) {
	f := t.Fabric()
	v := newLayout(f)
	bases := make([]lft.LID, len(v.eps))
	lids := make([]int, len(v.eps))
	span := 1
	for d, ep := range v.eps {
		p, ok := t.LIDs().Of(ep)
		if !ok {
			return nil, fmt.Errorf("%s (port GUID %s) holds no LID in the tables", f.PortString(ep), f.Node(ep.Node).PortGUID(ep.Port))
		}
		bases[d], lids[d] = p.Base, 1<<p.LMC
		span = max(span, 1<<p.LMC)
	}
	asked := layers
	if layers == 0 {
		layers = 1 << bits.Len(uint(span-1))
	}
	for d := range v.eps {
		if lids[d] != layers && (asked != 0 || lids[d] < layers) {
			return nil, &LayersError{Asked: asked, Endpoint: f.PortString(v.eps[d]), LIDs: lids[d], Most: span}
		}
	}
	v.layers = layers
	v.bases = bases
	N := len(v.eps)
	v.lft = make([][]uint8, len(v.v.IDs))
	for s, sw := range v.v.IDs {
		v.lft[s] = make([]uint8, layers*N)
		for k := 0; k < layers; k++ {
			for d := range v.eps {
				if port := t.Port(sw, bases[d]+lft.LID(k)); port != lft.Drop {
					v.lft[s][k*N+d] = port
				}
			}
		}
	}
	return v, nil
}

// A LayersError says that the layers asked for are not the LIDs the
// tables give an endpoint: layer k of a destination is its LID base+k, so
// every endpoint needs one LID per layer and no more.
type LayersError struct {
	Asked    int    // layers asked for; 0 for as many as the most LIDs
	Endpoint string // an endpoint holding another number of LIDs
	LIDs     int    // the LIDs it holds
	Most     int    // the most LIDs an endpoint holds
}

func (e *LayersError) Error() string {
	if e.Asked == 0 {
		return fmt.Sprintf("%s holds %d LIDs where others hold %d: the tables route fewer layers to it", e.Endpoint, e.LIDs, e.Most)
	}
	return fmt.Sprintf("%d layers asked for, but the tables give %s %d LIDs, one per layer", e.Asked, e.Endpoint, e.LIDs)
}

// A NoEntryError says that a switch's table has no entry for a LID that
// a path of the routing reaches: the tables leave it unrouted there.
type NoEntryError struct {
	Switch   string
	GUID     fabric.GUID
	LID      lft.LID
	Endpoint string // the LID's owner
	Layer    int    // the LID's offset in its owner's range
}

func (e *NoEntryError) Error() string {
	return fmt.Sprintf("the table of %s (%s) has no entry for LID 0x%04x (%s, layer %d)", e.Switch, e.GUID, e.LID, e.Endpoint, e.Layer)
}

func (t *view) NumLayers() int    { return t.layers }
func (t *view) NumSwitches() int  { return len(t.v.IDs) }
func (t *view) NumEndpoints() int { return len(t.eps) }
func (t *view) NumChannels() int  { return t.chOff[len(t.v.IDs)] }
func (t *view) Endpoint(d int) (fabric.PortRef, int) {
	return t.eps[d], t.epSw[d]
}

func (t *view) Step(layer, s, d int) (int, int, bool, error) {
	p := int(t.lft[s][layer*len(t.eps)+d])
	sw := t.f.Node(t.v.IDs[s])
	if p == 0 {
		return 0, 0, false, &NoEntryError{Switch: sw.Name, GUID: sw.GUID, LID: t.bases[d] + lft.LID(layer), Endpoint: t.f.PortString(t.eps[d]), Layer: layer}
	}
	if i, ok := t.portCh[s][p]; ok {
		return t.chOff[s] + i, t.v.Adj[s][i].Peer, false, nil
	}
	if peer, ok := t.f.Peer(fabric.PortRef{Node: t.v.IDs[s], Port: p}); ok && peer == t.eps[d] {
		return 0, s, true, nil
	}
	return 0, 0, false, fmt.Errorf("%s sends %s (LID offset %d) out of port %d, which does not lead toward it", sw.Name, t.f.PortString(t.eps[d]), layer, p)
}

func (t *view) SwitchName(s int) string { return t.f.Node(t.v.IDs[s]).Name }

func (t *view) ChannelName(ch int) string {
	s := sort.Search(len(t.chOff), func(i int) bool { return t.chOff[i] > ch }) - 1
	c := t.v.Adj[s][ch-t.chOff[s]]
	return fmt.Sprintf("%s[%d] -> %s[%d]", t.f.Node(t.v.IDs[s]).Name, c.Port, t.f.Node(t.v.IDs[c.Peer]).Name, c.PeerPort)
}
