package transition

import (
	"fmt"

	"slimroute/fabric"
	"slimroute/lft"
)

// walker expands the states (switch, in port, SL) of the packets to one
// LID at a time. A state is expanded once per LID (stamp), whatever number
// of mixed paths lead to it; outs holds the channels it sends on.
type walker struct {
	m      *model
	g      *graph
	lid    int32
	stamp  []int32
	outs   []int32 // 4 per state: two next hops × two VLs
	nout   []uint8
	states int
	dead   *deadEnds
	judge  bool // dead ends of this LID are findings
}

// newWalker makes a walker over m adding dependencies to g.
func newWalker(m *model, g *graph, dead *deadEnds) *walker {
	n := len(m.sw) * m.width * 16
	w := &walker{m: m, g: g, stamp: make([]int32, n), outs: make([]int32, 4*n),
		nout: make([]uint8, n), dead: dead}
	return w
}

// id returns the index of state (s, in, sl).
func (w *walker) id(s int32, in, sl uint8) int32 {
	return (s*int32(w.m.width)+int32(in))*16 + int32(sl)
}

// visit expands state (s, in, sl) for the current LID unless done, then
// adds the dependencies from each of its channels to the channels of the
// state that channel leads to; it returns the state's index. Its channels
// are known before it recurses, so a forwarding loop ends the recursion.
func (w *walker) visit(s int32, in, sl uint8) int32 {
	id := w.id(s, in, sl)
	if w.stamp[id] == w.lid {
		return id
	}
	w.stamp[id] = w.lid
	w.states++
	w.nout[id] = 0
	w.expand(id, s, in, sl)
	for _, c := range w.outs[4*id : 4*id+int32(w.nout[id])] {
		l := w.m.links[c/int32(w.g.nvl)]
		e := w.m.ends[l.sw][l.port]
		next := w.visit(e.sw, uint8(e.peer.Port), sl)
		for _, c2 := range w.outs[4*next : 4*next+int32(w.nout[next])] {
			w.g.add(c, c2, witness{lid: w.lid, sl: sl})
		}
	}
	return id
}

// expand fills the channels of state id: both next hops of switch s, each
// on both VLs; it notes dead ends and deliveries end the path.
func (w *walker) expand(id, s int32, in, sl uint8) {
	old, new := w.m.lft[oldState][s][w.lid], w.m.lft[newState][s][w.lid]
	w.hop(id, s, in, sl, old, which(old == new, oldState))
	if new != old {
		w.hop(id, s, in, sl, new, "new")
	}
}

// hop follows one next hop out of state id.
func (w *walker) hop(id, s int32, in, sl, out uint8, entry string) {
	m := w.m
	switch {
	case out == lft.Drop:
		w.deadEnd(s, out, entry, "drops it")
		return
	case out == 0:
		if m.owner[w.lid] != (fabric.PortRef{Node: m.sw[s]}) {
			w.deadEnd(s, out, entry, "sends it to its own port 0, which does not hold it")
		}
		return
	case int(out) >= len(m.ends[s]):
		w.deadEnd(s, out, entry, "names a port the switch lacks")
		return
	case !m.ends[s][out].cabled:
		w.deadEnd(s, out, entry, "has no cable")
		return
	}
	v0, v1 := m.vlOf(oldState, s, in, out, sl), m.vlOf(newState, s, in, out, sl)
	w.onVL(id, s, out, sl, v0, entry, which(v0 == v1, oldState))
	if v1 != v0 {
		w.onVL(id, s, out, sl, v1, entry, "new")
	}
}

// onVL sends the packet of state id out of port out on VL vl: to an HCA
// (delivered, or a dead end) or onto a channel.
func (w *walker) onVL(id, s int32, out, sl, vl uint8, entry, table string) {
	e := w.m.ends[s][out]
	switch {
	case vl == dropVL:
		w.deadEnd(s, out, entry, fmt.Sprintf("maps SL %d to VL 15 (%s SL2VL), which drops it", sl, spell(table)))
	case e.sw < 0:
		if e.peer != w.m.owner[w.lid] {
			w.deadEnd(s, out, entry, "leads to "+w.m.f.PortString(e.peer)+", which does not hold it")
		}
	default:
		c := w.g.channel(w.m.linkAt(s, out), vl)
		w.g.used[c] = true
		outs := w.outs[4*id : 4*id+int32(w.nout[id])]
		for _, o := range outs {
			if o == c {
				return
			}
		}
		w.outs[4*id+int32(w.nout[id])] = c
		w.nout[id]++
	}
}

// which names the state an entry comes from: "both" when old and new agree.
func which(same bool, st int) string {
	switch {
	case same:
		return "both"
	case st == oldState:
		return "old"
	}
	return "new"
}

// deadEnd notes that switch s's entry (old, new or both) for the LID,
// port out, ends the packet, if dead ends of this LID are findings.
func (w *walker) deadEnd(s int32, out uint8, entry, what string) {
	if !w.judge {
		return
	}
	name := w.m.f.Name(w.m.sw[s])
	var msg string
	if out == lft.Drop {
		msg = fmt.Sprintf("LID %#04x: %s (%s entry) %s", w.lid, name, spell(entry), what)
	} else {
		msg = fmt.Sprintf("LID %#04x: %s port %d (%s entry) %s", w.lid, name, out, spell(entry), what)
	}
	w.dead.note(w.lid, msg)
}
