package lft

import (
	"bytes"
	"fmt"
	"slices"

	"slimroute/fabric"
)

// Builder fills a Tables value. It starts with every LFT entry Drop, every
// path SL 0 and every SL2VL entry VL 0; Tables hands the result out and
// spends the builder, so a Tables value never changes after it is made.
type Builder struct {
	t      *Tables
	caRows map[[16]uint8]int32 // HCA SL-to-VL table -> its row in t.caVL
}

// NewBuilder starts the tables of fabric f under the LID plan lids.
func NewBuilder(f *fabric.Fabric, lids *LIDs) *Builder {
	t := &Tables{f: f, lids: lids, swIndex: make([]int32, f.NumNodes())}
	for i := range t.swIndex {
		t.swIndex[i] = -1
		if f.Kind(fabric.NodeID(i)) == fabric.Switch {
			t.swIndex[i] = int32(len(t.switches))
			t.switches = append(t.switches, fabric.NodeID(i))
		}
	}
	size := int(lids.top) + 1
	t.lft = make([][]uint8, len(t.switches))
	t.vlIn = make([][]uint8, len(t.switches))
	t.vl = make([][][]uint8, len(t.switches))
	for s, sw := range t.switches {
		t.lft[s] = bytes.Repeat([]byte{Drop}, size)
		n := f.Ports(sw)
		t.vlIn[s] = make([]uint8, n+1)
		t.vl[s] = [][]uint8{make([]uint8, (n+1)*16)}
	}
	t.slRow = make([]int32, len(lids.ports))
	for i := range t.slRow {
		t.slRow[i] = -1
	}
	return &Builder{t: t}
}

// LFT returns switch sw's table for the caller to fill, indexed by LID
// 0..Top; nil if sw is not a switch. Tables of different switches may be
// filled at the same time.
func (b *Builder) LFT(sw fabric.NodeID) []uint8 {
	s := b.t.switchIndex(sw)
	if s < 0 {
		return nil
	}
	return b.t.lft[s]
}

// AddSLRow adds a row of path SLs for the caller to fill, indexed by DLID
// 0..Top, and returns its number (for SetSLRow) and the row.
func (b *Builder) AddSLRow() (int, []uint8) {
	row := make([]uint8, int(b.t.lids.top)+1)
	b.t.sl = append(b.t.sl, row)
	return len(b.t.sl) - 1, row
}

// SetSLRow makes src, a LID-holding port, use path-SL row row.
func (b *Builder) SetSLRow(src fabric.PortRef, row int) error {
	i, ok := b.t.lids.byPort[src]
	if !ok {
		return fmt.Errorf("%s holds no LID", b.t.f.PortString(src))
	}
	if row < 0 || row >= len(b.t.sl) {
		return fmt.Errorf("no path-SL row %d", row)
	}
	b.t.slRow[i] = int32(row)
	return nil
}

// SetSL2VL gives in port in of switch sw the SL-to-VL table vls, indexed
// out*16+sl (out 0..ports); set in port 0 first. Only what a packet can
// meet is kept — in port 0 or a cabled one, toward another cabled port —
// the rest reads VL 0, as in the SL2VL file, except that toward its own
// port an in port reads what in port 0 does (no file lists that entry,
// and so in ports that differ only there share a table). In ports with
// equal tables share one copy.
func (b *Builder) SetSL2VL(sw fabric.NodeID, in int, vls []uint8) error {
	s := b.t.switchIndex(sw)
	if s < 0 {
		return fmt.Errorf("%s is not a switch", b.t.f.Node(sw).Name)
	}
	if in < 0 || in >= len(b.t.vlIn[s]) || len(vls) != len(b.t.vlIn[s])*16 {
		return fmt.Errorf("%s: SL2VL of in port %d: want ports 0..%d and %d entries", b.t.f.Node(sw).Name, in, len(b.t.vlIn[s])-1, len(b.t.vlIn[s])*16)
	}
	var small [64 * 16]uint8 // most switches' tables: no allocation unless new
	buf := small[:0]
	if len(vls) > len(small) {
		buf = make([]uint8, 0, len(vls))
	}
	vls = b.canonical(buf[:len(vls)], sw, in, vls)
	for c, row := range b.t.vl[s] {
		if bytes.Equal(row, vls) {
			b.t.vlIn[s][in] = uint8(c)
			return nil
		}
	}
	if len(b.t.vl[s]) > 255 {
		return fmt.Errorf("%s: more than 256 distinct SL2VL tables", b.t.f.Node(sw).Name)
	}
	b.t.vl[s] = append(b.t.vl[s], slices.Clone(vls))
	b.t.vlIn[s][in] = uint8(len(b.t.vl[s]) - 1)
	return nil
}

// canonical writes into out (as long as vls) vls with VL 0 where no packet
// can be (out port 0, uncabled ports), and in port 0's VLs toward port
// in, and returns out.
func (b *Builder) canonical(out []uint8, sw fabric.NodeID, in int, vls []uint8) []uint8 {
	clear(out)
	s := b.t.switchIndex(sw)
	zero := b.t.vl[s][b.t.vlIn[s][0]]
	cabled := func(p int) bool {
		_, ok := b.t.f.Peer(fabric.PortRef{Node: sw, Port: p})
		return ok
	}
	if in != 0 && !cabled(in) {
		return out
	}
	for o := 1; o*16 < len(vls); o++ {
		switch {
		case o == in:
			copy(out[o*16:(o+1)*16], zero[o*16:])
		case cabled(o):
			copy(out[o*16:(o+1)*16], vls[o*16:])
		}
	}
	return out
}

// Tables returns the filled tables; the builder is spent.
func (b *Builder) Tables() *Tables {
	t := b.t
	b.t = nil
	return t
}
