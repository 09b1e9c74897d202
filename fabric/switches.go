package fabric

// SwitchView is the compact view of a fabric that routing algorithms use:
// switches numbered 0..S-1 in NodeID order, each with its cabled
// switch-to-switch ports (one Channel per cable, so parallel links stay
// distinct) and the HCA ports attached to it.
type SwitchView struct {
	// IDs maps a switch index to its NodeID.
	IDs []NodeID
	// Index maps a NodeID to its switch index, or -1 for HCAs.
	Index []int
	// Adj lists, per switch, its inter-switch cables in local port order.
	Adj [][]Channel
	// Endpoints lists, per switch, the HCA ports cabled to it, in the
	// switch's port order; Attach gives the switch port each one uses.
	Endpoints [][]PortRef
	Attach    [][]int
}

// Channel is one direction of an inter-switch cable, seen from its sending
// switch: leave through Port, arrive at switch Peer on PeerPort.
type Channel struct {
	Port     int
	Peer     int
	PeerPort int
	Link     int // index in Fabric.Links
}

// SwitchView builds the switch view of f.
func (f *Fabric) SwitchView() *SwitchView {
	v := &SwitchView{Index: make([]int, len(f.nodes))}
	for i := range f.nodes {
		v.Index[i] = -1
		if f.nodes[i].Kind == Switch {
			v.Index[i] = len(v.IDs)
			v.IDs = append(v.IDs, NodeID(i))
		}
	}
	v.Adj = make([][]Channel, len(v.IDs))
	v.Endpoints = make([][]PortRef, len(v.IDs))
	v.Attach = make([][]int, len(v.IDs))
	for s, id := range v.IDs {
		for p := 1; p <= f.nodes[id].Ports; p++ {
			li, ok := f.LinkAt(PortRef{id, p})
			if !ok {
				continue
			}
			peer, _ := f.Peer(PortRef{id, p})
			if t := v.Index[peer.Node]; t >= 0 {
				v.Adj[s] = append(v.Adj[s], Channel{Port: p, Peer: t, PeerPort: peer.Port, Link: li})
			} else {
				v.Endpoints[s] = append(v.Endpoints[s], peer)
				v.Attach[s] = append(v.Attach[s], p)
			}
		}
	}
	return v
}

// NumSwitches returns the number of switches.
func (v *SwitchView) NumSwitches() int { return len(v.IDs) }

// Degree returns the number of inter-switch cables of switch s.
func (v *SwitchView) Degree(s int) int { return len(v.Adj[s]) }
