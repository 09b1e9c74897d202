package pipeline

import (
	"fmt"
	"slices"

	"slimroute/fabric"
	"slimroute/hyperx"
	"slimroute/layers"
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
	// Design names the design: "the Slim Fly design of q = 7", "the
	// HyperX design 16×16".
	Design string `json:"design"`
	// Switches, Cables and HCAs count the switches, the cables between
	// the fabric's switches and the HCAs added (on free ports; an added
	// switch's cables and HCAs are not counted in Cables and are in HCAs).
	Switches int `json:"switches_added"`
	Cables   int `json:"cables_added"`
	HCAs     int `json:"hcas_added"`
	// Changed counts the LFT entries the repair changed: the routes that
	// crossed an added cable; Escaped, the new routes put on the spare
	// (SL, VL) pair.
	Changed int `json:"entries_changed"`
	Escaped int `json:"routes_on_spare"`
}

func (c *Completion) String() string {
	lacks := count(c.Cables, "cable") + " and " + count(c.HCAs, "HCA")
	if c.Switches > 0 {
		lacks = count(c.Switches, "switch") + ", " + lacks
	}
	return fmt.Sprintf("routed as %s (with the %s it lacks), then repaired (%d LFT entries changed)", c.Design, lacks, c.Changed)
}

// count writes n things: "1 cable", "2 cables".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	if thing == "switch" {
		return fmt.Sprintf("%d switches", n)
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

// maxSwitches is the most switches that may be missing (up to
// slimfly.EmbedMissing): against routing the damaged fabric in full the
// repaired tables had 0.17 points fewer pairs with three disjoint paths
// with one switch gone on q = 7, 0.08 on q = 11 (BenchmarkFailureLevels
// in package repair), but with two switches and a cable gone on q = 7
// 1.35 points fewer of the right lengths (97.75 against 99.10 %).
const maxSwitches = 1

// completed returns f with what its design — a Slim Fly's, a HyperX's
// of two dimensions, a Dragonfly+'s — has and f lacks: the switches, the
// switch-to-switch cables (slimfly.Embed, hyperx.Embed,
// dragonflyPlusDesign) and HCAs up to the design's (the most any switch
// has, on every switch; a Dragonfly+'s leaves only); each on the switch's lowest
// free ports, the cables first, the added nodes after f's and without
// GUIDs. It returns nil when f is neither less some switches, cables and
// HCAs (findDesign), lacks nothing, lacks more than maxMissing of the
// cables between the switches it has, has an HCA on more than one switch
// port, or has no free port for what is added.
func completed(f *fabric.Fabric) (*fabric.Fabric, *Completion) {
	v := f.SwitchView()
	adj, hosts, ok := switchGraph(f, v)
	if !ok || len(adj) == 0 {
		return nil, nil
	}
	des := findDesign(adj, hosts, v)
	if des == nil {
		return nil, nil
	}
	plan, ok := missingParts(adj, des)
	if !ok {
		return nil, nil
	}
	cmp := &Completion{Design: des.name, Cables: plan.between, Switches: len(plan.design) - len(adj)}
	want := des.hosts
	if want == nil {
		want = make([]int, len(plan.design))
		most := slices.Max(hosts)
		for s := range want {
			want[s] = most
		}
	}
	for s, w := range want {
		cmp.HCAs += w
		if s < len(hosts) {
			cmp.HCAs -= hosts[s]
		}
	}
	g, err := withAdded(f, v, plan, hosts, want)
	if err != nil {
		return nil, nil
	}
	return g, cmp
}

// design is a whole design and the map of a fabric's switch graph into
// it.
type design struct {
	name  string
	graph [][]int32 // by design vertex
	phi   []int32   // switch index -> design vertex
	// hosts are the HCAs each switch index should have; nil: the most any
	// switch has, on every switch
	hosts []int
	// missing is the share of the design's cables (in thousandths) that
	// may be missing; 0: maxMissing
	missing int
}

// findDesign returns the design of which adj, a switch graph whose
// switches have as many HCAs each when uniform, lacks some parts: a Slim
// Fly of q ≥ completeFrom less up to maxSwitches switches and some
// cables, or a HyperX of two dimensions less some cables; nil for any
// other graph and for a whole design with uniform HCAs (the layers see
// its symmetry without help).
func findDesign(adj [][]int32, hosts []int, v *fabric.SwitchView) *design {
	uniform := slices.Min(hosts) == slices.Max(hosts)
	if d := slimflyDesign(adj, uniform); d != nil {
		return d
	}
	if d := hyperxDesign(adj, uniform); d != nil {
		return d
	}
	if layers.IsDragonflyPlus(v) {
		return nil // routed group pair by group pair as it is
	}
	return dragonflyPlusDesign(adj, hosts)
}

func slimflyDesign(adj [][]int32, uniform bool) *design {
	n := len(adj)
	var d *slimfly.Design
	for m := 0; m <= maxSwitches && d == nil; m++ {
		if q := slimfly.QOf(n + m); q >= completeFrom {
			d, _ = slimfly.NewDesign(q)
		}
	}
	if d == nil {
		return nil
	}
	N := 2 * d.Q * d.Q
	des := &design{name: fmt.Sprintf("the Slim Fly design of q = %d", d.Q), graph: d.Graph()}
	if n == N && whole(adj, d.Degree) {
		if uniform {
			return nil
		}
		des.phi = slimfly.Match(adj, slimfly.TranslationBudget)
	} else {
		// the cables missing between the switches there are, known before
		// the search while at most one switch is missing (its cables all
		// end on switches that are there): no search past the bound
		all := N * d.Degree / 2
		if between := all - (N-n)*d.Degree - ends(adj)/2; N-n <= 1 && 1000*between > maxMissing*all {
			return nil
		}
		des.phi = slimfly.Embed(adj, slimfly.EmbedBudget)
	}
	if des.phi == nil {
		return nil
	}
	return des
}

func hyperxDesign(adj [][]int32, uniform bool) *design {
	dims, phi := hyperx.Match(adj)
	if dims != nil && (uniform || len(dims) != 2) {
		return nil // whole, or not of two dimensions (a clique is one)
	}
	if dims == nil {
		// a HyperX less a few cables: every switch but a few has the
		// highest degree, and the cables missing are few (no search for
		// the fabrics that are not, a Clos with its leaves and spines)
		deg := 0
		for _, nb := range adj {
			deg = max(deg, len(nb))
		}
		if all := len(adj) * deg / 2; all == ends(adj)/2 || 1000*(all-ends(adj)/2) > maxMissing*all {
			return nil // no switch short of a cable (and no HyperX), or too many missing
		}
		dims, phi = hyperx.Embed(adj, slimfly.EmbedBudget)
	}
	if dims == nil {
		return nil
	}
	return &design{name: fmt.Sprintf("the HyperX design %d×%d", dims[0], dims[1]), graph: hyperx.Grid(dims), phi: phi}
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

// parts is what a fabric's switch graph lacks of its design: the design
// router of each switch index (f's switches, then one per missing
// router), and the missing cables by switch index, the lower first, in
// order; between counts those between two of f's switches.
type parts struct {
	design  []int32
	cables  [][2]int32
	between int
}

// missingParts returns what adj lacks of its design; false when it lacks
// more than maxMissing of the cables between its own switches.
func missingParts(adj [][]int32, des *design) (parts, bool) {
	n, N := len(adj), len(des.graph)
	pt := parts{design: slices.Clone(des.phi)}
	at := make([]int32, N) // design vertex -> switch index
	for i := range at {
		at[i] = -1
	}
	for s, x := range des.phi {
		at[x] = int32(s)
	}
	for x := range at {
		if at[x] < 0 {
			at[x] = int32(len(pt.design))
			pt.design = append(pt.design, int32(x))
		}
	}
	for s, x := range pt.design {
		for _, y := range des.graph[x] {
			t := at[y]
			if int32(s) < t && (int(t) >= n || !slices.Contains(adj[s], t)) {
				pt.cables = append(pt.cables, [2]int32{int32(s), t})
				if int(t) < n {
					pt.between++
				}
			}
		}
	}
	most := des.missing
	if most == 0 {
		most = maxMissing
	}
	if 1000*pt.between > most*ends(des.graph)/2 {
		return parts{}, false
	}
	return pt, true
}

// whole says whether adj has as many cables as a design of its switches
// and degree (which of them Match says).
func whole(adj [][]int32, degree int) bool { return ends(adj) == len(adj)*degree }

// ends counts the cable ends of adj (twice its cables).
func ends(adj [][]int32) int {
	n := 0
	for _, nb := range adj {
		n += len(nb)
	}
	return n
}

// withAdded returns f with the switches and cables of pt and HCAs up to
// want on every switch index, on the switches' lowest free ports; an
// added switch has as many ports as f's largest.
func withAdded(f *fabric.Fabric, v *fabric.SwitchView, pt parts, hosts, want []int) (*fabric.Fabric, error) {
	nodes := f.Nodes()
	radix := 0
	for _, id := range v.IDs {
		radix = max(radix, f.Ports(id))
	}
	ids := slices.Clone(v.IDs) // switch index -> NodeID
	for s := len(v.IDs); s < len(pt.design); s++ {
		ids = append(ids, fabric.NodeID(len(nodes)))
		nodes = append(nodes, fabric.Node{Name: fmt.Sprintf("slimroute-added-switch-%d", s), Kind: fabric.Switch, Ports: radix})
		hosts = append(hosts, 0)
	}
	free := make([][]int, len(ids))
	for s, id := range ids {
		for p := nodes[id].Ports; p >= 1; p-- {
			if _, ok := f.Peer(fabric.PortRef{Node: id, Port: p}); s >= len(v.IDs) || !ok {
				free[s] = append(free[s], p) // highest first: taken from the end
			}
		}
	}
	take := func(s int32) (fabric.PortRef, error) {
		n := len(free[s])
		if n == 0 {
			return fabric.PortRef{}, fmt.Errorf("%s has no free port", nodes[ids[s]].Name)
		}
		p := free[s][n-1]
		free[s] = free[s][:n-1]
		return fabric.PortRef{Node: ids[s], Port: p}, nil
	}
	links := f.Links()
	for _, c := range pt.cables {
		a, err := take(c[0])
		if err != nil {
			return nil, err
		}
		b, err := take(c[1])
		if err != nil {
			return nil, err
		}
		links = append(links, fabric.Link{A: a, B: b})
	}
	for s := range ids {
		for range want[s] - hosts[s] {
			a, err := take(int32(s))
			if err != nil {
				return nil, err
			}
			id := fabric.NodeID(len(nodes))
			nodes = append(nodes, fabric.Node{Name: fmt.Sprintf("slimroute-added-hca-%d", id), Kind: fabric.HCA, Ports: 1})
			links = append(links, fabric.Link{A: a, B: fabric.PortRef{Node: id, Port: 1}})
		}
	}
	for _, n := range nodes[f.NumNodes():] {
		if _, taken := f.NodeByName(n.Name); taken {
			return nil, fmt.Errorf("node name %s taken", n.Name)
		}
	}
	return fabric.New(nodes, links)
}

// completedLIDs returns lids, f's, with LIDs for the nodes g adds to f
// (its nodes past f's): the switches' after lids' top, then blocks of
// 2^LMC for the HCAs; false when they do not fit below the unicast limit
// or the switches' tables (lftCap).
func completedLIDs(lids *lft.LIDs, f, g *fabric.Fabric, lftCap int) (*lft.LIDs, bool) {
	ports := lids.Ports()
	lmc := lids.LMC()
	for _, p := range ports {
		lmc = max(lmc, p.LMC)
	}
	limit := lft.LID(lft.MaxUnicastLID)
	if lftCap > 0 && lft.LID(lftCap-1) < limit {
		limit = lft.LID(lftCap - 1)
	}
	next := lids.Top() + 1
	for _, kind := range []fabric.Kind{fabric.Switch, fabric.HCA} {
		step, port, l := lft.LID(1), 0, uint8(0)
		if kind == fabric.HCA {
			step, port, l = lft.LID(1)<<lmc, 1, lmc
			next = (next + step - 1) / step * step
		}
		for id := f.NumNodes(); id < g.NumNodes(); id++ {
			if g.Kind(fabric.NodeID(id)) != kind {
				continue
			}
			if next+step-1 > limit {
				return nil, false
			}
			ports = append(ports, lft.PortLIDs{Port: fabric.PortRef{Node: fabric.NodeID(id), Port: port}, Base: next, LMC: l})
			next += step
		}
	}
	l, err := lft.NewLIDs(lids.LMC(), ports)
	return l, err == nil
}
