package transition

import (
	"fmt"
	"strings"

	"slimroute/lft"
)

// Loop is a forwarding loop: switches a packet to LID can circle through
// when some of them forward by their old entry and others by their new.
type Loop struct {
	LID  lft.LID
	Hops []LoopHop // the last leads back to the first
}

// LoopHop is one switch of a loop, the port it forwards the LID by, and
// whether that is its "old" entry, its "new" one or "both".
type LoopHop struct {
	Switch string
	Port   int
	Entry  string
}

// String writes the loop as "LID 0x0012: sw-a port 7 (old) → sw-b port 2
// (new) → sw-a".
func (l *Loop) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "LID %#04x: ", uint16(l.LID))
	for _, h := range l.Hops {
		fmt.Fprintf(&b, "%s port %d (%s) → ", h.Switch, h.Port, h.Entry)
	}
	if len(l.Hops) > 0 {
		b.WriteString(l.Hops[0].Switch)
	}
	return b.String()
}

// step is a switch and the port it forwards by, on a loop search's path.
type step struct {
	s   int32
	out uint8
}

// loopAt returns a cycle of the graph of lid whose edges are every
// switch's old and new next hop, or nil. color is scratch space, one per
// switch. Switches are tried in index order, so the loop is the same for
// the same tables.
func (m *model) loopAt(lid int32, color []uint8) *Loop {
	clear(color)
	var path []step
	for s := range m.sw {
		if color[s] == 0 {
			if cyc := m.loopFrom(lid, int32(s), color, &path); cyc != nil {
				return m.loopOf(lid, cyc)
			}
		}
	}
	return nil
}

// loopFrom searches depth first from switch s; path holds the steps from
// the root, one per switch still being searched (color 1).
func (m *model) loopFrom(lid, s int32, color []uint8, path *[]step) []step {
	color[s] = 1
	for st := range 2 {
		out := m.lft[st][s][lid]
		if st == newState && out == m.lft[oldState][s][lid] {
			continue
		}
		t := m.nextSwitch(s, out)
		if t < 0 || color[t] == 2 {
			continue
		}
		*path = append(*path, step{s, out})
		if color[t] == 1 {
			for i, p := range *path {
				if p.s == t {
					return append([]step(nil), (*path)[i:]...)
				}
			}
		} else if cyc := m.loopFrom(lid, t, color, path); cyc != nil {
			return cyc
		}
		*path = (*path)[:len(*path)-1]
	}
	color[s] = 2
	return nil
}

// nextSwitch returns the switch at the other end of switch s's port out,
// or -1 when out leads to no switch.
func (m *model) nextSwitch(s int32, out uint8) int32 {
	if out == 0 || int(out) >= len(m.ends[s]) {
		return -1
	}
	return m.ends[s][out].sw
}

// loopOf names the steps of a loop.
func (m *model) loopOf(lid int32, cyc []step) *Loop {
	l := &Loop{LID: lft.LID(lid)}
	for _, p := range cyc {
		l.Hops = append(l.Hops, LoopHop{Switch: m.f.Name(m.sw[p.s]), Port: int(p.out), Entry: m.entry(p.s, lid, p.out)})
	}
	return l
}

// entry says which state's entry of switch s for lid is out.
func (m *model) entry(s, lid int32, out uint8) string {
	o, n := m.lft[oldState][s][lid], m.lft[newState][s][lid]
	if out == o {
		return which(o == n, oldState)
	}
	return "new"
}
