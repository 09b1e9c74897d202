package lft

import (
	"fmt"
	"sync"

	"slimroute/deadlock"
	"slimroute/fabric"
	"slimroute/layers"
)

// Drop is the LFT entry for "no route".
const Drop = 0xFF

// Tables are the forwarding state of a fabric: one LFT per switch, path SLs
// and SL2VL tables.
type Tables struct {
	Fabric *fabric.Fabric
	LIDs   *LIDs
	// Unreachable lists LID-holding ports no switch can forward to (their
	// only cable was avoided): their LIDs stay Drop everywhere.
	Unreachable []fabric.PortRef
	r           *layers.Routing
	a           *deadlock.Assignment
	lft         [][]uint8 // per switch index: LID -> egress port
	dest        []int32   // per LID-holding port index: routing destination, -1 if none
	attach      [][]int32 // per node, per port: switch index of the switch cabled to it, -1 if none
	lidDest     []int32   // per LID: routing destination, -1 if none
	lidLayer    []uint8   // per LID: the layer its offset selects
	destSwitch  []int32   // per routing destination: the switch it hangs off (or is)
}

// Build fills the forwarding tables: for every switch and every LID, the
// port toward it; an endpoint's LID base+k follows layer k mod L, so with
// LMC = log2(L) each LID offset is one layer. A switch's own LID goes to
// port 0, an attached HCA's LIDs to the port facing it. Up to workers
// goroutines fill the switches' tables (0 or 1: one); the tables are the
// same for every value.
func Build(r *layers.Routing, a *deadlock.Assignment, lids *LIDs, workers int) (*Tables, error) {
	f := r.Fabric
	if a == nil {
		a = deadlock.None(r)
	}
	if a.Routing() != r {
		return nil, fmt.Errorf("the VL assignment belongs to another routing")
	}
	t := &Tables{Fabric: f, LIDs: lids, r: r, a: a}
	destOf := map[fabric.PortRef]int{}
	for d, dest := range r.Dests() {
		destOf[dest.Port] = d
	}
	t.dest = make([]int32, len(lids.Ports))
	for i, p := range lids.Ports {
		d, ok := destOf[p.Port]
		if !ok {
			t.dest[i] = -1
			t.Unreachable = append(t.Unreachable, p.Port)
			continue
		}
		t.dest[i] = int32(d)
	}
	t.attach = make([][]int32, f.NumNodes())
	for i := range t.attach {
		n := f.Node(fabric.NodeID(i))
		t.attach[i] = make([]int32, n.Ports+1)
		for port := range t.attach[i] {
			t.attach[i][port] = -1
			if peer, ok := f.Peer(fabric.PortRef{Node: fabric.NodeID(i), Port: port}); ok {
				t.attach[i][port] = int32(r.SwitchIndex(peer.Node))
			}
		}
	}
	S := r.NumSwitches()
	L := r.NumLayers()
	t.lidDest = make([]int32, int(lids.Top)+1)
	t.lidLayer = make([]uint8, int(lids.Top)+1)
	for i := range t.lidDest {
		t.lidDest[i] = -1
	}
	for i, p := range lids.Ports {
		for off := 0; off < 1<<p.LMC; off++ {
			t.lidDest[int(p.Base)+off] = t.dest[i]
			t.lidLayer[int(p.Base)+off] = uint8(off % L)
		}
	}
	t.destSwitch = make([]int32, len(r.Dests()))
	for d, dest := range r.Dests() {
		t.destSwitch[d] = int32(dest.Switch)
	}
	t.lft = make([][]uint8, S)
	// switches are independent: fill them in parallel
	workers = max(1, min(workers, S))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := w; s < S; s += workers {
				tab := make([]uint8, int(lids.Top)+1)
				for i := range tab {
					tab[i] = Drop
				}
				for i, p := range lids.Ports {
					d := int(t.dest[i])
					if d < 0 {
						continue
					}
					for off := 0; off < 1<<p.LMC; off++ {
						tab[int(p.Base)+off] = uint8(r.NextPort(off%L, s, d))
					}
				}
				t.lft[s] = tab
			}
		}()
	}
	wg.Wait()
	return t, nil
}

// Switches returns the switch NodeIDs in table order.
func (t *Tables) Switches() []fabric.NodeID {
	out := make([]fabric.NodeID, t.r.NumSwitches())
	for s := range out {
		out[s] = t.r.SwitchID(s)
	}
	return out
}

// Port returns the egress port of switch sw toward lid, or Drop.
func (t *Tables) Port(sw fabric.NodeID, lid LID) uint8 {
	s := t.r.SwitchIndex(sw)
	if s < 0 || int(lid) >= len(t.lft[s]) {
		return Drop
	}
	return t.lft[s][lid]
}

// LFT returns switch sw's table indexed by LID. It must not be modified.
func (t *Tables) LFT(sw fabric.NodeID) []uint8 { return t.lft[t.r.SwitchIndex(sw)] }

// PathSL returns the SL of packets from HCA port src to dlid; 0 when either
// is unknown or both hang off the same switch.
func (t *Tables) PathSL(src fabric.PortRef, dlid LID) uint8 {
	s := t.attachedTo(src)
	if s < 0 || int(dlid) >= len(t.lidDest) {
		return 0
	}
	return t.slFrom(s, dlid)
}

// slFrom is the SL from the HCA ports of switch index s to dlid (≤ Top).
func (t *Tables) slFrom(s int, dlid LID) uint8 {
	d := t.lidDest[dlid]
	if d < 0 || int(t.destSwitch[d]) == s {
		return 0
	}
	return t.a.SL(int(t.lidLayer[dlid]), s, int(d))
}

// appendPathSLs appends, as hex digits, the SL from the HCA ports of
// switch index s to every LID 1..Top: PathSL for each, in one pass.
func (t *Tables) appendPathSLs(buf []byte, s int) []byte {
	for lid := LID(1); lid <= t.LIDs.Top; lid++ {
		buf = append(buf, hexDigit(int(t.slFrom(s, lid))))
	}
	return buf
}

// attachedTo returns the switch index of the switch cabled to port p, or -1.
func (t *Tables) attachedTo(p fabric.PortRef) int {
	if p.Node < 0 || int(p.Node) >= len(t.attach) || p.Port < 0 || p.Port >= len(t.attach[p.Node]) {
		return -1
	}
	return int(t.attach[p.Node][p.Port])
}

// SL2VL returns the VL switch sw puts a packet on from port in to port out
// with service level sl.
func (t *Tables) SL2VL(sw fabric.NodeID, in, out int, sl uint8) uint8 {
	return t.a.VL(sw, in, out, sl)
}

// Assignment returns the VL assignment the tables carry.
func (t *Tables) Assignment() *deadlock.Assignment { return t.a }

// Program returns the tables as the deadlock verifier reads them.
func (t *Tables) Program() deadlock.Program {
	var ports []deadlock.PortLIDs
	for _, p := range t.LIDs.Ports {
		ports = append(ports, deadlock.PortLIDs{Port: p.Port, Base: uint16(p.Base), LMC: p.LMC})
	}
	return deadlock.Program{
		Fabric: t.Fabric,
		LIDs:   ports,
		LFT:    func(sw fabric.NodeID, lid uint16) uint8 { return t.Port(sw, LID(lid)) },
		SL:     func(src fabric.PortRef, slid, dlid uint16) uint8 { return t.PathSL(src, LID(dlid)) },
		SL2VL:  t.SL2VL,
		// PathSL depends on the source only through its switch
		SLKey: t.attachedTo,
	}
}
