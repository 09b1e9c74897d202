package transition

import "math/bits"

// witness names a packet that makes a dependency: its LID and SL.
type witness struct {
	lid int32
	sl  uint8
}

// graph is the channel dependency graph. Channel c is directed link c/nvl
// on VL c%nvl. The successors of a channel all leave the switch its link
// leads to, so a channel's row of bits is indexed by that switch's egress
// port and VL: port*nvl+vl.
type graph struct {
	m     *model
	nvl   int
	words int      // words per row
	rows  []uint64 // per channel: its successors
	used  []bool   // per channel: some packet travels on it
	why   map[[2]int32]witness
	deps  int
}

// newGraph makes an empty graph over m's channels.
func newGraph(m *model) *graph {
	nvl := max(m.nvl, 1)
	words := (m.width*nvl + 63) / 64
	n := len(m.links) * nvl
	return &graph{m: m, nvl: nvl, words: words, rows: make([]uint64, n*words),
		used: make([]bool, n), why: map[[2]int32]witness{}}
}

// channel returns the channel of link l on VL vl.
func (g *graph) channel(l int32, vl uint8) int32 { return l*int32(g.nvl) + int32(vl) }

// add records that c1 → c2, made by packet w, unless known.
func (g *graph) add(c1, c2 int32, w witness) {
	l := g.m.links[c2/int32(g.nvl)]
	bit := int(l.port)*g.nvl + int(c2)%g.nvl
	word := &g.rows[int(c1)*g.words+bit/64]
	if *word&(1<<(bit%64)) != 0 {
		return
	}
	*word |= 1 << (bit % 64)
	g.why[[2]int32{c1, c2}] = w
	g.deps++
}

// union adds o's channels and dependencies to g, each dependency with the
// packet of the lower LID where both have it (LIDs judged by one part only).
func (g *graph) union(o *graph) {
	for i, w := range o.rows {
		g.rows[i] |= w
	}
	for c, u := range o.used {
		g.used[c] = g.used[c] || u
	}
	for e, w := range o.why {
		if have, ok := g.why[e]; !ok || w.lid < have.lid {
			g.why[e] = w
		}
	}
	g.deps = len(g.why)
}

// successors calls f with every successor of c, in channel order.
func (g *graph) successors(c int32, f func(int32)) {
	t := g.m.ends[g.m.links[c/int32(g.nvl)].sw][g.m.links[c/int32(g.nvl)].port].sw
	row := g.rows[int(c)*g.words : int(c+1)*g.words]
	for i, w := range row {
		for w != 0 {
			bit := i*64 + bits.TrailingZeros64(w)
			w &= w - 1
			l := g.m.linkAt(t, uint8(bit/g.nvl))
			f(g.channel(l, uint8(bit%g.nvl)))
		}
	}
}

// channels counts the channels some packet travels on.
func (g *graph) channels() int {
	n := 0
	for _, u := range g.used {
		if u {
			n++
		}
	}
	return n
}

// cycle returns a cycle of the graph as its channels in order (the last
// depends on the first), or nil: the first a depth-first search finds from
// the lowest channel, so the same graph gives the same cycle.
func (g *graph) cycle() []int32 {
	color := make([]uint8, len(g.used)) // 0 new, 1 on the path, 2 done
	for c := range g.used {
		if color[c] == 0 && g.used[c] {
			if cyc := g.search(int32(c), color); cyc != nil {
				return cyc
			}
		}
	}
	return nil
}

// search is the depth-first search of cycle from root, iterative so that
// long chains do not grow the stack: path holds the channels on the path,
// next the successors of each still to try.
func (g *graph) search(root int32, color []uint8) []int32 {
	path := []int32{root}
	next := [][]int32{g.list(root)}
	color[root] = 1
	for len(path) > 0 {
		top := len(path) - 1
		if len(next[top]) == 0 {
			color[path[top]] = 2
			path, next = path[:top], next[:top]
			continue
		}
		c := next[top][0]
		next[top] = next[top][1:]
		switch color[c] {
		case 1:
			for i, p := range path {
				if p == c {
					return append([]int32(nil), path[i:]...)
				}
			}
		case 0:
			color[c] = 1
			path, next = append(path, c), append(next, g.list(c))
		}
	}
	return nil
}

// list returns the successors of c.
func (g *graph) list(c int32) []int32 {
	var out []int32
	g.successors(c, func(s int32) { out = append(out, s) })
	return out
}
