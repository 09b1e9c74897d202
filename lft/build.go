package lft

import (
	"fmt"
	"sync"

	"slimroute/fabric"
)

// Routes is a layered, destination-based routing as Build reads it;
// layers.Routing is one. Switches and destinations are numbered by the
// routing; a destination is a cabled HCA port or a switch's port 0.
type Routes interface {
	NumLayers() int
	NumSwitches() int
	SwitchID(s int) fabric.NodeID
	SwitchIndex(id fabric.NodeID) int
	NumDests() int
	DestPort(d int) fabric.PortRef
	DestSwitch(d int) int
	// NextPort is the egress port of switch s toward destination d in a
	// layer (0: d is the switch itself).
	NextPort(layer, s, d int) int
}

// VLs is a VL assignment as Build reads it; deadlock.Assignment is one.
type VLs interface {
	// SL is the service level of packets from the HCAs of switch s to
	// destination d in a layer.
	SL(layer, s, d int) uint8
	// VL is switch sw's SL-to-VL table: the VL of a packet arriving on
	// port in (0: from the switch) and leaving on port out with SL sl.
	VL(sw fabric.NodeID, in, out int, sl uint8) uint8
}

// Build programs routing r with VL assignment a (nil: SL 0 and VL 0
// everywhere) under the LID plan lids: for every switch and every LID the
// port toward it, an endpoint's LID base+k following layer k mod L (so
// with LMC = log2(L) each LID offset is one layer); a switch's own LID
// goes to port 0. LID-holding ports the routing does not reach stay Drop
// everywhere. The HCA ports of a switch share one row of path SLs. Up to
// workers goroutines fill the switches (0 or 1: one); the tables are the
// same for every value.
func Build(f *fabric.Fabric, lids *LIDs, r Routes, a VLs, workers int) (*Tables, error) {
	if r.NumSwitches() != len(f.IDsOf(fabric.Switch)) {
		return nil, fmt.Errorf("the routing has %d switches, the fabric %d", r.NumSwitches(), len(f.IDsOf(fabric.Switch)))
	}
	b := NewBuilder(f, lids)
	p := newPlan(f, lids, r)
	rows := make([]int, r.NumSwitches()) // path-SL row of the HCAs on switch s, -1: none
	for s := range rows {
		rows[s] = -1
	}
	for _, pl := range lids.Ports {
		s := p.attachedTo(pl.Port)
		if pl.Port.Port == 0 || s < 0 {
			continue
		}
		if rows[s] < 0 {
			rows[s], _ = b.AddSLRow()
		}
		if err := b.SetSLRow(pl.Port, rows[s]); err != nil {
			return nil, err
		}
	}
	S := r.NumSwitches()
	errs := make([]error, S)
	var wg sync.WaitGroup
	workers = max(1, min(workers, S))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := w; s < S; s += workers {
				sw := r.SwitchID(s)
				p.fillLFT(b.LFT(sw), s)
				if rows[s] >= 0 && a != nil {
					p.fillSLs(b.t.sl[rows[s]], s, a)
				}
				if a != nil {
					errs[s] = setSL2VL(b, f, sw, a)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return b.Tables(), nil
}

// plan is what Build knows of every LID: the routing destination it
// belongs to and the layer its offset selects.
type plan struct {
	f        *fabric.Fabric
	r        Routes
	lids     *LIDs
	lidDest  []int32 // per LID: routing destination, -1 if none
	lidLayer []uint8 // per LID: layer
}

func newPlan(f *fabric.Fabric, lids *LIDs, r Routes) *plan {
	destOf := map[fabric.PortRef]int{}
	for d := 0; d < r.NumDests(); d++ {
		destOf[r.DestPort(d)] = d
	}
	p := &plan{f: f, r: r, lids: lids, lidDest: make([]int32, int(lids.Top)+1), lidLayer: make([]uint8, int(lids.Top)+1)}
	for i := range p.lidDest {
		p.lidDest[i] = -1
	}
	L := r.NumLayers()
	for _, pl := range lids.Ports {
		d, ok := destOf[pl.Port]
		if !ok {
			continue
		}
		for off := 0; off < 1<<pl.LMC; off++ {
			p.lidDest[int(pl.Base)+off] = int32(d)
			p.lidLayer[int(pl.Base)+off] = uint8(off % L)
		}
	}
	return p
}

// attachedTo returns the routing index of the switch cabled to HCA port
// hp, or -1.
func (p *plan) attachedTo(hp fabric.PortRef) int {
	peer, ok := p.f.Peer(hp)
	if !ok || p.f.Node(peer.Node).Kind != fabric.Switch {
		return -1
	}
	return p.r.SwitchIndex(peer.Node)
}

// fillLFT fills the table of switch s.
func (p *plan) fillLFT(tab []uint8, s int) {
	for lid, d := range p.lidDest {
		if d >= 0 {
			tab[lid] = uint8(p.r.NextPort(int(p.lidLayer[lid]), s, int(d)))
		}
	}
}

// fillSLs fills the path SLs from the HCAs of switch s: SL 0 toward the
// LIDs of its own HCAs and itself.
func (p *plan) fillSLs(row []uint8, s int, a VLs) {
	for lid, d := range p.lidDest {
		if d >= 0 && p.r.DestSwitch(int(d)) != s {
			row[lid] = a.SL(int(p.lidLayer[lid]), s, int(d))
		}
	}
}

// setSL2VL copies switch sw's SL-to-VL tables from a, in port by in port.
func setSL2VL(b *Builder, f *fabric.Fabric, sw fabric.NodeID, a VLs) error {
	n := f.Node(sw).Ports
	vls := make([]uint8, (n+1)*16)
	for in := 0; in <= n; in++ {
		for out := 0; out <= n; out++ {
			for sl := uint8(0); sl < 16; sl++ {
				vls[out*16+int(sl)] = a.VL(sw, in, out, sl)
			}
		}
		if err := b.SetSL2VL(sw, in, vls); err != nil {
			return err
		}
	}
	return nil
}
