package verify

import "math/bits"

// edgeSet is a set of CDG edges between (channel, VL) nodes. An edge
// leaves a node a = (channel, VL) for a node b on a channel of the switch
// that channel leads to, so per a the targets form one short bit row,
// indexed from that switch's first node and allocated when a gets its
// first edge.
type edgeSet struct {
	width int        // bits per row: the most ports of a switch, plus 1, times 16 VLs
	rows  [][]uint64 // per node a
	base  []int32    // per node a: node number of bit 0 of its row
}

func newEdgeSet(n, width int) edgeSet {
	return edgeSet{width: width, rows: make([][]uint64, n), base: make([]int32, n)}
}

// add records a → b; base is the first node of b's switch.
func (e *edgeSet) add(a, b, base int32) {
	row := e.rows[a]
	if row == nil {
		row = make([]uint64, (e.width+63)/64)
		e.rows[a], e.base[a] = row, base
	}
	i := b - base
	row[i/64] |= 1 << (i % 64)
}

func (e *edgeSet) merge(o edgeSet) {
	for a, row := range o.rows {
		if row == nil {
			continue
		}
		if e.rows[a] == nil {
			e.rows[a], e.base[a] = make([]uint64, len(row)), o.base[a]
		}
		for i, w := range row {
			e.rows[a][i] |= w
		}
	}
}

// list returns the edges ordered by source node, then target.
func (e *edgeSet) list() [][2]int32 {
	var out [][2]int32
	for a, row := range e.rows {
		for i, w := range row {
			for w != 0 {
				j := int32(i*64 + bits.TrailingZeros64(w))
				out = append(out, [2]int32{int32(a), e.base[a] + j})
				w &= w - 1
			}
		}
	}
	return out
}
