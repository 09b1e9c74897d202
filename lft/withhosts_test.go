package lft_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/internal/disguise"
	"slimroute/internal/failures"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
	"slimroute/verify"
)

// TestNewHostsAreRoutedWithoutTouchingTheRest: drawn routings (Slim Fly
// q = 3 and 5, a two-level Clos; 1 to 4 layers; hop-indexed and DFSSSP
// VLs) of a fabric missing a few HCAs, extended to the fabric with some of
// them back as new hosts, their LIDs kept beside the routing's. Judged
// through the tables' accessors and the verifier: the extended tables
// program the new fabric (every cable of it, by GUID and port), pass the
// verifier (every LID reached, no loop, no credit loop), and every entry
// the routing had — LFT entries, path SLs and SL-to-VL entries of the
// ports it knew — is the same; only the new LIDs' entries are new.
func TestNewHostsAreRoutedWithoutTouchingTheRest(t *testing.T) {
	designs := []func() (*fabric.Fabric, error){
		func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 3}) },
		func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 5}) },
		func() (*fabric.Fabric, error) { return clos.Build(clos.Params{Radix: 8}) },
	}
	cases := 24
	if testing.Short() {
		cases = 8
	}
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 11))
		all, err := designs[int(seed)%len(designs)]()
		if err != nil {
			t.Fatal(err)
		}
		before, after, back, err := failures.LateHosts(all, 5, seed)
		if err != nil {
			t.Fatal(err)
		}
		replaced, nrep := "", 0
		if rng.IntN(2) == 0 { // an HCA replaced too: another GUID on the same port
			after, replaced = replaceHCA(t, after, before, rng)
			nrep = 1
		}
		if rng.IntN(2) == 0 { // two HCAs swapped between switches: both recabled
			after = swapHCAs(t, after, before, rng)
			nrep += 2
		}
		cfg := pipeline.Config{Layers: 1 << rng.IntN(3), VLs: 4 + 4*rng.IntN(2), Deadlock: []string{"auto", "dfsssp"}[rng.IntN(2)], Seed: seed, LMC: -1, Workers: 2}
		res, err := pipeline.Run(before, cfg)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		name := fmt.Sprintf("seed %d (%d layers, %s, %d HCAs back, replaced %q)", seed, cfg.Layers, cfg.Deadlock, len(back), replaced)
		old := res.Tables
		lids, err := lft.AssignLIDs(after, lft.LIDOptions{LMC: int(old.LIDs().LMC()), Keep: lft.CacheOf(old)})
		if err != nil {
			t.Fatal(err)
		}
		onTop := rng.IntN(2) == 0 // the new ports' LIDs above the others, as an SM may give them
		if onTop {
			lids = newPortsOnTop(t, lids, after, before)
		}
		ext, hosts, err := lft.WithHosts(old, after, lids)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// the same from the fabric listed in another order
		shuffled, err := disguise.Shuffled(after, rng)
		if err != nil {
			t.Fatal(err)
		}
		lids2, err := lft.AssignLIDs(shuffled, lft.LIDOptions{LMC: int(old.LIDs().LMC()), Keep: lft.CacheOf(old)})
		if err != nil {
			t.Fatal(err)
		}
		if onTop {
			lids2 = newPortsOnTop(t, lids2, shuffled, before)
		}
		ext2, hosts2, err := lft.WithHosts(old, shuffled, lids2)
		if err != nil || !slices.Equal(hosts, hosts2) {
			t.Fatalf("%s: listed in another order: %v, %v and %v", name, err, hosts2, hosts)
		}
		if e, p := lft.Changed(ext, ext2); e > 0 || p > 0 {
			t.Fatalf("%s: listed in another order, %d LFT entries and %d path SLs differ", name, e, p)
		}
		if b, v := lft.Sent(ext, ext2); b > 0 || v > 0 {
			t.Fatalf("%s: listed in another order, %d LFT blocks and %d SL2VL tables differ", name, b, v)
		}
		if len(hosts) != len(back)+nrep {
			t.Fatalf("%s: added %v", name, hosts)
		}
		judgeSameCables(t, name, after, ext.Fabric())
		if rep, err := verify.Check(ext, 2); err != nil || !rep.Acyclic() {
			t.Fatalf("%s: the verifier: %v %s", name, err, rep.CycleString())
		}
		judgeOldEntriesKept(t, name, old, ext, after)
		judgeRoutedAsSibling(t, name, old, ext)
	}
}

// newPortsOnTop is lids, a plan of f, with the ports of nodes before
// lacks moved to blocks above every other LID.
func newPortsOnTop(t *testing.T, lids *lft.LIDs, f, before *fabric.Fabric) *lft.LIDs {
	t.Helper()
	ports, next := lids.Ports(), lids.Top()+1
	for i, p := range ports {
		if _, ok := before.NodeByGUID(f.GUID(p.Port.Node)); !ok {
			step := lft.LID(1) << p.LMC
			ports[i].Base = (next + step - 1) / step * step
			next = ports[i].Top() + 1
		}
	}
	moved, err := lft.NewLIDs(lids.LMC(), ports)
	if err != nil {
		t.Fatal(err)
	}
	return moved
}

// swapHCAs returns f with two HCAs that before has too, on different
// switches each with another such HCA, swapped: each cabled to the
// other's switch port.
func swapHCAs(t *testing.T, f, before *fabric.Fabric, rng *rand.Rand) *fabric.Fabric {
	t.Helper()
	hcas := withSiblings(f, before)
	a := hcas[rng.IntN(len(hcas))]
	pa, _ := f.Peer(fabric.PortRef{Node: a, Port: 1})
	var b fabric.NodeID = -1
	for _, i := range rng.Perm(len(hcas)) {
		if pb, _ := f.Peer(fabric.PortRef{Node: hcas[i], Port: 1}); pb.Node != pa.Node {
			b = hcas[i]
			break
		}
	}
	g, err := failures.SwapHosts(f, a, b)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// withSiblings lists the HCAs of f that before has too, on switches with
// at least three such HCAs (so that a sibling stays after two change).
func withSiblings(f, before *fabric.Fabric) []fabric.NodeID {
	var both []fabric.NodeID
	on := map[fabric.NodeID]int{}
	for _, id := range f.IDsOf(fabric.HCA) {
		if _, ok := before.NodeByGUID(f.GUID(id)); ok {
			both = append(both, id)
			sw, _ := f.Peer(fabric.PortRef{Node: id, Port: 1})
			on[sw.Node]++
		}
	}
	return slices.DeleteFunc(both, func(id fabric.NodeID) bool {
		sw, _ := f.Peer(fabric.PortRef{Node: id, Port: 1})
		return on[sw.Node] < 3
	})
}

// replaceHCA returns f with one HCA that before has too, on a switch with
// another such HCA, given another GUID and name (an HCA replaced), and
// the name it had.
func replaceHCA(t *testing.T, f, before *fabric.Fabric, rng *rand.Rand) (*fabric.Fabric, string) {
	t.Helper()
	both := withSiblings(f, before)
	id := both[rng.IntN(len(both))]
	nodes := f.Nodes()
	old := nodes[id].Name
	nodes[id].GUID |= 0xf0 << 8
	nodes[id].Name += "-new"
	g, err := fabric.New(nodes, f.Links())
	if err != nil {
		t.Fatal(err)
	}
	return g, old
}

// judgeRoutedAsSibling fails unless every HCA port ext holds LIDs for and
// old does not is routed as its sibling (the HCA port with the lowest
// port GUID on its switch that old routes): every switch but its own
// forwards its LIDs as the sibling's, its own to it; path SLs from it and
// toward it are the sibling's; its switch maps SLs from and to it as from
// and to the sibling; its SL2VL table is the sibling's.
func judgeRoutedAsSibling(t *testing.T, name string, old, ext *lft.Tables) {
	t.Helper()
	of, ef := old.Fabric(), ext.Fabric()
	for _, pl := range ext.LIDs().Ports() {
		if pl.Port.Port == 0 || sameSpot(of, ef, pl.Port) {
			continue
		}
		at, _ := ef.Peer(pl.Port)
		var sib lft.PortLIDs
		for p := 1; p <= ef.Ports(at.Node); p++ {
			peer, ok := ef.Peer(fabric.PortRef{Node: at.Node, Port: p})
			if !ok || ef.Kind(peer.Node) != fabric.HCA || !sameSpot(of, ef, peer) {
				continue
			}
			if q, ok := ext.LIDs().Of(peer); ok && (sib.Base == 0 || ef.PortGUID(peer) < ef.PortGUID(sib.Port)) {
				sib = q
			}
		}
		sibAt, _ := ef.Peer(sib.Port)
		for _, sw := range ext.Switches() {
			for k := lft.LID(0); k <= pl.Top()-pl.Base; k++ {
				want := ext.Port(sw, sib.Base+k)
				if sw == at.Node {
					want = uint8(at.Port)
				}
				if got := ext.Port(sw, pl.Base+k); got != want {
					t.Fatalf("%s: %s toward new %s+%d: port %d, want %d", name, ef.Name(sw), ef.PortString(pl.Port), k, got, want)
				}
			}
		}
		for _, src := range ext.LIDs().Ports() {
			for k := lft.LID(0); k <= pl.Top()-pl.Base; k++ {
				if src.Port.Port != 0 && ext.PathSL(src.Port, pl.Base+k) != ext.PathSL(src.Port, sib.Base+k) {
					t.Fatalf("%s: %s's path SL toward new %s differs from toward its sibling", name, ef.PortString(src.Port), ef.PortString(pl.Port))
				}
			}
		}
		for _, l := range []lft.LID{1, sib.Base, ext.LIDs().Top()} {
			if ext.PathSL(pl.Port, l) != ext.PathSL(sib.Port, l) {
				t.Fatalf("%s: new %s's path SL toward 0x%x differs from its sibling's", name, ef.PortString(pl.Port), l)
			}
		}
		if ext.CASL2VL(pl.Port) != ext.CASL2VL(sib.Port) {
			t.Fatalf("%s: new %s's SL2VL table differs from its sibling's", name, ef.PortString(pl.Port))
		}
		for p := 0; p <= ef.Ports(at.Node); p++ {
			for sl := range uint8(16) {
				if ext.SL2VL(at.Node, p, at.Port, sl) != ext.SL2VL(at.Node, p, sibAt.Port, sl) || p > 0 && ext.SL2VL(at.Node, at.Port, p, sl) != ext.SL2VL(at.Node, sibAt.Port, p, sl) {
					t.Fatalf("%s: %s maps SL %d to or from new %s otherwise than its sibling", name, ef.Name(at.Node), sl, ef.PortString(pl.Port))
				}
			}
		}
	}
}

// judgeSameCables fails unless fabrics a and b cable the same ports, by
// node GUID and port number (b may hold nodes a lacks, uncabled: an HCA
// replaced).
func judgeSameCables(t *testing.T, name string, a, b *fabric.Fabric) {
	t.Helper()
	if a.NumLinks() != b.NumLinks() {
		t.Fatalf("%s: %d cables, want %d", name, b.NumLinks(), a.NumLinks())
	}
	for _, l := range a.Links() {
		x, _ := b.NodeByGUID(a.GUID(l.A.Node))
		y, _ := b.NodeByGUID(a.GUID(l.B.Node))
		if p, ok := b.Peer(fabric.PortRef{Node: x, Port: l.A.Port}); !ok || p != (fabric.PortRef{Node: y, Port: l.B.Port}) {
			t.Fatalf("%s: cable %s–%s missing", name, a.PortString(l.A), a.PortString(l.B))
		}
	}
}

// judgeOldEntriesKept fails unless ext holds every entry old does, ports
// matched by GUID: LFT entries and path SLs toward old's LIDs, and every
// SL-to-VL entry between ports old's fabric cables.
func judgeOldEntriesKept(t *testing.T, name string, old, ext *lft.Tables, after *fabric.Fabric) {
	t.Helper()
	of, ef := old.Fabric(), ext.Fabric()
	var oldLIDs []lft.LID
	for _, pl := range old.LIDs().Ports() {
		if _, ok := after.NodeByGUID(of.GUID(pl.Port.Node)); !ok {
			judgeDropped(t, name, ext, pl)
			continue
		}
		if pl.Port.Port != 0 && !sameSpot(ef, of, pl.Port) {
			continue // recabled: routed anew (judgeRoutedAsSibling)
		}
		q, ok := ext.LIDs().Of(portIn(ef, of, pl.Port))
		if !ok || q != (lft.PortLIDs{Port: q.Port, Base: pl.Base, LMC: pl.LMC}) {
			t.Fatalf("%s: %s LIDs %+v, was %+v", name, of.PortString(pl.Port), q, pl)
		}
		for l := pl.Base; l <= pl.Top(); l++ {
			oldLIDs = append(oldLIDs, l)
		}
	}
	for _, sw := range old.Switches() {
		esw := portIn(ef, of, fabric.PortRef{Node: sw}).Node
		for _, l := range oldLIDs {
			if a, b := old.Port(sw, l), ext.Port(esw, l); a != b {
				t.Fatalf("%s: %s toward LID 0x%x: port %d, was %d", name, of.Name(sw), l, b, a)
			}
		}
		n := of.Ports(sw)
		for in := 0; in <= n; in++ {
			if _, ok := of.Peer(fabric.PortRef{Node: sw, Port: in}); in > 0 && !ok {
				continue // the new host's port
			}
			for out := 1; out <= n; out++ {
				if _, ok := of.Peer(fabric.PortRef{Node: sw, Port: out}); !ok {
					continue
				}
				for sl := range uint8(16) {
					if a, b := old.SL2VL(sw, in, out, sl), ext.SL2VL(esw, in, out, sl); a != b {
						t.Fatalf("%s: %s SL2VL %d→%d SL %d: VL %d, was %d", name, of.Name(sw), in, out, sl, b, a)
					}
				}
			}
		}
	}
	for _, pl := range old.LIDs().Ports() {
		if _, ok := after.NodeByGUID(of.GUID(pl.Port.Node)); !ok || pl.Port.Port == 0 || !sameSpot(ef, of, pl.Port) {
			continue
		}
		ep := portIn(ef, of, pl.Port)
		if old.CASL2VL(pl.Port) != ext.CASL2VL(ep) {
			t.Fatalf("%s: %s's SL2VL table changed", name, of.PortString(pl.Port))
		}
		for _, l := range oldLIDs {
			if a, b := old.PathSL(pl.Port, l), ext.PathSL(ep, l); a != b {
				t.Fatalf("%s: %s path SL toward 0x%x: %d, was %d", name, of.PortString(pl.Port), l, b, a)
			}
		}
	}
}

// sameSpot says whether HCA port p of fabric ef is cabled in fabric of
// too, to the same switch (by GUID) and port.
func sameSpot(of, ef *fabric.Fabric, p fabric.PortRef) bool {
	id, ok := of.NodeByGUID(ef.GUID(p.Node))
	if !ok {
		return false
	}
	a, had := of.Peer(fabric.PortRef{Node: id, Port: p.Port})
	b, has := ef.Peer(p)
	return had && has && of.GUID(a.Node) == ef.GUID(b.Node) && a.Port == b.Port
}

// judgeDropped fails unless the LIDs of pl, a port replaced, are dropped
// by every switch of ext or held by another port (the new one).
func judgeDropped(t *testing.T, name string, ext *lft.Tables, pl lft.PortLIDs) {
	t.Helper()
	for l := pl.Base; l <= pl.Top(); l++ {
		if _, _, held := ext.LIDs().Owner(l); held {
			continue
		}
		for _, sw := range ext.Switches() {
			if p := ext.Port(sw, l); p != lft.Drop {
				t.Fatalf("%s: %s forwards LID 0x%x of a replaced HCA to port %d", name, ext.Fabric().Name(sw), l, p)
			}
		}
	}
}

// portIn is port p of fabric of in fabric ef, by node GUID.
func portIn(ef, of *fabric.Fabric, p fabric.PortRef) fabric.PortRef {
	id, _ := ef.NodeByGUID(of.GUID(p.Node))
	return fabric.PortRef{Node: id, Port: p.Port}
}

// TestANewHostWithoutASiblingIsRefused: a host on a switch whose hosts
// the routing all lacks has no routes to take, and is named.
func TestANewHostWithoutASiblingIsRefused(t *testing.T) {
	all, err := slimfly.Build(slimfly.Params{Q: 3})
	if err != nil {
		t.Fatal(err)
	}
	sw := all.IDsOf(fabric.Switch)[0]
	var hosts []fabric.NodeID
	for p := 1; p <= all.Ports(sw); p++ {
		if peer, ok := all.Peer(fabric.PortRef{Node: sw, Port: p}); ok && all.Kind(peer.Node) == fabric.HCA {
			hosts = append(hosts, peer.Node)
		}
	}
	before, err := all.Without(hosts, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(before, pipeline.Config{Layers: 2, VLs: 4, Seed: 1, LMC: -1})
	if err != nil {
		t.Fatal(err)
	}
	lids, err := lft.AssignLIDs(all, lft.LIDOptions{LMC: 1, Keep: lft.CacheOf(res.Tables)})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = lft.WithHosts(res.Tables, all, lids)
	if err == nil || !strings.Contains(err.Error(), all.Name(hosts[0])) || !strings.Contains(err.Error(), "no HCA the previous routing routes stays") {
		t.Errorf("got %v", err)
	}
}

// TestAReplacedHCAThatIsNodeZeroIsRouted: an HCA replaced where the
// previous fabric lists it first (node 0, as a discovery may): the new
// HCA takes its port, its LIDs are dropped. Red with node 0 taken for
// the new HCA's own node.
func TestAReplacedHCAThatIsNodeZeroIsRouted(t *testing.T) {
	sf, err := slimfly.Build(slimfly.Params{Q: 3})
	if err != nil {
		t.Fatal(err)
	}
	h := sf.IDsOf(fabric.HCA)[4]
	order := []fabric.NodeID{h} // h first, then the rest
	for i := range sf.NumNodes() {
		if fabric.NodeID(i) != h {
			order = append(order, fabric.NodeID(i))
		}
	}
	at := make([]fabric.NodeID, sf.NumNodes())
	var nodes []fabric.Node
	for i, id := range order {
		at[id] = fabric.NodeID(i)
		nodes = append(nodes, sf.Node(id))
	}
	var links []fabric.Link
	for _, l := range sf.Links() {
		links = append(links, fabric.Link{A: fabric.PortRef{Node: at[l.A.Node], Port: l.A.Port}, B: fabric.PortRef{Node: at[l.B.Node], Port: l.B.Port}})
	}
	first, err := fabric.New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(first, pipeline.Config{Layers: 2, VLs: 4, Seed: 1, LMC: -1})
	if err != nil {
		t.Fatal(err)
	}
	nodes[0].GUID |= 0xf0 << 8
	nodes[0].Name += "-new"
	replaced, err := fabric.New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	lids, err := lft.AssignLIDs(replaced, lft.LIDOptions{LMC: 1, Keep: lft.CacheOf(res.Tables)})
	if err != nil {
		t.Fatal(err)
	}
	ext, hosts, err := lft.WithHosts(res.Tables, replaced, lids)
	if err != nil || len(hosts) != 1 {
		t.Fatalf("%v %v", hosts, err)
	}
	if rep, err := verify.Check(ext, 2); err != nil || !rep.Acyclic() {
		t.Fatalf("the verifier: %v", err)
	}
	judgeOldEntriesKept(t, "node 0 replaced", res.Tables, ext, replaced)
	judgeRoutedAsSibling(t, "node 0 replaced", res.Tables, ext)
}
