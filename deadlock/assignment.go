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
	// SchemeDragonfly: VL = global cables crossed + turns, on a Dragonfly+
	SchemeDragonfly Scheme = "dragonfly+"
)

// MaxSLs is the number of service levels InfiniBand has, MaxVLs the number
// of data VLs it allows (VL 15 carries subnet management).
const (
	MaxSLs = 16
	MaxVLs = 15
)

// Options configure the assigners.
type Options struct {
	// VLs is the number of data VLs the switches offer (real switches: 2,
	// 4 or 8). Zero means 8.
	VLs int
	// BestEffort lets AssignDFSSSP finish when the VLs run out, leaving the
	// routes it could not separate on the last VL and listing them in
	// Assignment.OnCycle, instead of failing.
	BestEffort bool
	// Workers is how many goroutines AssignHops walks the routes on (0 or
	// 1: one); the assignment is the same for every value.
	Workers int
	// probe marks a run made only to see whether advice to use this
	// scheme would work: its own refusal then tries no other scheme (the
	// two schemes' refusals each try the other).
	probe bool
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
	// LongRoutes counts, in the hops scheme, routes of more than three
	// hops: four-hop routes use VL 3 as their fourth hop class, longer ones
	// VLs of their own from VL 4 on.
	LongRoutes int

	r  *layers.Routing
	sl [][]uint8 // [layer][d*S + s]; layers ≥ 1 hold endpoints only; nil in the hops scheme
	// hops scheme: the SLs of routes of five hops or more, per (layer,
	// destination that owns its trees); the other SLs follow from Colors
	long map[[2]int32][]longSL
	// hops scheme: fourHops: hop 3 of four-hop routes on VL 3 (the rule
	// looks at the switch on the in port); SLs from longSL on carry routes
	// of five hops or more, on VLs 4, 5, …
	fourHops bool
	grid     bool // the colours are a HyperX grid's (gridColours), not DSatur's
	longSL   int
	longVLs  int
	// dragonfly+ scheme: per switch index, per (in port, out port, SL) the
	// VL (dfEntry), and the switch's ports + 1
	dfTable [][]uint8
	dfPorts []int
	hca     [][]bool  // per NodeID, per port: cabled to an HCA (for the hops SL2VL rule)
	peer    [][]int32 // per NodeID, per port: switch index cabled to it, -1 if none
}

// longSL is the SL of the route from switch s.
type longSL struct {
	s  int32
	sl uint8
}

// newAssignment returns an assignment of the scheme with every SL 0 and
// room to store SLs.
func newAssignment(r *layers.Routing, scheme Scheme) *Assignment {
	a := newPortsAssignment(r, scheme)
	S := r.NumSwitches()
	a.sl = make([][]uint8, r.NumLayers())
	for k := range a.sl {
		n := r.NumEndpoints()
		if k == 0 {
			n = len(r.Dests())
		}
		a.sl[k] = make([]uint8, n*S)
	}
	return a
}

// newHopAssignment returns an assignment of the hops scheme, whose SLs
// are derived from the colours rather than stored.
func newHopAssignment(r *layers.Routing) *Assignment {
	a := newPortsAssignment(r, SchemeHops)
	a.long = map[[2]int32][]longSL{}
	return a
}

// newPortsAssignment returns an assignment of the scheme with no SLs yet
// and what its SL-to-VL tables read of every port: whether an HCA or
// which switch is cabled to it.
func newPortsAssignment(r *layers.Routing, scheme Scheme) *Assignment {
	a := &Assignment{Scheme: scheme, r: r, VLs: 1, SLs: 1}
	f := r.Fabric
	a.hca = make([][]bool, f.NumNodes())
	a.peer = make([][]int32, f.NumNodes())
	for i := range a.hca {
		a.hca[i] = make([]bool, f.Node(fabric.NodeID(i)).Ports+1)
		a.peer[i] = make([]int32, f.Node(fabric.NodeID(i)).Ports+1)
		for port := range a.hca[i] {
			peer, ok := f.Peer(fabric.PortRef{Node: fabric.NodeID(i), Port: port})
			a.hca[i][port] = ok && f.Node(peer.Node).Kind == fabric.HCA
			a.peer[i][port] = -1
			if ok {
				a.peer[i][port] = int32(r.SwitchIndex(peer.Node))
			}
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
func (a *Assignment) SL(layer, s, d int) uint8 {
	if a.sl == nil {
		var one [1]uint8
		a.hopSLs(layer, d, s, one[:])
		return one[0]
	}
	return *a.slot(layer, s, d)
}

// SLsTo writes the SL of packets from the endpoints of every switch to
// destination d in a layer into out (one per switch index).
func (a *Assignment) SLsTo(layer, d int, out []uint8) {
	if a.sl == nil {
		a.hopSLs(layer, d, 0, out)
		return
	}
	if layer > 0 && d >= a.r.NumEndpoints() {
		layer = 0 // switch destinations own one LID: layer 0 only
	}
	copy(out, a.sl[layer][d*a.r.NumSwitches():])
}

// hopSLs writes into out the hops scheme's SLs of the routes from
// switches first, first+1, … to destination d in a layer: the colour of
// the route's second switch (AssignHops), the SL packed for a route of
// five hops or more, 0 where no route starts (a switch without HCAs, d's
// own switch).
func (a *Assignment) hopSLs(layer, d, first int, out []uint8) {
	r := a.r
	if layer > 0 && d >= r.NumEndpoints() {
		layer = 0 // switch destinations own one LID: layer 0 only
	}
	own := r.DestSwitch(d)
	for i := range out {
		s := first + i
		out[i] = 0
		if s != own && r.Hosts(s) > 0 {
			if y := r.NextSwitch(layer, s, d); y >= 0 {
				out[i] = uint8(a.Colors[y])
			}
		}
	}
	if len(a.long) == 0 {
		return
	}
	owner := d
	if layer > 0 {
		owner = r.SharedWith(d)
	}
	for _, l := range a.long[[2]int32{int32(layer), int32(owner)}] {
		if i := int(l.s) - first; i >= 0 && i < len(out) {
			out[i] = l.sl
		}
	}
}

// Routing returns the routing the assignment belongs to.
func (a *Assignment) Routing() *layers.Routing { return a.r }

// VL returns the virtual lane switch sw (a NodeID) puts a packet on when it
// arrives on port in (0: from the switch itself) and leaves on port out
// with service level sl: its SL2VL table.
func (a *Assignment) VL(sw fabric.NodeID, in, out int, sl uint8) uint8 {
	v := a.vl(sw, in, out, sl)
	if a.VLs > 0 && int(v) >= a.VLs {
		// no route meets this entry (every route's VLs are below a.VLs),
		// but a switch refuses an SL2VL table that names a VL it lacks
		v = uint8(a.VLs - 1)
	}
	return v
}

// InPortOnly tells whether the SL-to-VL tables depend on the in port
// only (lft.InPortVLs): every scheme's but dragonfly+'s.
func (a *Assignment) InPortOnly() bool { return a.Scheme != SchemeDragonfly }

// VLsFrom writes VL(sw, in, out, sl) for every SL when the VLs do not
// depend on the out port (InPortOnly; lft.InPortVLs).
func (a *Assignment) VLsFrom(sw fabric.NodeID, in int, vls *[16]uint8) {
	for sl := range vls {
		vls[sl] = a.VL(sw, in, 0, uint8(sl))
	}
}

func (a *Assignment) vl(sw fabric.NodeID, in, out int, sl uint8) uint8 {
	switch a.Scheme {
	case SchemeHops:
		if a.longVLs > 0 && int(sl) >= a.longSL {
			return uint8(4 + int(sl) - a.longSL) // five hops or more: one VL on every hop
		}
		if in == 0 || a.fromHCA(sw, in) {
			return 0 // the route's first switch: hop 0
		}
		s := a.r.SwitchIndex(sw)
		if int(sl) == a.Colors[s] {
			return 1 // the route's second switch: its colour is in the SL
		}
		if p := a.peer[sw][in]; a.fourHops && (p < 0 || int(sl) != a.Colors[p]) {
			return 3 // not fed by the second switch: the fourth
		}
		return 2
	case SchemeDFSSSP:
		if int(sl) < a.VLs {
			return sl
		}
	case SchemeDragonfly:
		if in == 0 || a.fromHCA(sw, in) {
			return 0
		}
		if x := a.r.SwitchIndex(sw); x >= 0 && in < a.dfPorts[x] && out < a.dfPorts[x] {
			if v := a.dfTable[x][a.dfEntry(x, in, out, int(sl))]; v != unset {
				return v
			}
		}
	}
	return 0
}

func (a *Assignment) fromHCA(sw fabric.NodeID, in int) bool {
	return sw >= 0 && int(sw) < len(a.hca) && in >= 0 && in < len(a.hca[sw]) && a.hca[sw][in]
}
