package verify

import "math/bits"

// edgeSet is a set of CDG edges between (channel, VL) nodes. An edge
// leaves a node a = (channel, VL) for a node b on a channel of the switch
// that channel leads to, so per a the targets form one short bit row,
// indexed from that switch's first node. A node gets its row with its
// first edge, from blocks of rowsPerBlock rows (none is ever moved); a
// node's row number and base sit side by side, so adding an edge reads
// one small entry and one word.
type edgeSet struct {
	words  int       // words per row: the most ports of a switch, plus 1, times 16 VLs, in bits
	rows   []edgeRow // per node a
	blocks [][]uint64
	n      int // rows handed out
}

// rowsPerBlock is how many rows one block of an edgeSet holds.
const rowsPerBlock = 1024

// edgeRow locates node a's row: row number num-1, num 0 when a has no
// edge yet; bit 0 of the row is node base.
type edgeRow struct{ num, base int32 }

func newEdgeSet(n, width int) edgeSet {
	return edgeSet{words: (width + 63) / 64, rows: make([]edgeRow, n)}
}

// add records a → b; base is the first node of b's switch.
func (e *edgeSet) add(a, b, base int32) {
	r := &e.rows[a]
	if r.num == 0 {
		*r = e.newRow(base)
	}
	i := b - r.base
	e.row(r.num)[i/64] |= 1 << (i % 64)
}

// newRow hands out an empty row whose bit 0 is node base.
func (e *edgeSet) newRow(base int32) edgeRow {
	if e.n%rowsPerBlock == 0 {
		e.blocks = append(e.blocks, make([]uint64, rowsPerBlock*e.words))
	}
	e.n++
	return edgeRow{num: int32(e.n), base: base}
}

// row returns row number num-1 (num > 0).
func (e *edgeSet) row(num int32) []uint64 {
	i := int(num - 1)
	start := i % rowsPerBlock * e.words
	return e.blocks[i/rowsPerBlock][start : start+e.words]
}

func (e *edgeSet) merge(o edgeSet) {
	for a, r := range o.rows {
		if r.num == 0 {
			continue
		}
		if e.rows[a].num == 0 {
			e.rows[a] = e.newRow(r.base)
		}
		mine := e.row(e.rows[a].num)
		for i, w := range o.row(r.num) {
			mine[i] |= w
		}
	}
}

// count returns the number of edges.
func (e *edgeSet) count() int {
	n := 0
	for _, b := range e.blocks {
		for _, w := range b {
			n += bits.OnesCount64(w)
		}
	}
	return n
}
