package transition

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

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
// is the same for the same tables. It judges on one goroutine; CheckWith
// on more.
func Check(old, new *lft.Tables) (*Report, error) {
	return CheckWith(old, new, Options{Workers: 1})
}

// Options are CheckWith's settings.
type Options struct {
	// Workers is how many goroutines judge the LIDs (at least one); the
	// report is the same for any number.
	Workers int
}

// lidChunk is how many LIDs a worker takes at a time, and maxScratch
// bounds the bytes of the workers' scratch space together (each worker
// 21 bytes per switch port and SL: 3 MB on Slim Fly q = 11, up to 88 MB
// at MaxSwitchPorts), fewer workers judging where more would pass it.
const (
	lidChunk   = 16
	maxScratch = 512 << 20
)

// CheckWith is Check on opts.Workers goroutines: each takes chunks of
// LIDs in turn, judging them into a part of its own (dependencies with
// their first packets, dead ends, loops), and the parts are merged by LID,
// so that what a report names first — the lowest LID's loop, the first
// dead ends, each dependency's packet — is what one goroutine finds.
func CheckWith(old, new *lft.Tables, opts Options) (*Report, error) {
	if err := comparable(old, new); err != nil {
		return nil, err
	}
	if err := bound(old); err != nil {
		return nil, err
	}
	m := newModel(old, new)
	r := &Report{Changed: m.changes(), VLs: m.nvl}
	lost := [2]map[fabric.PortRef]bool{unreachable(old), unreachable(new)}
	chunks := (m.top + lidChunk - 1) / lidChunk
	perWorker := len(m.sw) * m.width * 16 * 21 // the walker's scratch (MaxSwitchPorts)
	parts := make([]*part, max(1, min(opts.Workers, chunks, maxScratch/max(perWorker, 1))))
	var next atomic.Int64
	var wg sync.WaitGroup
	for i := range parts {
		parts[i] = newPart(m)
		wg.Add(1)
		go func(p *part) {
			defer wg.Done()
			for c := int(next.Add(1)) - 1; c < chunks; c = int(next.Add(1)) - 1 {
				for lid := 1 + c*lidChunk; lid <= min(m.top, (c+1)*lidChunk); lid++ {
					p.judge(int32(lid), lost)
				}
			}
		}(parts[i])
	}
	wg.Wait()
	g := merge(r, parts)
	r.Channels, r.Dependencies = g.channels(), g.deps
	r.Cycle = g.hops(g.cycle())
	return r, nil
}

// part is what one worker found for the LIDs it judged.
type part struct {
	m               *model
	g               *graph
	w               *walker
	dead            *deadEnds
	color           []uint8
	loop            *Loop
	loops, unjudged int
	paths           int
}

func newPart(m *model) *part {
	p := &part{m: m, g: newGraph(m), dead: &deadEnds{}, color: make([]uint8, len(m.sw))}
	p.w = newWalker(m, p.g, p.dead)
	return p
}

// judge judges the packets to lid: its forwarding loops, then every
// source's packets (lost: the ports each state routes nothing to).
func (p *part) judge(lid int32, lost [2]map[fabric.PortRef]bool) {
	m := p.m
	if !m.owned[lid] {
		return
	}
	if l := m.loopAt(lid, p.color); l != nil {
		p.loops++
		if p.loop == nil || l.LID < p.loop.LID {
			p.loop = l
		}
	}
	p.w.judge = !lost[oldState][m.owner[lid]] && !lost[newState][m.owner[lid]]
	if !p.w.judge {
		p.unjudged++
	}
	p.paths += p.w.send(lid)
}

// merge adds the parts' findings to r, by LID, and returns their
// dependency graph.
func merge(r *Report, parts []*part) *graph {
	g := parts[0].g
	var dead []deadEnd
	for i, p := range parts {
		if i > 0 {
			g.union(p.g)
		}
		r.Loops, r.Unjudged, r.Paths, r.States = r.Loops+p.loops, r.Unjudged+p.unjudged, r.Paths+p.paths, r.States+p.w.states
		if p.loop != nil && (r.Loop == nil || p.loop.LID < r.Loop.LID) {
			r.Loop = p.loop
		}
		r.DeadEnds += p.dead.count
		dead = append(dead, p.dead.first...)
	}
	slices.SortStableFunc(dead, func(a, b deadEnd) int { return cmp.Compare(a.lid, b.lid) }) // (a LID's in one part, in its order)
	for _, d := range dead[:min(len(dead), MaxDead)] {
		r.Dead = append(r.Dead, d.msg)
	}
	return g
}

// ErrTooLarge is Check's error for a fabric beyond MaxStates or
// MaxSwitchPorts.
var ErrTooLarge = errors.New("transition: fabric too large to judge")

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
		return fmt.Errorf("%w: %d LIDs × %d switch ports × 16 SLs = %d states (at most %d), %d switches × %d ports (at most %d)",
			ErrTooLarge, lids, ports, states, MaxStates, sw, width, MaxSwitchPorts)
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
