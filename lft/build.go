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
	// NextPorts writes the egress port of every switch (by index) toward
	// destination d in a layer into out (0: d is the switch itself).
	NextPorts(layer, d int, out []uint8)
}

// VLs is a VL assignment as Build reads it; deadlock.Assignment is one.
type VLs interface {
	// SLsTo writes the service level of packets from the HCAs of every
	// switch (by index) to destination d in a layer into out.
	SLsTo(layer, d int, out []uint8)
	// VL is switch sw's SL-to-VL table: the VL of a packet arriving on
	// port in (0: from the switch) and leaving on port out with SL sl.
	// For an HCA (in 0, out its port) it is the VL the HCA sends SL sl on.
	VL(sw fabric.NodeID, in, out int, sl uint8) uint8
}

// InPortVLs is a VLs whose SL-to-VL tables depend on the in port only,
// not on the out port (the hop-indexed and DFSSSP assignments): Build asks
// it once per in port rather than once per pair of ports.
type InPortVLs interface {
	VLs
	// InPortOnly tells whether the tables do depend on the in port only
	// (an assignment may be of either kind).
	InPortOnly() bool
	// VLsFrom writes the VL of every SL of a packet arriving on port in
	// (≥ 1) of switch sw, whatever port it leaves on: VL(sw, in, out, sl)
	// for every cabled out ≠ in.
	VLsFrom(sw fabric.NodeID, in int, vls *[16]uint8)
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
	for _, pl := range lids.ports {
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
	workers = max(1, min(workers, S))
	p.fillBlocks(b, rows, a, workers)
	if a != nil {
		errs := make([]error, S)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for s := w; s < S; s += workers {
					errs[s] = setSL2VL(b, f, r.SwitchID(s), a)
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		if err := setCASL2VL(b, lids, a); err != nil {
			return nil, err
		}
	}
	return b.Tables(), nil
}

// lidBlock is how many LIDs fillBlocks handles at once: their columns (one
// entry per switch) are gathered, then copied into each switch's table as
// a contiguous run.
const lidBlock = 64

// fillBlocks fills every switch's LFT and path-SL row (rows[s], -1 for
// none; SLs only with a) a block of LIDs at a time, blocks on up to
// workers goroutines.
func (p *plan) fillBlocks(b *Builder, rows []int, a VLs, workers int) {
	S := p.r.NumSwitches()
	blocks := (len(p.lidDest) + lidBlock - 1) / lidBlock
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ports, sls := make([]uint8, lidBlock*S), make([]uint8, lidBlock*S)
			for blk := w; blk < blocks; blk += workers {
				first := blk * lidBlock
				n := min(lidBlock, len(p.lidDest)-first)
				for j := 0; j < n; j++ {
					d, k := p.lidDest[first+j], int(p.lidLayer[first+j])
					if d < 0 {
						continue
					}
					p.r.NextPorts(k, int(d), ports[j*S:(j+1)*S])
					if a != nil {
						a.SLsTo(k, int(d), sls[j*S:(j+1)*S])
						sls[j*S+p.r.DestSwitch(int(d))] = 0 // to its own HCAs and itself
					}
				}
				for s := 0; s < S; s++ {
					tab := b.LFT(p.r.SwitchID(s))
					for j := 0; j < n; j++ {
						if p.lidDest[first+j] >= 0 {
							tab[first+j] = ports[j*S+s]
						}
					}
					if a == nil || rows[s] < 0 {
						continue
					}
					row := b.t.sl[rows[s]]
					for j := 0; j < n; j++ {
						if p.lidDest[first+j] >= 0 {
							row[first+j] = sls[j*S+s]
						}
					}
				}
			}
		}()
	}
	wg.Wait()
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
	p := &plan{f: f, r: r, lids: lids, lidDest: make([]int32, int(lids.top)+1), lidLayer: make([]uint8, int(lids.top)+1)}
	for i := range p.lidDest {
		p.lidDest[i] = -1
	}
	L := r.NumLayers()
	for _, pl := range lids.ports {
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
	if !ok || p.f.Kind(peer.Node) != fabric.Switch {
		return -1
	}
	return p.r.SwitchIndex(peer.Node)
}

// setCASL2VL gives every LID-holding HCA port the VLs a maps its SLs to
// on its cable.
func setCASL2VL(b *Builder, lids *LIDs, a VLs) error {
	for _, pl := range lids.ports {
		if pl.Port.Port == 0 {
			continue
		}
		var vls [16]uint8
		for sl := range vls {
			vls[sl] = a.VL(pl.Port.Node, 0, pl.Port.Port, uint8(sl))
		}
		if err := b.SetCASL2VL(pl.Port, vls); err != nil {
			return err
		}
	}
	return nil
}

// setSL2VL copies switch sw's SL-to-VL tables from a, in port by in
// port; only the entries a packet can meet (see Builder.SetSL2VL) are
// asked for.
func setSL2VL(b *Builder, f *fabric.Fabric, sw fabric.NodeID, a VLs) error {
	n := f.Ports(sw)
	cabled := make([]bool, n+1)
	for p := 1; p <= n; p++ {
		_, cabled[p] = f.Peer(fabric.PortRef{Node: sw, Port: p})
	}
	vls := make([]uint8, (n+1)*16)
	byIn, _ := a.(InPortVLs)
	if byIn != nil && !byIn.InPortOnly() {
		byIn = nil
	}
	for in := 0; in <= n; in++ {
		if in != 0 && !cabled[in] {
			continue // reads VL 0, as the builder starts
		}
		clear(vls)
		var from [16]uint8
		perIn := byIn != nil && in != 0
		if perIn {
			byIn.VLsFrom(sw, in, &from)
		}
		for out := 1; out <= n; out++ {
			if out == in || !cabled[out] {
				continue
			}
			if perIn {
				copy(vls[out*16:], from[:])
				continue
			}
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
