package deadlock

import (
	"fmt"

	"slimroute/fabric"
	"slimroute/layers"
)

// Scheme names a VL assignment scheme.
type Scheme string

// The schemes.
const (
	SchemeNone   Scheme = "none"   // every route on SL 0 / VL 0
	SchemeDFSSSP Scheme = "dfsssp" // cycle breaking over virtual layers
	SchemeHops   Scheme = "hops"   // VL = hop index, for routes of ≤ 3 hops
)

// MaxSLs is the number of service levels InfiniBand has.
const MaxSLs = 16

// MaxVLs is the number of data VLs InfiniBand allows (VL 15 carries
// subnet management).
const MaxVLs = 15

// Options configure the assigners.
type Options struct {
	// VLs is the number of data VLs the switches offer (real switches: 2,
	// 4 or 8). Zero means 8.
	VLs int
	// BestEffort lets AssignDFSSSP finish when the VLs run out, leaving the
	// routes it could not separate on the last VL and listing them in
	// Assignment.OnCycle, instead of failing.
	BestEffort bool
}

func (o Options) withDefaults() (Options, error) {
	if o.VLs == 0 {
		o.VLs = 8
	}
	if o.VLs < 1 || o.VLs > MaxVLs {
		return o, fmt.Errorf("vls=%d: InfiniBand switches offer 1 to %d data VLs (commonly 2, 4 or 8)", o.VLs, MaxVLs)
	}
	return o, nil
}

// Assignment gives every route a service level, and every switch an
// SL-to-VL mapping per (in port, out port).
type Assignment struct {
	Scheme Scheme
	// VLs and SLs count the data VLs and the service levels in use.
	VLs, SLs int
	// Packing names how AssignDFSSSP packed the routes into VLs.
	Packing string
	// Needed is the number of VLs deadlock freedom needs; VLs may be more
	// when the scheme spreads routes over spare VLs.
	Needed int
	// Colors holds the switch colours of the hops scheme (by switch index).
	Colors []int
	// OnCycle describes, in best-effort mode, routes left on a cycle.
	OnCycle []string
	// RoutesOnCycle counts them (OnCycle lists at most 50).
	RoutesOnCycle int

	r   *layers.Routing
	sl  [][]uint8 // [layer][d*S + s]; layers ≥ 1 hold endpoints only
	hca [][]bool  // per NodeID, per port: cabled to an HCA (for the hops SL2VL rule)
}

func newAssignment(r *layers.Routing, scheme Scheme) *Assignment {
	a := &Assignment{Scheme: scheme, r: r, VLs: 1, SLs: 1}
	S := r.NumSwitches()
	a.sl = make([][]uint8, r.NumLayers())
	for k := range a.sl {
		n := r.NumEndpoints()
		if k == 0 {
			n = len(r.Dests())
		}
		a.sl[k] = make([]uint8, n*S)
	}
	f := r.Fabric
	a.hca = make([][]bool, f.NumNodes())
	for i := range a.hca {
		a.hca[i] = make([]bool, f.Node(fabric.NodeID(i)).Ports+1)
		for port := range a.hca[i] {
			peer, ok := f.Peer(fabric.PortRef{Node: fabric.NodeID(i), Port: port})
			a.hca[i][port] = ok && f.Node(peer.Node).Kind == fabric.HCA
		}
	}
	return a
}

// None is the assignment that puts every route on SL 0 and VL 0: correct
// only for routings whose CDG is acyclic as it is (Verify tells).
func None(r *layers.Routing) *Assignment { return newAssignment(r, SchemeNone) }

func (a *Assignment) slot(layer, s, d int) *uint8 {
	if layer > 0 && d >= a.r.NumEndpoints() {
		layer = 0
	}
	return &a.sl[layer][d*a.r.NumSwitches()+s]
}

// SL returns the service level of packets from the endpoints of switch s
// (a switch index) to destination d in a layer.
func (a *Assignment) SL(layer, s, d int) uint8 { return *a.slot(layer, s, d) }

// Routing returns the routing the assignment belongs to.
func (a *Assignment) Routing() *layers.Routing { return a.r }

// VL returns the virtual lane switch sw (a NodeID) puts a packet on when it
// arrives on port in (0: from the switch itself) and leaves on port out
// with service level sl: its SL2VL table.
func (a *Assignment) VL(sw fabric.NodeID, in, out int, sl uint8) uint8 {
	switch a.Scheme {
	case SchemeHops:
		if in == 0 || a.fromHCA(sw, in) {
			return 0 // the route's first switch: hop 0
		}
		s := a.r.SwitchIndex(sw)
		if int(sl) == a.Colors[s] {
			return 1 // the route's second switch: its colour is in the SL
		}
		return 2
	case SchemeDFSSSP:
		if int(sl) < a.VLs {
			return sl
		}
	}
	return 0
}

func (a *Assignment) fromHCA(sw fabric.NodeID, in int) bool {
	return sw >= 0 && int(sw) < len(a.hca) && in >= 0 && in < len(a.hca[sw]) && a.hca[sw][in]
}
