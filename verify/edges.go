package verify

import "math/bits"

// edgeSet is a set of CDG edges between (channel, VL) nodes. An edge
// leaves a node a = (channel, VL) for a node b on a channel of the switch
// that channel leads to, so per a the targets form one short bit row,
// indexed from that switch's first node. The rows live in one arena and
// a node gets its row with its first edge; a node's row offset and base
// sit side by side, so adding an edge reads one small entry and one word.
type edgeSet struct {
	words int       // words per row: the most ports of a switch, plus 1, times 16 VLs, in bits
	rows  []edgeRow // per node a
	arena []uint64
}

// edgeRow locates node a's row: arena[off-1:][:words], off 0 when a has
// no edge yet; bit 0 of the row is node base.
type edgeRow struct{ off, base int32 }

func newEdgeSet(n, width int) edgeSet {
	return edgeSet{words: (width + 63) / 64, rows: make([]edgeRow, n)}
}

// add records a → b; base is the first node of b's switch.
func (e *edgeSet) add(a, b, base int32) {
	r := &e.rows[a]
	if r.off == 0 {
		r.off, r.base = int32(len(e.arena)+1), base
		e.arena = append(e.arena, make([]uint64, e.words)...)
	}
	i := b - r.base
	e.arena[int(r.off-1)+int(i/64)] |= 1 << (i % 64)
}

// row returns node a's row, or nil.
func (e *edgeSet) row(a int) []uint64 {
	r := e.rows[a]
	if r.off == 0 {
		return nil
	}
	return e.arena[r.off-1 : int(r.off-1)+e.words]
}

func (e *edgeSet) merge(o edgeSet) {
	for a, r := range o.rows {
		if r.off == 0 {
			continue
		}
		if e.rows[a].off == 0 {
			e.rows[a] = edgeRow{off: int32(len(e.arena) + 1), base: r.base}
			e.arena = append(e.arena, make([]uint64, e.words)...)
		}
		mine := e.row(a)
		for i, w := range o.row(a) {
			mine[i] |= w
		}
	}
}

// list returns the edges ordered by source node, then target.
func (e *edgeSet) list() [][2]int32 {
	n := 0
	for _, w := range e.arena {
		n += bits.OnesCount64(w)
	}
	out := make([][2]int32, 0, n)
	for a, r := range e.rows {
		for i, w := range e.row(a) {
			for w != 0 {
				j := int32(i*64 + bits.TrailingZeros64(w))
				out = append(out, [2]int32{int32(a), r.base + j})
				w &= w - 1
			}
		}
	}
	return out
}
