package pipeline

import (
	"fmt"
	"slices"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/slimfly"
)

// Routing a Slim Fly with parts missing. A fabric in service rarely has
// every cable and every host in, and the layers are fast only on a whole
// design, under its symmetry: one cable or one host missing from Slim Fly
// q = 7 took the layers stage from 50 ms to 1.5–1.9 s, q = 11 from 0.6 to
// 11–19 s. So Run routes such a fabric as its design — the fabric with the
// design's cables it lacks and HCAs up to the most any switch has, on
// free ports — and repairs those tables for the fabric itself (package
// repair: only the routes over what is not there change). The repaired
// tables kept more pairs with three disjoint paths than a full routing
// of the damaged fabric did after up to 10 cables on q = 7 (98.2 against
// 97.9 %) and as many within 0.05 points on q = 11
// (BenchmarkFailureLevels in package repair).

// Completion says what Run added to route a fabric as its design.
type Completion struct {
	// Q is the design's prime power.
	Q int `json:"q"`
	// Cables and HCAs count the switch-to-switch cables and the HCAs
	// added (on free ports).
	Cables int `json:"cables_added"`
	HCAs   int `json:"hcas_added"`
	// Changed counts the LFT entries the repair changed: the routes that
	// crossed an added cable; Escaped, the new routes put on the spare
	// (SL, VL) pair.
	Changed int `json:"entries_changed"`
	Escaped int `json:"routes_on_spare"`
}

func (c *Completion) String() string {
	return fmt.Sprintf("routed as the Slim Fly design of q = %d (with the %s and %s it lacks), then repaired (%d LFT entries changed)",
		c.Q, count(c.Cables, "cable"), count(c.HCAs, "HCA"), c.Changed)
}

// count writes n things: "1 cable", "2 cables".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// completeFrom is the least q routed through its design: below it the
// layers stage takes milliseconds on any fabric, and the repair kept
// fewer pairs with three disjoint paths than a full routing (q = 5, one
// cable: 84.9 against 85.8 %).
const completeFrom = 7

// maxMissing is the share of the design's cables (in thousandths) that
// may be missing: beyond, the fabric is routed in full. Against routing
// the damaged fabric in full (three draws each), the repaired tables had
// −0.5 to +0.7 points of pairs with three disjoint paths on q = 7 with 2
// to 8 cables missing (0.4–1.5 %), and −0.1 to −0.7 points on q = 9 with
// 2 to 8 (0.2–0.8 %), but −0.8 to −1.0 with 12 (1.1 %).
const maxMissing = 10

// completed returns f with what its Slim Fly design has and f lacks: the
// switch-to-switch cables (slimfly.Embed) and, on every switch, HCAs up
// to the most any switch has; each on the switch's lowest free ports, the
// cables first, the added HCAs after f's nodes and without GUIDs. It
// returns nil when f is no Slim Fly of q ≥ completeFrom less some cables
// and HCAs, lacks nothing, lacks more than maxMissing of the cables,
// has an HCA on more than one switch port, or has no free port for what
// is added.
func completed(f *fabric.Fabric) (*fabric.Fabric, *Completion) {
	v := f.SwitchView()
	q := slimfly.QOf(len(v.IDs))
	if q < completeFrom {
		return nil, nil
	}
	d, err := slimfly.NewDesign(q)
	if err != nil {
		return nil, nil
	}
	adj, hosts, ok := switchGraph(f, v)
	if !ok || whole(adj, d) && slices.Min(hosts) == slices.Max(hosts) {
		return nil, nil // not the design's, or all of it (the layers see the symmetry)
	}
	missing, ok := missingCables(adj, d)
	if !ok {
		return nil, nil
	}
	cmp := &Completion{Q: q, Cables: len(missing)}
	for _, h := range hosts {
		cmp.HCAs += slices.Max(hosts) - h
	}
	g, err := withAdded(f, v, missing, hosts)
	if err != nil {
		return nil, nil
	}
	return g, cmp
}

// switchGraph returns f's switch graph (by switch index) and the HCAs on
// each switch; false when two switches share more than one cable or an
// HCA has more than one cabled port.
func switchGraph(f *fabric.Fabric, v *fabric.SwitchView) ([][]int32, []int, bool) {
	adj := make([][]int32, len(v.IDs))
	hosts := make([]int, len(v.IDs))
	for s, chs := range v.Adj {
		for _, ch := range chs {
			if slices.Contains(adj[s], int32(ch.Peer)) {
				return nil, nil, false
			}
			adj[s] = append(adj[s], int32(ch.Peer))
		}
		hosts[s] = len(v.Endpoints[s])
	}
	for _, id := range f.IDsOf(fabric.HCA) {
		cabled := 0
		for p := 1; p <= f.Ports(id); p++ {
			if _, ok := f.Peer(fabric.PortRef{Node: id, Port: p}); ok {
				cabled++
			}
		}
		if cabled > 1 {
			return nil, nil, false
		}
	}
	return adj, hosts, true
}

// missingCables returns the design's switch pairs (by switch index, the
// lower first, in order) that adj lacks; false when adj is no part of
// the design or lacks more than maxMissing of its cables.
func missingCables(adj [][]int32, d *slimfly.Design) ([][2]int32, bool) {
	if whole(adj, d) {
		return nil, slimfly.Match(adj, slimfly.TranslationBudget) != nil
	}
	have, all := ends(adj), len(adj)*d.Degree
	if 1000*(all-have) > maxMissing*all {
		return nil, false
	}
	phi := slimfly.Embed(adj, slimfly.EmbedBudget)
	if phi == nil {
		return nil, false
	}
	inv := make([]int32, len(phi))
	for s, x := range phi {
		inv[x] = int32(s)
	}
	var missing [][2]int32
	for s := range adj {
		for _, r := range d.Neighbors(d.RouterAt(int(phi[s]))) {
			t := inv[d.Index(r)]
			if int32(s) < t && !slices.Contains(adj[s], t) {
				missing = append(missing, [2]int32{int32(s), t})
			}
		}
	}
	return missing, true
}

// whole says whether adj has as many cables as the design (which of them
// Match says).
func whole(adj [][]int32, d *slimfly.Design) bool { return ends(adj) == len(adj)*d.Degree }

// ends counts the cable ends of adj (twice its cables).
func ends(adj [][]int32) int {
	n := 0
	for _, nb := range adj {
		n += len(nb)
	}
	return n
}

// withAdded returns f with the cables missing and HCAs up to the most
// hosts any switch has, on the switches' lowest free ports.
func withAdded(f *fabric.Fabric, v *fabric.SwitchView, missing [][2]int32, hosts []int) (*fabric.Fabric, error) {
	free := make([][]int, len(v.IDs))
	for s, id := range v.IDs {
		for p := f.Ports(id); p >= 1; p-- {
			if _, ok := f.Peer(fabric.PortRef{Node: id, Port: p}); !ok {
				free[s] = append(free[s], p) // highest first: taken from the end
			}
		}
	}
	take := func(s int32) (fabric.PortRef, error) {
		n := len(free[s])
		if n == 0 {
			return fabric.PortRef{}, fmt.Errorf("%s has no free port", f.Name(v.IDs[s]))
		}
		p := free[s][n-1]
		free[s] = free[s][:n-1]
		return fabric.PortRef{Node: v.IDs[s], Port: p}, nil
	}
	nodes := make([]fabric.Node, f.NumNodes())
	for i := range nodes {
		nodes[i] = f.Node(fabric.NodeID(i))
	}
	links := f.Links()
	for _, m := range missing {
		a, err := take(m[0])
		if err != nil {
			return nil, err
		}
		b, err := take(m[1])
		if err != nil {
			return nil, err
		}
		links = append(links, fabric.Link{A: a, B: b})
	}
	most := slices.Max(hosts)
	for s := range v.IDs {
		for range most - hosts[s] {
			a, err := take(int32(s))
			if err != nil {
				return nil, err
			}
			id := fabric.NodeID(len(nodes))
			name := fmt.Sprintf("slimroute-added-hca-%d", id)
			if _, taken := f.NodeByName(name); taken {
				return nil, fmt.Errorf("node name %s taken", name)
			}
			nodes = append(nodes, fabric.Node{Name: name, Kind: fabric.HCA, Ports: 1})
			links = append(links, fabric.Link{A: a, B: fabric.PortRef{Node: id, Port: 1}})
		}
	}
	return fabric.New(nodes, links)
}

// completedLIDs returns lids, f's, with LIDs for the HCAs g adds to f
// (its nodes past f's): blocks of 2^LMC after lids' top; false when they
// do not fit below the unicast limit or the switches' tables (lftCap).
func completedLIDs(lids *lft.LIDs, f, g *fabric.Fabric, lftCap int) (*lft.LIDs, bool) {
	ports := lids.Ports()
	lmc := lids.LMC()
	for _, p := range ports {
		lmc = max(lmc, p.LMC)
	}
	step := lft.LID(1) << lmc
	next := (lids.Top()/step + 1) * step
	limit := lft.LID(lft.MaxUnicastLID)
	if lftCap > 0 && lft.LID(lftCap-1) < limit {
		limit = lft.LID(lftCap - 1)
	}
	for id := f.NumNodes(); id < g.NumNodes(); id++ {
		if next+step-1 > limit {
			return nil, false
		}
		ports = append(ports, lft.PortLIDs{Port: fabric.PortRef{Node: fabric.NodeID(id), Port: 1}, Base: next, LMC: lmc})
		next += step
	}
	l, err := lft.NewLIDs(lids.LMC(), ports)
	return l, err == nil
}
