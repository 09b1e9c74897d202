package transition

import (
	"fmt"

	"slimroute/fabric"
	"slimroute/lft"
)

// MaxStates bounds the worst case of Check, LIDs × Σ_switches (ports+1) ×
// 16 SLs: about a minute and a half of work. The largest fabrics of
// interest (250 switches of 40 ports, 2,500 HCAs with 4 LIDs each) stay
// below it; Slim Fly q = 7 with LMC 2 is 70 million.
const MaxStates = 1 << 31

// MaxSwitchPorts bounds switches × (the most ports of a switch + 1), which
// sizes the per-LID scratch space (21 bytes per port and SL).
const MaxSwitchPorts = 1 << 18

// Check judges the switch-over from old to new, tables of the same fabric
// and LID plan: whether any mix of their LFT entries, path SLs and
// SL-to-VL tables can loop, hold a credit loop or drop a packet (see the
// package doc). It fails for tables that cannot be compared, saying what
// differs, and for fabrics beyond MaxStates or MaxSwitchPorts. The report
// is the same for the same tables.
func Check(old, new *lft.Tables) (*Report, error) {
	if err := comparable(old, new); err != nil {
		return nil, err
	}
	if err := bound(old); err != nil {
		return nil, err
	}
	m := newModel(old, new)
	r := &Report{Changed: m.changes(), VLs: m.nvl}
	g := newGraph(m)
	dead := &deadEnds{}
	w := newWalker(m, g, dead)
	lost := [2]map[fabric.PortRef]bool{unreachable(old), unreachable(new)}
	color := make([]uint8, len(m.sw))
	for lid := 1; lid <= m.top; lid++ {
		if !m.owned[lid] {
			continue
		}
		if l := m.loopAt(int32(lid), color); l != nil {
			r.Loops++
			if r.Loop == nil {
				r.Loop = l
			}
		}
		w.judge = !lost[oldState][m.owner[lid]] && !lost[newState][m.owner[lid]]
		if !w.judge {
			r.Unjudged++
		}
		r.Paths += w.send(int32(lid))
	}
	r.Dead, r.DeadEnds, r.States = dead.msgs, dead.count, w.states
	r.Channels, r.Dependencies = g.channels(), g.deps
	r.Cycle = g.hops(g.cycle())
	return r, nil
}

// bound refuses fabrics whose worst case exceeds MaxStates or
// MaxSwitchPorts.
func bound(t *lft.Tables) error {
	f := t.Fabric()
	ports, width, sw := 0, 0, 0
	for _, id := range f.IDsOf(fabric.Switch) {
		ports += f.Ports(id) + 1
		width = max(width, f.Ports(id)+1)
		sw++
	}
	lids := int(t.LIDs().Top())
	if states := lids * ports * 16; states > MaxStates || sw*width > MaxSwitchPorts {
		return fmt.Errorf("transition: fabric too large to judge: %d LIDs × %d switch ports × 16 SLs = %d states (at most %d), %d switches × %d ports (at most %d)",
			lids, ports, states, MaxStates, sw, width, MaxSwitchPorts)
	}
	return nil
}

// unreachable returns the ports t routes no packet to.
func unreachable(t *lft.Tables) map[fabric.PortRef]bool {
	out := map[fabric.PortRef]bool{}
	for _, p := range t.Unreachable() {
		out[p] = true
	}
	return out
}

// send starts the packets to the walker's LID at every source but the
// LID's own port, with the source's old and new path SL, and returns how
// many sources it started from.
func (w *walker) send(lid int32) int {
	w.lid = lid
	n := 0
	for i := range w.m.srcs {
		src := &w.m.srcs[i]
		if src.port == w.m.owner[lid] {
			continue
		}
		n++
		s0, s1 := w.m.sl[oldState][src.class[oldState]][lid], w.m.sl[newState][src.class[newState]][lid]
		w.start(src, s0, which(s0 == s1, oldState))
		if s1 != s0 {
			w.start(src, s1, "new")
		}
	}
	return n
}

// start sends a packet from src on SL sl (its path record's: rec): the
// HCA drops it if its own SL-to-VL table, old or new, maps sl to VL 15.
func (w *walker) start(src *source, sl uint8, rec string) {
	for st := range 2 {
		if src.ca[st][sl] == dropVL && w.judge {
			w.dead.note(w.lid, fmt.Sprintf("LID %#04x: %s sends SL %d (%s path record) on VL 15 (%s SL2VL), which drops it",
				w.lid, w.m.f.PortString(src.port), sl, spell(rec), spell(which(src.ca[0][sl] == src.ca[1][sl], st))))
		}
	}
	w.visit(src.sw, src.in, sl)
}
