package verify

import "math/bits"

// findCycle returns the nodes of one directed cycle of the CDG e holds
// (first node not repeated), or nil when it is acyclic: an iterative
// depth-first search with colours, roots in node order and each node's
// edges in target order, read from the bit rows as they are.
func (e *edgeSet) findCycle() []int32 {
	const white, gray, black = 0, 1, 2
	color := make([]uint8, len(e.rows))
	next := make([]int32, len(e.rows)) // per node: the first bit of its row not yet explored
	var stack []int32
	for root := range e.rows {
		if color[root] != white || e.rows[root].num == 0 {
			continue
		}
		stack = append(stack[:0], int32(root))
		color[root] = gray
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			v, ok := e.nextEdge(u, &next[u])
			if !ok {
				color[u] = black
				stack = stack[:len(stack)-1]
				continue
			}
			switch color[v] {
			case white:
				color[v] = gray
				stack = append(stack, v)
			case gray:
				for i := len(stack) - 1; i >= 0; i-- {
					if stack[i] == v {
						return append([]int32(nil), stack[i:]...)
					}
				}
			}
		}
	}
	return nil
}

// nextEdge returns the target of u's first edge at or after bit *from of
// its row and moves *from past it; false when there is none.
func (e *edgeSet) nextEdge(u int32, from *int32) (int32, bool) {
	r := e.rows[u]
	if r.num == 0 {
		return 0, false
	}
	row := e.row(r.num)
	for i := int(*from) / 64; i < len(row); i++ {
		w := row[i]
		if i == int(*from)/64 {
			w &= ^uint64(0) << (uint(*from) % 64)
		}
		if w != 0 {
			j := int32(i*64 + bits.TrailingZeros64(w))
			*from = j + 1
			return r.base + j, true
		}
	}
	*from = int32(len(row) * 64)
	return 0, false
}
