package layers

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"slimroute/fabric"
)

// Dest is a destination of the routing: a cabled HCA port (an endpoint,
// which owns 2^LMC LIDs) or a switch (its port 0, which owns one LID).
type Dest struct {
	Port       fabric.PortRef // the HCA port, or {switch, 0}
	Switch     int            // index of the switch it hangs off (or is)
	SwitchPort int            // port of Switch that faces it; 0 for a switch
}

// graph is the routing's view of the fabric: switches with their usable
// inter-switch channels, the load of every channel, and the destinations.
type graph struct {
	f     *fabric.Fabric
	ids   []fabric.NodeID
	index []int              // NodeID -> switch index, -1 for HCAs
	adj   [][]fabric.Channel // usable channels per switch, in port order
	chOff []int              // global channel id = chOff[s] + index in adj[s]
	rev   []int32            // global id of the opposite direction of each channel
	peer  []int32            // switch each channel leads to (by global id): adj's Peer, compact for the hot loops
	hosts []int              // endpoints per switch: the weight of its traffic
	dests []Dest             // endpoints first, then switches
	nEP   int
	// bipartite: the switches split in two sides with every channel
	// between them (a Clos: leaves and cores against spines), so all paths
	// between two switches have lengths of one parity
	bipartite bool
	// unattached lists cabled HCA ports that reach no switch (their cable
	// is avoided).
	unattached []fabric.PortRef
	// parallel: route the members of a batch at once (Options.Workers > 1)
	parallel bool
	// sym: the group the routing is built invariant under (symmetry.go),
	// nil for none
	sym *symmetry
	// design: a Slim Fly renumbered in its design's order (symmetry.go)
	design bool
}

func newGraph(f *fabric.Fabric, avoid []int) (*graph, error) {
	if err := checkAvoid(f, avoid); err != nil {
		return nil, err
	}
	skip := make(map[int]bool, len(avoid))
	for _, i := range avoid {
		skip[i] = true
	}
	v := f.SwitchView()
	g := &graph{f: f, ids: v.IDs, index: v.Index}
	S := len(v.IDs)
	if S == 0 {
		return nil, fmt.Errorf("the fabric has no switches to route")
	}
	if S > 1<<24 {
		return nil, fmt.Errorf("%d switches: more than slimroute routes", S)
	}
	g.adj = make([][]fabric.Channel, S)
	g.hosts = make([]int, S)
	for s := 0; s < S; s++ {
		for _, c := range v.Adj[s] {
			if !skip[c.Link] {
				g.adj[s] = append(g.adj[s], c)
			}
		}
		if len(g.adj[s]) > 253 {
			return nil, fmt.Errorf("switch %q has %d inter-switch cables; at most 253 are supported", f.Node(v.IDs[s]).Name, len(g.adj[s]))
		}
	}
	g.linkChannels()
	for s := 0; s < S; s++ {
		for i, ep := range v.Endpoints[s] {
			li, _ := f.LinkAt(ep)
			if skip[li] {
				g.unattached = append(g.unattached, ep)
				continue
			}
			g.dests = append(g.dests, Dest{Port: ep, Switch: s, SwitchPort: v.Attach[s][i]})
			g.hosts[s]++
		}
	}
	g.orderDests()
	if err := g.connected(); err != nil {
		return nil, err
	}
	g.bipartite = g.twoColourable()
	return g, nil
}

// linkChannels numbers g's channels from adj: chOff, peer and rev.
func (g *graph) linkChannels() {
	S := len(g.adj)
	g.chOff = make([]int, S+1)
	for s := 0; s < S; s++ {
		g.chOff[s+1] = g.chOff[s] + len(g.adj[s])
	}
	g.rev = make([]int32, g.chOff[S])
	g.peer = make([]int32, g.chOff[S])
	for s := 0; s < S; s++ {
		for i, c := range g.adj[s] {
			g.peer[g.chOff[s]+i] = int32(c.Peer)
			for j, b := range g.adj[c.Peer] {
				if b.Port == c.PeerPort {
					g.rev[g.chOff[s]+i] = int32(g.chOff[c.Peer] + j)
				}
			}
		}
	}
}

// orderDests puts g's endpoints (g.dests, none of them a switch yet) in
// DFSSSP's destination order — switches with more endpoints first, ties
// by switch order, each switch's endpoints by port — and appends the
// switches, in order.
func (g *graph) orderDests() {
	sort.SliceStable(g.dests, func(i, j int) bool {
		a, b := g.dests[i], g.dests[j]
		if g.hosts[a.Switch] != g.hosts[b.Switch] {
			return g.hosts[a.Switch] > g.hosts[b.Switch]
		}
		if a.Switch != b.Switch {
			return a.Switch < b.Switch
		}
		return a.SwitchPort < b.SwitchPort
	})
	g.nEP = len(g.dests)
	for s, id := range g.ids {
		g.dests = append(g.dests, Dest{Port: fabric.PortRef{Node: id, Port: 0}, Switch: s})
	}
}

// renumbered returns g, marked as in its design's order, with switch s
// renumbered rank[s] (a permutation),
// each switch's channels in the order of key[peer's new number] (port
// order among parallel cables), and the destinations ordered anew.
// Cost: O(C × degree + dests log dests).
func (g *graph) renumbered(rank, key []int32) *graph {
	S := len(g.adj)
	ng := &graph{f: g.f, ids: make([]fabric.NodeID, S), index: slices.Clone(g.index), adj: make([][]fabric.Channel, S),
		hosts: make([]int, S), bipartite: g.bipartite, unattached: g.unattached, parallel: g.parallel, design: true}
	for s := 0; s < S; s++ {
		x := rank[s]
		ng.ids[x], ng.hosts[x], ng.index[g.ids[s]] = g.ids[s], g.hosts[s], int(x)
		for _, c := range g.adj[s] {
			c.Peer = int(rank[c.Peer])
			ng.adj[x] = append(ng.adj[x], c)
		}
		slices.SortStableFunc(ng.adj[x], func(a, b fabric.Channel) int { return int(key[a.Peer] - key[b.Peer]) })
	}
	ng.linkChannels()
	for _, d := range g.dests[:g.nEP] {
		d.Switch = int(rank[d.Switch])
		ng.dests = append(ng.dests, d)
	}
	ng.orderDests()
	return ng
}

// UnreachableError reports a fabric whose switches fall apart into several
// groups that cannot reach each other.
type UnreachableError struct {
	// Groups lists the switch names of each connected group, largest first.
	Groups [][]string
}

func (e *UnreachableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the fabric is disconnected: its switches form %d groups that cannot reach each other", len(e.Groups))
	for i, grp := range e.Groups {
		names := grp
		more := ""
		if len(names) > 6 {
			names, more = names[:6], fmt.Sprintf(" and %d more", len(grp)-6)
		}
		fmt.Fprintf(&b, "; group %d (%d switches): %s%s", i+1, len(grp), strings.Join(names, ", "), more)
	}
	b.WriteString("; check the cabling (slimroute topo stats shows the components) or the avoided links")
	return b.String()
}

func (g *graph) connected() error {
	groups := fabric.Components(g.adj)
	if len(groups) == 1 {
		return nil
	}
	sort.SliceStable(groups, func(i, j int) bool { return len(groups[i]) > len(groups[j]) })
	e := &UnreachableError{}
	for _, grp := range groups {
		names := make([]string, len(grp))
		for i, s := range grp {
			names[i] = g.f.Node(g.ids[s]).Name
		}
		e.Groups = append(e.Groups, names)
	}
	return e
}

// twoColourable reports whether the (connected) switch graph is bipartite.
func (g *graph) twoColourable() bool {
	dist := make([]int32, len(g.adj))
	g.bfs(0, dist, nil)
	for s := range g.adj {
		for _, y := range g.peer[g.chOff[s]:g.chOff[s+1]] {
			if dist[y]%2 == dist[s]%2 {
				return false
			}
		}
	}
	return true
}

// parallelFree reports whether no switch names a peer twice: no parallel
// cables.
func (g *graph) parallelFree() bool {
	last := make([]int, len(g.adj)) // per switch: 1 + the switch whose channels named it last
	for s := range g.adj {
		for _, p := range g.peer[g.chOff[s]:g.chOff[s+1]] {
			if last[p] == s+1 {
				return false
			}
			last[p] = s + 1
		}
	}
	return true
}

// bfs fills dist with hop distances to t over usable channels (reverse
// direction equals forward: cables are bidirectional) and returns the
// switches in BFS order.
func (g *graph) bfs(t int, dist []int32, order []int32) []int32 {
	for i := range dist {
		dist[i] = -1
	}
	dist[t] = 0
	order = append(order[:0], int32(t))
	for h := 0; h < len(order); h++ {
		u := order[h]
		for _, y := range g.peer[g.chOff[u]:g.chOff[u+1]] {
			if dist[y] < 0 {
				dist[y] = dist[u] + 1
				order = append(order, y)
			}
		}
	}
	return order
}

// tail returns the switch channel c leaves.
func (g *graph) tail(c int) int {
	s, _ := slices.BinarySearch(g.chOff, c+1)
	return s - 1
}
