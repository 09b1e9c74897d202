package engine

import (
	"fmt"
	"strings"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/repair"
	"slimroute/verify"
)

// maxGone is the most switch-to-switch cables (as a share of the last
// fabric's) and switches that may be gone for a sweep to repair the last
// routing rather than recompute it.
const (
	maxGoneShare    = 0.05
	maxGoneSwitches = 2
)

// repairLast repairs the last routing for fabric f when f differs from
// the base routing's fabric (the last full computation's) by a few cables
// or switches gone and nothing else — so cables and switches coming back
// are repaired too, their routes returning to the base's — the LIDs
// OpenSM assigned are the ones the tables hold, and the repaired tables
// pass the verifier. Otherwise it reports false and why.
func repairLast(last *State, f *fabric.Fabric, cfg pipeline.Config) (*State, string, bool) {
	base := last.base
	if base == nil {
		base = last.tables
	}
	from, base, hosts := withNewHosts(last.tables, base, f)
	if why := smallChange(base.Fabric(), f); why != "" {
		return nil, fmt.Sprintf("the subnet changed more than a repair covers (%s); recomputing in full", why), false
	}
	st, text, ok := repairFrom(last, from, f, cfg, base)
	if ok && len(hosts) > 0 {
		st.summary = fmt.Sprintf("%s; HCAs new to the routing or recabled (%d): %s, each routed as the HCA with the lowest port GUID that stays on its switch", st.summary, len(hosts), strings.Join(hosts, ", "))
		text = st.summary
	}
	return st, text, ok
}

// withNewHosts extends the last tables and the base routing to the HCAs
// fabric f adds (a host powered on or replaced), at the LIDs OpenSM gave
// them, each routed as an HCA on its switch (repair.WithNewHosts), so that
// such a host is a repair, not a full recompute. Where they cannot be
// extended it returns both as they are (smallChange then finds the host
// added).
func withNewHosts(last, base *lft.Tables, f *fabric.Fabric) (*lft.Tables, *lft.Tables, []string) {
	from, b, hosts, err := repair.WithNewHosts(last, base, f, func(g *fabric.Fabric) (*lft.LIDs, error) {
		return lft.AssignLIDs(g, lft.LIDOptions{LMC: int(last.LIDs().LMC()), FromFabric: true})
	})
	if err != nil || len(hosts) == 0 {
		return last, base, nil
	}
	return from, b, hosts
}

// keepLast is the way out when the full recompute of fabric f failed with
// err (no VL scheme fits the VLs in force, say) after cables or switches
// went or came back: the last routing repaired for f, however far f has
// drifted from its base, with routes returning to the origin's (the full
// computation of the largest fabric) as they come back — a routing that
// was running beats none. Where the switches that came back get no
// routes under the VLs in force, it leaves them and their HCAs out
// (dark: their tables drop everything) and repairs for the rest. It
// reports false when that repair fails too.
func keepLast(last *State, f *fabric.Fabric, cfg pipeline.Config, err error) (*State, bool) {
	base := last.origin
	if base == nil || added(base.Fabric(), f) != "" {
		base = last.base
	}
	if st, text, ok := repairFrom(last, last.tables, f, cfg, base); ok {
		st.base = last.base
		st.summary = fmt.Sprintf("slimroute: kept the last routing, since %v; %s", err, text)
		return st, true
	}
	g, dark, names := withoutNew(last.tables.Fabric(), f)
	if len(dark) == 0 {
		return nil, false
	}
	st, text, ok := repairFrom(last, last.tables, g, cfg, base)
	if !ok {
		return nil, false
	}
	st.base, st.dark = last.base, dark
	st.summary = fmt.Sprintf("slimroute: kept the last routing, since %v; switches back in left out of the routing (their tables drop every packet, their HCAs unreachable) until a full recompute fits: %s; %s", err, strings.Join(names, ", "), text)
	return st, true
}

// withoutNew returns f without the switches old lacks and the HCAs cabled
// to them, those switches' GUIDs and their names.
func withoutNew(old, f *fabric.Fabric) (*fabric.Fabric, map[fabric.GUID]bool, []string) {
	dark := map[fabric.GUID]bool{}
	var drop []fabric.NodeID
	var names []string
	for _, id := range f.IDsOf(fabric.Switch) {
		if _, ok := old.NodeByGUID(f.GUID(id)); ok {
			continue
		}
		dark[f.GUID(id)] = true
		names = append(names, f.Name(id))
		drop = append(drop, id)
		for p := 1; p <= f.Node(id).Ports; p++ {
			if peer, ok := f.Peer(fabric.PortRef{Node: id, Port: p}); ok && f.Node(peer.Node).Kind != fabric.Switch {
				drop = append(drop, peer.Node)
			}
		}
	}
	if len(drop) == 0 {
		return f, nil, nil
	}
	g, err := f.Without(drop, nil)
	if err != nil {
		return f, nil, nil
	}
	return g, dark, names
}

// repairFrom repairs the last routing (its tables as from has them: the
// same, or extended to new hosts) for fabric f with routes returning to
// base's, checks the LIDs and verifies the result (repairLast); what is
// to send is counted against the last tables.
func repairFrom(last *State, from *lft.Tables, f *fabric.Fabric, cfg pipeline.Config, base *lft.Tables) (*State, string, bool) {
	tab, st, err := repair.Repair(from, f, repair.Options{Workers: cfg.Workers, VLs: cfg.VLs, Base: base, Mend: cfg.Mending()})
	if err != nil {
		return nil, fmt.Sprintf("cannot repair the last routing (%v); recomputing in full", err), false
	}
	for _, pl := range tab.LIDs().Ports() {
		if a, _ := f.PortAttr(pl.Port); a.LID != 0 && a.LID != uint16(pl.Base) {
			return nil, fmt.Sprintf("%s holds LID 0x%04x now, 0x%04x before; recomputing in full", f.PortString(pl.Port), a.LID, pl.Base), false
		}
	}
	rep, err := verify.Check(tab, cfg.Workers)
	if err == nil && !rep.Acyclic() {
		err = fmt.Errorf("credit loop %s", rep.CycleString())
	}
	if err != nil {
		return nil, fmt.Sprintf("the repaired routing fails the verifier (%v); recomputing in full", err), false
	}
	blocks, sl2vl := lft.Sent(last.tables, tab)
	text := fmt.Sprintf("slimroute: repaired the last routing: %d LIDs had routes over what is gone, %d of %d LFT entries that crossed it changed, %d returned to the base routing, %d of routes that did not break moved to give %d pairs their disjoint paths back (mend), %d path SLs changed, %d routes on spare SLs %v%s; to send: %d LFT blocks, %d SL2VL tables; verifier: no loops, acyclic CDG over %d paths on %d VLs",
		st.LIDs, st.Changed-st.Mended, st.Crossed, st.Restored, st.Mended, st.MendedPairs, st.PathSLs, st.Escaped, st.Spares, map[bool]string{true: ", the four-hop rule turned on", false: ""}[st.FourHops], blocks, sl2vl, rep.Walks, rep.VLs)
	next := &State{tables: tab, base: base, origin: last.origin, settings: last.settings, jobs: last.jobs, summary: text, vls: last.vls}
	if blocks == 0 && sl2vl == 0 && st.PathSLs == 0 {
		next.result = last.result // nothing changed: still that computation's tables
	}
	return next, text, true
}

// smallChange says why fabric g is not old with a few cables or switches
// removed ("" if it is): a node or cable old lacks was added, or too many
// are gone.
func smallChange(old, g *fabric.Fabric) string {
	if why := added(old, g); why != "" {
		return why
	}
	goneSwitches := len(old.IDsOf(fabric.Switch)) - len(g.IDsOf(fabric.Switch))
	inter, gone := 0, 0
	for _, l := range old.Links() {
		if old.Node(l.A.Node).Kind != fabric.Switch || old.Node(l.B.Node).Kind != fabric.Switch {
			continue
		}
		inter++
		_, okA := g.NodeByGUID(old.GUID(l.A.Node))
		_, okB := g.NodeByGUID(old.GUID(l.B.Node))
		if okA && okB && !old.CabledIn(g, l) {
			gone++ // a gone switch's cables count with the switch
		}
	}
	if goneSwitches > maxGoneSwitches || float64(gone) > max(1, maxGoneShare*float64(inter)) {
		return fmt.Sprintf("%d cables and %d switches are gone", gone, goneSwitches)
	}
	return ""
}

// added says what fabric g has that old lacks ("" if nothing): a switch
// or a cable.
func added(old, g *fabric.Fabric) string {
	for _, id := range g.IDsOf(fabric.Switch) {
		if _, ok := old.NodeByGUID(g.Node(id).GUID); !ok {
			return "a switch was added"
		}
	}
	for _, l := range g.Links() {
		if g.CabledIn(old, l) {
			continue
		}
		for _, end := range []fabric.PortRef{l.A, l.B} {
			if g.Kind(end.Node) == fabric.HCA {
				return fmt.Sprintf("HCA %s is new or recabled, and no HCA the routing routes stays on its switch to route it as", g.Name(end.Node))
			}
		}
		return "a cable was added"
	}
	return ""
}
