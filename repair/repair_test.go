package repair_test

import (
	"fmt"
	"slimroute/repair"
	"strings"
	"sync"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

// runs caches the Slim Fly routings the tests repair.
var runs sync.Map // "q/scheme/failed cables/seed" -> *pipeline.Result

// routed returns the routing of Slim Fly q with cables failed cables
// (drawn from seed) under deadlock scheme scheme.
func routed(t testing.TB, q int, scheme string, cables int, seed uint64) *pipeline.Result {
	t.Helper()
	key := fmt.Sprintf("%d/%s/%d/%d", q, scheme, cables, seed)
	if res, ok := runs.Load(key); ok {
		return res.(*pipeline.Result)
	}
	f, err := slimfly.Build(slimfly.Params{Q: q})
	if err != nil {
		t.Fatal(err)
	}
	f = failure(t, f, cables, 0, seed)
	res, err := pipeline.Run(f, pipeline.Config{Layers: 4, Deadlock: scheme, VLs: 4, Seed: 1, LMC: -1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	runs.Store(key, res)
	return res
}

// failure removes cables random switch-to-switch cables and switches
// random switches from f, drawn from seed, keeping the switches connected.
func failure(t testing.TB, f *fabric.Fabric, cables, switches int, seed uint64) *fabric.Fabric {
	t.Helper()
	g, err := failures.Draw(f, cables, switches, seed)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// crossing says, independently of Repair, which previous entries (switch,
// LID) of prev lead over a cable or switch f lacks: it walks each entry's
// path in prev's fabric and looks every hop up in f by GUID.
type crossing struct {
	prev *lft.Tables
	f    *fabric.Fabric
	memo []int8 // per (previous node, LID): 0 unknown, 1 crossed, -1 not
}

func (c *crossing) crossed(sw fabric.NodeID, lid lft.LID) bool {
	stride := int(c.prev.LIDs().Top()) + 1
	if c.memo == nil {
		c.memo = make([]int8, c.prev.Fabric().NumNodes()*stride)
	}
	if int(lid) >= stride {
		return crossed(c.prev, c.f, sw, lid)
	}
	i := int(sw)*stride + int(lid)
	if c.memo[i] == 0 {
		c.memo[i] = -1
		if crossed(c.prev, c.f, sw, lid) {
			c.memo[i] = 1
		}
	}
	return c.memo[i] == 1
}

func crossed(prev *lft.Tables, f *fabric.Fabric, sw fabric.NodeID, lid lft.LID) bool {
	pf := prev.Fabric()
	for hops := 0; hops <= pf.NumNodes(); hops++ {
		p := prev.Port(sw, lid)
		if p == 0 {
			return false
		}
		peer, ok := pf.Peer(fabric.PortRef{Node: sw, Port: int(p)})
		if !ok {
			return true
		}
		a, okA := f.NodeByGUID(pf.GUID(sw))
		b, okB := f.NodeByGUID(pf.GUID(peer.Node))
		if !okA || !okB {
			return true
		}
		if got, ok := f.Peer(fabric.PortRef{Node: a, Port: int(p)}); !ok || got != (fabric.PortRef{Node: b, Port: peer.Port}) {
			return true
		}
		if pf.Kind(peer.Node) != fabric.Switch {
			return false
		}
		sw = peer.Node
	}
	return true
}

type level struct {
	name             string
	cables, switches int
}

var levels = []level{{"1 cable", 1, 0}, {"2 cables", 2, 0}, {"5 cables", 5, 0}, {"1 switch", 0, 1}}

// TestRepairChangesOnlyWhatCrossedTheFailure: on Slim Fly q=5 and q=7
// with hop-indexed tables on 4 VLs, routed intact or with one cable
// failed, then 1, 2, 5 more failed cables or a failed switch (seeded
// draws), the repaired tables pass the verifier (every LID reachable, no
// loop, no CDG cycle); an entry changes only if its path crossed the
// failure, and repair.Stats counts exactly those crossed and those changed; path
// SLs of routes that did not cross stay, and so do the SL2VL tables but
// for the spare SLs. A repair may refuse (no SL fits and no spare VL is
// left) only by saying a full recompute is needed, and never for one
// failed cable in an intact fabric: its three VLs leave the fourth spare,
// and the few new four-hop routes fit on it.
func TestRepairChangesOnlyWhatCrossedTheFailure(t *testing.T) {
	seeds := 2 // TestChainsOfFailuresRepairEveryStep judges longer chains
	if testing.Short() {
		seeds = 1
	}
	for _, q := range []int{5, 7} {
		for _, base := range []int{0, 1} {
			for _, lv := range levels {
				refused := 0
				for seed := uint64(1); seed <= uint64(seeds); seed++ {
					t.Run(fmt.Sprintf("q=%d/base=%d/%s/seed=%d", q, base, lv.name, seed), func(t *testing.T) {
						prev := routed(t, q, "hops", base, seed).Tables
						f := failure(t, prev.Fabric(), lv.cables, lv.switches, seed)
						got, st, err := repair.Repair(prev, f, repair.Options{Workers: 2, VLs: 4})
						mayRefuse := base > 0 || lv.cables != 1
						if err != nil && mayRefuse && strings.Contains(err.Error(), "recompute in full") {
							refused++
							t.Logf("refused: %v", err)
							return
						}
						if err != nil {
							t.Fatal(err)
						}
						checkRepair(t, prev, got, f, st)
					})
				}
				t.Logf("q=%d, %d cables failed before, %s: %d of %d repairs refused", q, base, lv.name, refused, seeds)
			}
		}
	}
}

// checkRepair checks every property of a repair from prev to got on f.
func checkRepair(t *testing.T, prev, got *lft.Tables, f *fabric.Fabric, st repair.Stats) {
	t.Helper()
	checkRepairVLs(t, prev, got, f, st, 4)
}

// checkRepairVLs is checkRepair on switches with vls data VLs.
func checkRepairVLs(t *testing.T, prev, got *lft.Tables, f *fabric.Fabric, st repair.Stats, vls int) {
	t.Helper()
	checkVerified(t, got, vls)
	c := &crossing{prev: prev, f: f}
	checkEntries(t, c, got, st)
	checkPathSLs(t, c, got)
	checkSL2VL(t, prev, got, st.Spares, st.FourHops)
	t.Logf("%d LIDs affected, %d entries crossed, %d changed, %d paths changed, %d path SLs changed, %d on spares %v, %d LIDs gone", st.LIDs, st.Crossed, st.Changed, st.Paths, st.PathSLs, st.Escaped, st.Spares, st.GoneLIDs)
}

// checkEntries: every entry toward a LID still held equals the previous
// one unless its path crossed the failure; repair.Stats counts the crossed and
// the changed entries exactly, and changed ≤ crossed.
func checkEntries(t *testing.T, c *crossing, got *lft.Tables, st repair.Stats) {
	t.Helper()
	prev := c.prev
	f, pf := got.Fabric(), prev.Fabric()
	nCrossed, nChanged := 0, 0
	for _, sw := range got.Switches() {
		psw, _ := pf.NodeByGUID(f.GUID(sw))
		for _, pl := range got.LIDs().Ports() {
			for lid := pl.Base; lid <= pl.Top(); lid++ {
				x := c.crossed(psw, lid)
				was, is := prev.Port(psw, lid), got.Port(sw, lid)
				if x {
					nCrossed++
				}
				if was != is {
					nChanged++
					if !x {
						t.Fatalf("%s LID 0x%04x: port %d became %d, but its path did not cross the failure", f.Node(sw).Name, lid, was, is)
					}
				}
			}
		}
	}
	if st.Crossed != nCrossed || st.Changed != nChanged || st.Changed > st.Crossed {
		t.Fatalf("stats say %d entries crossed and %d changed; the tables show %d and %d", st.Crossed, st.Changed, nCrossed, nChanged)
	}
}

// checkPathSLs: an HCA's path SL to a LID stays unless the route from its
// switch crossed the failure.
func checkPathSLs(t *testing.T, c *crossing, got *lft.Tables) {
	t.Helper()
	prev := c.prev
	f, pf := got.Fabric(), prev.Fabric()
	for _, src := range got.LIDs().Ports() {
		peer, ok := f.Peer(src.Port)
		if src.Port.Port == 0 || !ok {
			continue
		}
		pn, _ := pf.NodeByGUID(f.Node(src.Port.Node).GUID)
		psrc := fabric.PortRef{Node: pn, Port: src.Port.Port}
		psw, _ := pf.NodeByGUID(f.Node(peer.Node).GUID)
		for _, pl := range got.LIDs().Ports() {
			for lid := pl.Base; lid <= pl.Top(); lid++ {
				if !c.crossed(psw, lid) && got.PathSL(src.Port, lid) != prev.PathSL(psrc, lid) {
					t.Fatalf("%s to LID 0x%04x: path SL %d became %d, but the route did not cross the failure", f.PortString(src.Port), lid, prev.PathSL(psrc, lid), got.PathSL(src.Port, lid))
				}
			}
		}
	}
}

// checkSL2VL: every SL-to-VL entry a packet can meet is the previous one,
// except that a spare pair's SL goes to its VL from in ports fed by a
// switch, and to VL 0 from HCAs, and that with the four-hop rule turned on
// an entry may go from VL 2 to VL 3.
func checkSL2VL(t *testing.T, prev, got *lft.Tables, spares []repair.Spare, fourHops bool) {
	t.Helper()
	f, pf := got.Fabric(), prev.Fabric()
	for _, sw := range got.Switches() {
		psw, _ := pf.NodeByGUID(f.Node(sw).GUID)
		n := f.Node(sw).Ports
		cabled := func(p int) bool { _, ok := f.Peer(fabric.PortRef{Node: sw, Port: p}); return ok }
		for in := 0; in <= n; in++ {
			for out := 1; out <= n; out++ {
				if (in != 0 && !cabled(in)) || !cabled(out) || in == out {
					continue
				}
				for sl := uint8(0); sl < 16; sl++ {
					a, b := prev.SL2VL(psw, in, out, sl), got.SL2VL(sw, in, out, sl)
					for _, sp := range spares {
						if sp.SL == sl {
							a = 0 // the first hop, from an HCA (or the switch itself)
							if peer, ok := f.Peer(fabric.PortRef{Node: sw, Port: in}); ok && f.Kind(peer.Node) == fabric.Switch {
								a = sp.VL
							}
						}
					}
					if fourHops && a == 2 && b == 3 {
						continue // the four-hop rule (the verifier judges it)
					}
					if a != b {
						t.Fatalf("%s SL2VL in %d out %d SL %d: VL %d became %d", f.Node(sw).Name, in, out, sl, a, b)
					}
				}
			}
		}
	}
}

// TestRepairIsDeterministic: the repaired tables are the same bytes for 1
// and 4 workers, mending or not.
func TestRepairIsDeterministic(t *testing.T) {
	prev := routed(t, 7, "hops", 0, 1).Tables
	f := failure(t, prev.Fabric(), 2, 0, 3)
	for _, mend := range []bool{false, true} {
		sameOnWorkers(t, prev, f, mend)
	}
}

// sameOnWorkers: a repair of prev for f on 1 and 4 workers gives the same
// bytes.
func sameOnWorkers(t *testing.T, prev *lft.Tables, f *fabric.Fabric, mend bool) {
	var outs [2]string
	for i, w := range []int{1, 4} {
		got, _, err := repair.Repair(prev, f, repair.Options{Workers: w, VLs: 4, Mend: mend})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, write := range []func() error{
			func() error { return lft.WriteOpenSMLFTs(&b, got, w) },
			func() error { return lft.WritePathSL(&b, got, w) },
			func() error { return lft.WriteSL2VL(&b, got) },
		} {
			if err := write(); err != nil {
				t.Fatal(err)
			}
		}
		outs[i] = b.String()
	}
	if outs[0] != outs[1] {
		t.Fatalf("1 and 4 workers repair differently (mending %v)", mend)
	}
}

// TestRepairOfDFSSSPTablesRefusesOrHolds: DFSSSP keeps a route on one VL,
// so under its SL2VL tables only one-hop routes fit an SL in use; the
// others need a spare pair. Either the repair refuses, saying a full
// recompute is needed, or its tables pass every check.
func TestRepairOfDFSSSPTablesRefusesOrHolds(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		prev := routed(t, 5, "dfsssp", 0, seed).Tables
		f := failure(t, prev.Fabric(), 2, 0, seed)
		got, st, err := repair.Repair(prev, f, repair.Options{Workers: 2, VLs: 4})
		if err != nil {
			if !strings.Contains(err.Error(), "recompute in full") {
				t.Fatalf("a refusal that does not say what to do: %v", err)
			}
			t.Logf("seed %d: refused: %v", seed, err)
			continue
		}
		checkRepair(t, prev, got, f, st)
	}
}

// TestRepairIgnoresNodeNumbering: the same fabric with its nodes listed in
// reverse (as another reader might number them: the OpenSM plugin's
// fabric is not the offline one), repaired on 1 and on 4 workers, gets the
// same tables, byte for byte — after failures (mending), and plugging
// back with a base.
func TestRepairIgnoresNodeNumbering(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		prev := routed(t, 7, "hops", 0, 1).Tables
		sameRepair(t, prev, failure(t, prev.Fabric(), 5, 0, seed), nil)
	}
	// plugging back: a chain's tables up to its first plug-back step,
	// repaired for that step with the intact routing as the base
	base := routed(t, 7, "hops", 0, 1).Tables
	steps, err := failures.Chain(base.Fabric(), 0.01, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	cur := base
	for _, step := range steps {
		if step.Back {
			sameRepair(t, cur, step.Fabric, base)
			return
		}
		if cur, _, err = repair.Repair(cur, step.Fabric, repair.Options{VLs: 8, Base: base}); err != nil {
			t.Fatal(err)
		}
	}
}

func sameRepair(t *testing.T, prev *lft.Tables, f *fabric.Fabric, base *lft.Tables) {
	n := f.NumNodes()
	nodes := make([]fabric.Node, n)
	for i := range n {
		nodes[n-1-i] = f.Node(fabric.NodeID(i))
	}
	var links []fabric.Link
	for _, l := range f.Links() {
		l.A.Node, l.B.Node = fabric.NodeID(n-1)-l.A.Node, fabric.NodeID(n-1)-l.B.Node
		links = append(links, l)
	}
	g, err := fabric.New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	var outs [2]string
	for i, fab := range []*fabric.Fabric{f, g} {
		got, _, err := repair.Repair(prev, fab, repair.Options{VLs: 8, Base: base, Workers: 1 + 3*i, Mend: true})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := lft.WriteOpenSMLFTs(&b, got, 1); err != nil {
			t.Fatal(err)
		}
		if err := lft.WritePathSL(&b, got, 1); err != nil {
			t.Fatal(err)
		}
		if err := lft.WriteSL2VL(&b, got); err != nil {
			t.Fatal(err)
		}
		outs[i] = b.String()
	}
	if outs[0] != outs[1] {
		t.Fatal("renumbering the nodes changed the repair")
	}
}
