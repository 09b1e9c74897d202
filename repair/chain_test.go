package repair_test

import (
	"fmt"
	"slimroute/repair"
	"strings"
	"testing"
	"time"

	"slimroute/clos"
	"slimroute/dragonflyplus"
	"slimroute/fabric"
	"slimroute/hyperx"
	"slimroute/internal/failures"
	"slimroute/internal/hcavl"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/polarfly"
	"slimroute/slimfly"
	"slimroute/verify"
)

// chainFabric is a fabric the chain tests start from.
type chainFabric struct {
	name  string
	build func() (*fabric.Fabric, error)
	short bool   // part of the -short run
	seeds uint64 // chains per VL count (the larger fabrics take ~25 s each)
	// diameter2: the switch graph is designed with diameter 2 (a repair
	// may mend there)
	diameter2 bool
}

var chainFabrics = []chainFabric{
	{"slimfly-q5", func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 5}) }, true, 3, true},
	{"slimfly-q7", func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 7}) }, false, 1, true},
	{"clos-2level", func() (*fabric.Fabric, error) { return clos.Build(clos.Params{Levels: 2, Radix: 36}) }, false, 1, false},
	{"fattree-3level", func() (*fabric.Fabric, error) { return clos.Build(clos.Params{Levels: 3, Radix: 16, Pods: 4}) }, true, 2, false},
	{"polarfly-q5", func() (*fabric.Fabric, error) { return polarfly.Build(polarfly.Params{Q: 5}) }, true, 2, true},
	{"hyperx-4x4", func() (*fabric.Fabric, error) { return hyperx.Build(hyperx.Params{Dims: []int{4, 4}}) }, true, 2, true},
}

// TestDragonflyPlusChainsRepairOrRecompute: a Dragonfly+ routed Valiant
// style on the dragonfly+ VL scheme goes through the chains of
// TestChainsOfFailuresRepairEveryStep, on 4 and 8 VLs. A step the repair
// cannot give VLs (a new route that needs another global cable's VL where
// the SL-to-VL tables have none) is routed in full, as the plugin does;
// every step's tables pass the verifier on the VLs in force, and the
// steps each way are counted.
func TestDragonflyPlusChainsRepairOrRecompute(t *testing.T) {
	f, err := dragonflyplus.Build(dragonflyplus.Params{Radix: 8, Groups: 5, Global: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, vls := range []int{4, 8} {
		base, err := pipeline.Run(f, pipeline.Config{Layers: 4, VLs: vls, Seed: 1, LMC: -1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := base.Routing.DragonflyPlus(); !ok {
			t.Fatal("the intact Dragonfly+ is not routed as one")
		}
		checkVerified(t, base.Tables, vls)
		for seed := uint64(1); seed <= 3; seed++ {
			steps, err := failures.Chain(f, 0.05, 2, seed)
			if err != nil {
				t.Fatal(err)
			}
			cur, repaired, full := base.Tables, 0, 0
			for i, step := range steps {
				got, _, err := repair.Repair(cur, step.Fabric, repair.Options{Workers: 2, VLs: vls, Base: base.Tables, Clock: time.Now})
				if err != nil {
					res, err2 := pipeline.Run(withLIDsOf(t, base.Tables, step.Fabric), pipeline.Config{Layers: 4, VLs: vls, Seed: 1, LMC: -1, LIDsFromFabric: true, Workers: 2})
					if err2 != nil {
						t.Fatalf("vls=%d seed %d step %d (%s): the repair: %v; routed in full: %v", vls, seed, i+1, step.Change, err, err2)
					}
					got = res.Tables
					full++
				} else {
					repaired++
				}
				checkVerified(t, got, vls)
				cur = got
			}
			t.Logf("vls=%d seed %d: %d steps repaired, %d routed in full", vls, seed, repaired, full)
		}
	}
}

// withLIDsOf returns f with the LIDs base gives its ports, as OpenSM
// keeps them over a full recompute.
func withLIDsOf(t *testing.T, base *lft.Tables, f *fabric.Fabric) *fabric.Fabric {
	t.Helper()
	bf := base.Fabric()
	var ports []lft.PortLIDs
	for _, pl := range base.LIDs().Ports() {
		id, ok := f.NodeByGUID(bf.GUID(pl.Port.Node))
		if !ok {
			continue
		}
		pl.Port.Node = id
		ports = append(ports, pl)
	}
	g, err := lft.RecordLIDs(f, ports)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// runChain repairs every step of a chain drawn from seed on fabric cf,
// routed with vls VLs, each from the last step's tables and with the
// intact routing as the base (mending or not), calling judge with each
// step's tables before and after, and returns the intact routing.
func runChain(t *testing.T, cf chainFabric, vls int, seed uint64, mend bool, judge func(t *testing.T, step failures.Step, base, prev, got *lft.Tables, st repair.Stats)) *lft.Tables {
	f, err := cf.build()
	if err != nil {
		t.Fatal(err)
	}
	base, err := pipeline.Run(f, pipeline.Config{Layers: 4, VLs: vls, Seed: 1, LMC: -1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	steps, err := failures.Chain(f, 0.05, 2, seed)
	if err != nil {
		t.Fatal(err)
	}
	cur, fourHops := base.Tables, 0
	for i, step := range steps {
		got, st, err := repair.Repair(cur, step.Fabric, repair.Options{Workers: 2, VLs: vls, Base: base.Tables, Clock: time.Now, Mend: mend})
		if err != nil {
			t.Fatalf("step %d of %d (%s): %v", i+1, len(steps), step.Change, err)
		}
		if st.FourHops {
			fourHops++
			t.Logf("step %d (%s): the four-hop rule turned on", i+1, step.Change)
		}
		judge(t, step, base.Tables, cur, got, st)
		cur = got
	}
	if fourHops > 1 {
		t.Errorf("the four-hop rule turned on %d times; once on, it stays", fourHops)
	}
	return base.Tables
}

// TestChainsOfFailuresRepairEveryStep: on Slim Fly q = 5 and 7, a
// 2-level Clos, a 3-level fat tree, a PolarFly q = 5 and a 4×4 HyperX
// (issue 29), routed on 4 and on 8 VLs, seeded
// chains of failures — cables one at a time up to 5 % of them, then two
// switches, then everything plugged back one at a time in a random order —
// are repaired at every step, each repair working from the last one's
// tables (never a full recompute). A failure step passes checkRepair (the
// verifier; only entries whose path crossed the failure change, path SLs
// of the others stay; SL2VL entries change for a new spare pair and the
// four-hop rule only); a plug-back step passes checkPlugBack; after the
// last step the tables are the intact routing's again.
func TestChainsOfFailuresRepairEveryStep(t *testing.T) {
	for _, cf := range chainFabrics {
		if testing.Short() && !cf.short {
			continue
		}
		for _, vls := range []int{4, 8} {
			for seed := uint64(1); seed <= cf.seeds; seed++ {
				t.Run(fmt.Sprintf("%s/vls=%d/seed=%d", cf.name, vls, seed), func(t *testing.T) {
					var last *lft.Tables
					base := runChain(t, cf, vls, seed, false, func(t *testing.T, step failures.Step, base, prev, got *lft.Tables, st repair.Stats) {
						if step.Back {
							checkPlugBack(t, base, prev, got, vls)
						} else {
							checkRepairVLs(t, prev, got, step.Fabric, st, vls)
						}
						last = got
					})
					sameTables(t, base, last)
				})
			}
		}
	}
}

// checkPlugBack checks a repair from prev to got on a fabric with
// something back in, base being the intact routing: the verifier accepts
// it; an entry that changes either takes base's port again or belongs to
// a route that led through an entry that did (or is toward a LID, or on a
// switch, that is back); a path SL changes only with its route, or to
// base's.
func checkPlugBack(t *testing.T, base, prev, got *lft.Tables, vls int) {
	t.Helper()
	checkVerified(t, got, vls)
	f, pf, bf := got.Fabric(), prev.Fabric(), base.Fabric()
	in := func(g *fabric.Fabric, sw fabric.NodeID) fabric.NodeID {
		id, ok := g.NodeByGUID(f.GUID(sw))
		if !ok {
			return -1
		}
		return id
	}
	// restored: (switch, LID) entries that took base's port again
	restored := map[[2]int]bool{}
	for _, sw := range got.Switches() {
		psw := in(pf, sw)
		for _, pl := range got.LIDs().Ports() {
			for lid := pl.Base; lid <= pl.Top(); lid++ {
				if psw >= 0 && prev.Port(psw, lid) != got.Port(sw, lid) && got.Port(sw, lid) == base.Port(in(bf, sw), lid) {
					restored[[2]int{int(psw), int(lid)}] = true
				}
			}
		}
	}
	// through says the route of prev from psw toward lid meets a restored entry
	through := func(psw fabric.NodeID, lid lft.LID) bool {
		for hops := 0; psw >= 0 && hops <= len(prev.Switches()); hops++ {
			if restored[[2]int{int(psw), int(lid)}] {
				return true
			}
			peer, ok := pf.Peer(fabric.PortRef{Node: psw, Port: int(prev.Port(psw, lid))})
			if !ok || pf.Kind(peer.Node) != fabric.Switch {
				return false
			}
			psw = peer.Node
		}
		return false
	}
	for _, sw := range got.Switches() {
		psw := in(pf, sw)
		for _, pl := range got.LIDs().Ports() {
			if _, held := prev.LIDs().Of(fabric.PortRef{Node: in(pf, pl.Port.Node), Port: pl.Port.Port}); psw < 0 || !held {
				continue // a switch or LID back in
			}
			for lid := pl.Base; lid <= pl.Top(); lid++ {
				was, is := prev.Port(psw, lid), got.Port(sw, lid)
				if was != is && is != base.Port(in(bf, sw), lid) && !through(psw, lid) {
					t.Fatalf("%s LID 0x%04x: port %d became %d, neither base's %d nor on a route that led through a restored entry", f.Name(sw), lid, was, is, base.Port(in(bf, sw), lid))
				}
			}
		}
	}
	for _, src := range got.LIDs().Ports() {
		peer, ok := f.Peer(src.Port)
		if src.Port.Port == 0 || !ok || in(pf, peer.Node) < 0 {
			continue
		}
		psrc := fabric.PortRef{Node: in(pf, src.Port.Node), Port: src.Port.Port}
		bsrc := fabric.PortRef{Node: in(bf, src.Port.Node), Port: src.Port.Port}
		if _, held := prev.LIDs().Of(psrc); !held {
			continue
		}
		for _, pl := range got.LIDs().Ports() {
			for lid := pl.Base; lid <= pl.Top(); lid++ {
				was, is := prev.PathSL(psrc, lid), got.PathSL(src.Port, lid)
				if was != is && is != base.PathSL(bsrc, lid) && !moved(prev, got, in(pf, peer.Node), peer.Node, lid) {
					t.Fatalf("%s to LID 0x%04x: path SL %d became %d, not base's, on a route that did not move", f.PortString(src.Port), lid, was, is)
				}
			}
		}
	}
}

// checkVerified: the verifier accepts got on at most vls VLs.
func checkVerified(t *testing.T, got *lft.Tables, vls int) {
	t.Helper()
	rep, err := verify.Check(got, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Acyclic() || rep.VLs > vls {
		t.Fatalf("credit loop %q or %d VLs", rep.CycleString(), rep.VLs)
	}
	if m := hcavl.Mismatch(got, vls); m != "" {
		t.Fatal(m)
	}
}

// moved says whether the route from switch psw of prev (sw of got) toward
// lid goes over other switches in got.
func moved(prev, got *lft.Tables, psw, sw fabric.NodeID, lid lft.LID) bool {
	pf, f := prev.Fabric(), got.Fabric()
	for hops := 0; hops <= len(got.Switches()); hops++ {
		a, b := prev.Port(psw, lid), got.Port(sw, lid)
		if a != b {
			return true
		}
		pp, ok1 := pf.Peer(fabric.PortRef{Node: psw, Port: int(a)})
		gp, ok2 := f.Peer(fabric.PortRef{Node: sw, Port: int(b)})
		if !ok1 || !ok2 || pf.Kind(pp.Node) != fabric.Switch {
			return ok1 != ok2
		}
		psw, sw = pp.Node, gp.Node
	}
	return false
}

// sameTables: got holds base's LFTs, path SLs and HCA SL-to-VL tables,
// byte for byte.
func sameTables(t *testing.T, base, got *lft.Tables) {
	t.Helper()
	var outs [2]strings.Builder
	for i, tab := range []*lft.Tables{base, got} {
		if err := lft.WriteOpenSMLFTs(&outs[i], tab, 1); err != nil {
			t.Fatal(err)
		}
		if err := lft.WritePathSL(&outs[i], tab, 1); err != nil {
			t.Fatal(err)
		}
		for _, pl := range tab.LIDs().Ports() {
			if pl.Port.Port != 0 {
				fmt.Fprintf(&outs[i], "%s %v\n", tab.Fabric().PortString(pl.Port), tab.CASL2VL(pl.Port))
			}
		}
	}
	if outs[0].String() != outs[1].String() {
		t.Fatal("with everything back in, the tables are not the intact routing's")
	}
}

// TestChainOnSlimFlyQ11 follows one seeded chain on Slim Fly q = 11 (4
// VLs: 102 cables one at a time, two switches, everything back — 208
// steps): every step repairs from the last one's tables, the verifier
// accepts every tenth step's tables and the last ones (judging every step
// entry by entry, as on the smaller fabrics, would take minutes), and the
// chain ends on the intact tables. The mean entries changed and time per
// repair are logged.
func TestChainOnSlimFlyQ11(t *testing.T) {
	if testing.Short() {
		t.Skip("a 208-step chain on 242 switches")
	}
	q11 := chainFabric{"slimfly-q11", func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 11}) }, false, 1, true}
	var last *lft.Tables
	steps, changed := 0, 0
	var took time.Duration
	base := runChain(t, q11, 4, 1, false, func(t *testing.T, _ failures.Step, _, _, got *lft.Tables, st repair.Stats) {
		if steps%10 == 0 {
			checkVerified(t, got, 4)
		}
		steps, changed, took, last = steps+1, changed+st.Changed, took+st.Time, got
	})
	checkVerified(t, last, 4)
	t.Logf("%d steps, every one repaired; %d entries changed per step, %.1f ms per repair", steps, changed/steps, float64(took.Microseconds())/1000/float64(steps))
	sameTables(t, base, last)
}
