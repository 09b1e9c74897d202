package transition

import (
	"fmt"
	"strings"

	"slimroute/lft"
)

// Report is what any mix of two forwarding states can do.
type Report struct {
	// Loop is the forwarding loop of the lowest LID that has one; Loops
	// counts the LIDs with one.
	Loop  *Loop
	Loops int
	// Cycle is a credit loop, channel by channel: each channel's packet
	// (Hop.LID, Hop.SL) goes on to the next, and the last to the first.
	Cycle []Hop
	// Dead spells out up to MaxDead dead ends, in LID order; DeadEnds
	// counts them all (each LID, switch, port, entry and cause once).
	Dead     []string
	DeadEnds int
	// Unjudged counts the LIDs one of the states does not route at all
	// (no switch forwards to their port): their dead ends are no findings.
	Unjudged int
	// Channels some mixed packet travels on, the Dependencies between
	// them, the (source HCA port, LID) Paths judged, the (switch, in port,
	// SL, LID) States expanded, and the data VLs the tables name.
	Channels, Dependencies, Paths, States, VLs int
	// Changed is what differs between the two states.
	Changed Changes
}

// Changes counts what a switch-over changes: LFT entries (switch, LID),
// path SLs (source HCA port, LID) and SL-to-VL entries (switch, in port,
// out port, SL, and HCA port, SL).
type Changes struct {
	Entries, PathSLs, SL2VL int
}

// Hop is one channel of a credit loop: Switch's egress Port toward Peer
// on VL, and the packet that makes the dependency on the next channel: to
// LID on SL, forwarded on by Peer's Entry ("old", "new" or "both") on the
// VL of its Table ("old", "new" or "both" SL-to-VL table).
type Hop struct {
	Switch string
	Port   int
	VL     int
	Peer   string
	LID    lft.LID
	SL     int
	Entry  string
	Table  string
}

// String writes the hop as "sw-a port 3 VL 1 → sw-b: LID 0x0012 SL 1
// goes on by sw-b's new entry, old SL2VL".
func (h Hop) String() string {
	return fmt.Sprintf("%s port %d VL %d → %s: LID %#04x SL %d goes on by %s's %s entry, %s SL2VL",
		h.Switch, h.Port, h.VL, h.Peer, uint16(h.LID), h.SL, h.Peer, spell(h.Entry), spell(h.Table))
}

// Safe reports whether the switch-over has no finding.
func (r *Report) Safe() bool {
	return r.Loop == nil && r.Cycle == nil && r.DeadEnds == 0
}

// Findings says, a line each, what the report found: forwarding loops,
// a credit loop, dead ends, each with its first; none when Safe.
func (r *Report) Findings() []string {
	var out []string
	if r.Loop != nil {
		out = append(out, fmt.Sprintf("forwarding loops toward %d LIDs, first %s", r.Loops, r.Loop))
	}
	if r.Cycle != nil {
		out = append(out, fmt.Sprintf("a credit loop of %d channels, first %s", len(r.Cycle), r.Cycle[0]))
	}
	if r.DeadEnds > 0 {
		out = append(out, fmt.Sprintf("%d dead ends, first %s", r.DeadEnds, r.Dead[0]))
	}
	return out
}

// String writes the report for a network engineer, findings first.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "switch-over of %d LFT entries, %d path SLs, %d SL2VL entries\n",
		r.Changed.Entries, r.Changed.PathSLs, r.Changed.SL2VL)
	if r.Loop != nil {
		fmt.Fprintf(&b, "forwarding loops: %d LIDs, first %s\n", r.Loops, r.Loop)
	}
	if r.Cycle != nil {
		fmt.Fprintf(&b, "credit loop of %d channels:\n", len(r.Cycle))
		for _, h := range r.Cycle {
			fmt.Fprintf(&b, "  %s\n", h)
		}
	}
	if r.DeadEnds > 0 {
		fmt.Fprintf(&b, "dead ends: %d\n", r.DeadEnds)
		for _, d := range r.Dead {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	if r.Safe() {
		b.WriteString("safe: no forwarding loop, no credit loop, no dead end in any mix\n")
	}
	fmt.Fprintf(&b, "judged %d paths (source port, LID), %d states, %d channels on %d VLs, %d dependencies",
		r.Paths, r.States, r.Channels, r.VLs, r.Dependencies)
	if r.Unjudged > 0 {
		fmt.Fprintf(&b, "; %d LIDs not routed by one state, their dead ends not judged", r.Unjudged)
	}
	b.WriteString("\n")
	return b.String()
}

// spell writes "both" as "old and new" in sentences.
func spell(which string) string {
	if which == "both" {
		return "old and new"
	}
	return which
}
