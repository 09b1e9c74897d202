package transition

import "slimroute/lft"

// hops names the channels of a credit loop, each with the packet that makes
// its dependency on the next.
func (g *graph) hops(cyc []int32) []Hop {
	var out []Hop
	for i, c := range cyc {
		next := cyc[(i+1)%len(cyc)]
		w := g.why[[2]int32{c, next}]
		l, l2 := g.m.links[c/int32(g.nvl)], g.m.links[next/int32(g.nvl)]
		e := g.m.ends[l.sw][l.port]
		in := uint8(e.peer.Port)
		v0 := g.m.vlOf(oldState, e.sw, in, l2.port, w.sl)
		v1 := g.m.vlOf(newState, e.sw, in, l2.port, w.sl)
		table := which(v0 == v1, oldState)
		if int32(v0) != next%int32(g.nvl) {
			table = "new"
		}
		out = append(out, Hop{
			Switch: g.m.f.Name(g.m.sw[l.sw]), Port: int(l.port), VL: int(c % int32(g.nvl)),
			Peer: g.m.f.Name(g.m.sw[e.sw]), LID: lft.LID(w.lid), SL: int(w.sl),
			Entry: g.m.entry(e.sw, w.lid, l2.port), Table: table,
		})
	}
	return out
}
