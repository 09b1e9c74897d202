package engine

import (
	"fmt"

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
	if why := smallChange(base.Fabric(), f); why != "" {
		return nil, fmt.Sprintf("the subnet changed more than a repair covers (%s); recomputing in full", why), false
	}
	tab, st, err := repair.Repair(last.tables, f, repair.Options{Workers: cfg.Workers, VLs: cfg.VLs, Base: base})
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
	text := fmt.Sprintf("slimroute: repaired the last routing: %d LIDs had routes over what is gone, %d of %d LFT entries that crossed it changed, %d returned to the base routing, %d path SLs changed, %d routes on spare SLs %v%s; to send: %d LFT blocks, %d SL2VL tables; verifier: no loops, acyclic CDG over %d paths on %d VLs",
		st.LIDs, st.Changed, st.Crossed, st.Restored, st.PathSLs, st.Escaped, st.Spares, map[bool]string{true: ", the four-hop rule turned on", false: ""}[st.FourHops], blocks, sl2vl, rep.Walks, rep.VLs)
	return &State{tables: tab, base: base, settings: last.settings, summary: text, vls: last.vls}, text, true
}

// smallChange says why fabric g is not old with a few cables or switches
// removed ("" if it is): a node or cable old lacks was added, or too many
// are gone.
func smallChange(old, g *fabric.Fabric) string {
	for _, id := range g.IDsOf(fabric.Switch) {
		if _, ok := old.NodeByGUID(g.Node(id).GUID); !ok {
			return "a switch was added"
		}
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
		if okA && okB && !linked(old, g, l.A, l.B) {
			gone++ // a gone switch's cables count with the switch
		}
	}
	for _, l := range g.Links() {
		if !linked(g, old, l.A, l.B) {
			return "a cable was added"
		}
	}
	if goneSwitches > maxGoneSwitches || float64(gone) > max(1, maxGoneShare*float64(inter)) {
		return fmt.Sprintf("%d cables and %d switches are gone", gone, goneSwitches)
	}
	return ""
}

// linked says whether ports a and b of fabric f are cabled together in
// fabric g too, matched by node GUID and port number.
func linked(f, g *fabric.Fabric, a, b fabric.PortRef) bool {
	ga, ok1 := g.NodeByGUID(f.Node(a.Node).GUID)
	gb, ok2 := g.NodeByGUID(f.Node(b.Node).GUID)
	if !ok1 || !ok2 {
		return false
	}
	peer, ok := g.Peer(fabric.PortRef{Node: ga, Port: a.Port})
	return ok && peer == fabric.PortRef{Node: gb, Port: b.Port}
}
