package lft

import (
	"bufio"
	"fmt"
	"io"

	"slimroute/fabric"
)

// IBDMView presents the tables to ibdmchk (ibutils), whose verification
// mode reads OpenSM's subnet list (-s), unicast FDB dump (-f), multicast
// FDB dump (-m), a path-SL file (-c) and an SL2VL file (-d).
//
// ibdmchk cannot follow LMC > 0: its min-hop setup assigns hops to base
// LIDs only and stops ("un-assigned hops … Fail to update Min Hops
// Tables"). So a routing with L > 1 layers is shown as an LMC-0 fabric with
// the same switches and inter-switch cables in which every (endpoint, layer
// k) is its own HCA, holding the endpoint's LID base+k, cabled to the same
// switch (layer 0 on the real port, the others on extra switch ports),
// forwarded exactly as layer k and sending with layer k's SLs. HCA cables
// only start and end paths, so this view has the same inter-switch channel
// dependencies, per VL, as the real fabric: a credit loop exists in one
// iff it exists in the other. With one layer the view is the real fabric.
type IBDMView struct {
	t      *Tables
	ports  map[fabric.NodeID]int // switch port count in the view
	vhca   []vhca
	byPort map[fabric.PortRef]int // view switch port -> vhca index (HCA-facing ports)
}

type vhca struct {
	real    fabric.PortRef // the real HCA port
	sw      fabric.NodeID
	swPort  int // view port on the switch
	realSw  int // real switch port facing the HCA
	lid     LID
	guid    fabric.GUID
	name    string
	virtual bool
}

// virtualPrefix marks the GUIDs of virtual HCAs.
const virtualPrefix = 0xEE << 56

// NewIBDMView builds the view of t.
func NewIBDMView(t *Tables) (*IBDMView, error) {
	f := t.f
	v := &IBDMView{t: t, ports: map[fabric.NodeID]int{}, byPort: map[fabric.PortRef]int{}}
	for _, sw := range t.Switches() {
		v.ports[sw] = f.Node(sw).Ports
	}
	for i, p := range t.lids.ports {
		if p.Port.Port == 0 {
			continue
		}
		peer, ok := f.Peer(p.Port)
		if !ok || f.Node(peer.Node).Kind != fabric.Switch {
			continue
		}
		n := f.Node(p.Port.Node)
		for off := 0; off < 1<<p.LMC; off++ {
			h := vhca{real: p.Port, sw: peer.Node, swPort: peer.Port, realSw: peer.Port, lid: p.Base + LID(off),
				guid: n.PortGUID(p.Port.Port), name: n.Name}
			if off > 0 {
				v.ports[peer.Node]++
				h.swPort, h.virtual = v.ports[peer.Node], true
				h.guid = fabric.GUID(virtualPrefix | uint64(i)<<8 | uint64(off))
				h.name = fmt.Sprintf("%s#%d", n.Name, off)
				if v.ports[peer.Node] > fabric.MaxPorts {
					return nil, fmt.Errorf("the ibdmchk view of %s needs more than %d ports", f.Node(peer.Node).Name, fabric.MaxPorts)
				}
			}
			v.byPort[fabric.PortRef{Node: peer.Node, Port: h.swPort}] = len(v.vhca)
			v.vhca = append(v.vhca, h)
		}
	}
	return v, nil
}

// realPort maps a view port of switch sw to the real port it stands for.
func (v *IBDMView) realPort(sw fabric.NodeID, p int) int {
	if i, ok := v.byPort[fabric.PortRef{Node: sw, Port: p}]; ok {
		return v.vhca[i].realSw
	}
	return p
}

// WriteSubnetList writes the view in the layout of opensm-subnet.lst: one
// line per cabled port, from each end.
func (v *IBDMView) WriteSubnetList(w io.Writer) error {
	bw := bufio.NewWriter(w)
	f := v.t.f
	swEnd := func(sw fabric.NodeID, port int) string {
		n := f.Node(sw)
		own, _ := v.t.lids.Of(fabric.PortRef{Node: sw})
		return fmt.Sprintf("{ SW Ports:%02X SystemGUID:%016x NodeGUID:%016x PortGUID:%016x VenID:000000 DevID:0000 Rev:000000A1 {%s} LID:%04X PN:%02X }",
			v.ports[sw], uint64(n.GUID), uint64(n.GUID), uint64(n.GUID), n.Name, own.Base, port)
	}
	caEnd := func(h vhca) string {
		node := uint64(h.guid)
		if !h.virtual {
			node = uint64(f.Node(h.real.Node).GUID)
		}
		return fmt.Sprintf("{ CA Ports:01 SystemGUID:%016x NodeGUID:%016x PortGUID:%016x VenID:000000 DevID:0000 Rev:000000A1 {%s} LID:%04X PN:%02X }",
			node, node, uint64(h.guid), h.name, h.lid, 1)
	}
	const link = " PHY=4x LOG=ACT SPD=2.5\n"
	for _, sw := range v.t.SortedSwitches() {
		for p := 1; p <= f.Node(sw).Ports; p++ {
			peer, ok := f.Peer(fabric.PortRef{Node: sw, Port: p})
			if !ok || f.Node(peer.Node).Kind != fabric.Switch {
				continue
			}
			bw.WriteString(swEnd(sw, p) + " " + swEnd(peer.Node, peer.Port) + link)
		}
	}
	for _, h := range v.vhca {
		bw.WriteString(swEnd(h.sw, h.swPort) + " " + caEnd(h) + link)
		bw.WriteString(caEnd(h) + " " + swEnd(h.sw, h.swPort) + link)
	}
	return bw.Flush()
}

// WriteFDBs writes the view's unicast tables in the layout of opensm.fdbs,
// with the hop count of every route.
func (v *IBDMView) WriteFDBs(w io.Writer) error {
	bw := bufio.NewWriter(w)
	t := v.t
	f := t.f
	viewPort := map[LID]int{} // LIDs of virtual HCAs leave their switch on a view port
	for _, h := range v.vhca {
		viewPort[h.lid] = h.swPort
	}
	hops := map[[2]int]int{}
	var hop func(sw fabric.NodeID, lid LID, depth int) int
	hop = func(sw fabric.NodeID, lid LID, depth int) int {
		k := [2]int{int(sw), int(lid)}
		if h, ok := hops[k]; ok {
			return h
		}
		out := int(t.Port(sw, lid))
		h := 0
		switch {
		case out == 0 || out == Drop || depth > f.NumNodes():
		default:
			peer, _ := f.Peer(fabric.PortRef{Node: sw, Port: out})
			h = 1
			if f.Node(peer.Node).Kind == fabric.Switch {
				h += hop(peer.Node, lid, depth+1)
			}
		}
		hops[k] = h
		return h
	}
	for _, sw := range t.SortedSwitches() {
		fmt.Fprintf(bw, "dump_ucast_routes: Switch 0x%016x\nLID    : Port : Hops : Optimal\n", uint64(f.Node(sw).GUID))
		for lid := LID(1); lid <= t.lids.top; lid++ {
			out := int(t.Port(sw, lid))
			if out == Drop {
				continue
			}
			if vp, ok := viewPort[lid]; ok {
				if peer, _ := f.Peer(fabric.PortRef{Node: sw, Port: out}); f.Node(peer.Node).Kind != fabric.Switch {
					out = vp
				}
			}
			fmt.Fprintf(bw, "0x%04X : %03d  : %02d   : yes\n", lid, out, hop(sw, lid, 0))
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// WritePathSL writes the view's path SLs in ibdmchk's -c format.
func (v *IBDMView) WritePathSL(w io.Writer) error {
	bw := bufio.NewWriter(w)
	t := v.t
	for _, h := range v.vhca {
		node := h.guid
		if !h.virtual {
			node = t.f.Node(h.real.Node).GUID
		}
		for lid := LID(1); lid <= t.lids.top; lid++ {
			if _, _, ok := t.lids.Owner(lid); ok {
				fmt.Fprintf(bw, "0x%016x %d %d\n", uint64(node), lid, t.PathSL(h.real, lid))
			}
		}
	}
	return bw.Flush()
}

// WriteSL2VL writes the view's SL2VL tables in ibdmchk's -d format, every
// view port mapped to the real port it stands for.
func (v *IBDMView) WriteSL2VL(w io.Writer) error {
	bw := bufio.NewWriter(w)
	t := v.t
	f := t.f
	for _, sw := range t.SortedSwitches() {
		cabled := func(p int) bool {
			if _, ok := v.byPort[fabric.PortRef{Node: sw, Port: p}]; ok {
				return true
			}
			_, ok := f.Peer(fabric.PortRef{Node: sw, Port: p})
			return ok && p <= f.Node(sw).Ports
		}
		writeSL2VL(bw, t, sw, v.ports[sw], cabled, func(p int) int { return v.realPort(sw, p) })
	}
	return bw.Flush()
}
