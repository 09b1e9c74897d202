// Package designcheck is an independent judge of built topologies: it
// checks a fabric.Fabric against the mathematical definition of PolarFly
// (the Erdős–Rényi polarity graph ER_q), HyperX (a Hamming graph with
// trunked links) and Dragonfly+ (groups of leaf/spine bipartite graphs
// joined by global spine cables), and against the node-naming contract the
// builders follow. It reads the fabric alone and knows nothing of any
// builder; each check returns nil or an error naming the first violation
// (which node or pair, which count, expected versus got).
package designcheck

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"slimroute/fabric"
)

// view is the switch graph of a fabric as the checks need it. Switches are
// numbered 0..S-1 in NodeID order (fabric.SwitchView's numbering).
type view struct {
	f    *fabric.Fabric
	ids  []fabric.NodeID   // switch index -> NodeID
	idx  []int             // NodeID -> switch index, -1 for HCAs
	mult []map[int]int     // per switch: peer switch -> number of cables
	nbrs [][]int           // per switch: distinct peer switches, ascending
	deg  []int             // per switch: number of switch-to-switch cables
	hcas [][]fabric.NodeID // per switch: the HCAs cabled to it
}

// newView builds the view of f, rejecting what no design here allows:
// an HCA that is not single-ported and cabled to a switch, and a switch
// cabled to itself.
func newView(f *fabric.Fabric) (*view, error) {
	if f == nil {
		return nil, fmt.Errorf("nil fabric")
	}
	if err := checkHCAPorts(f); err != nil {
		return nil, err
	}
	sv := f.SwitchView()
	n := len(sv.IDs)
	v := &view{f: f, ids: sv.IDs, idx: sv.Index, mult: make([]map[int]int, n),
		deg: make([]int, n), hcas: make([][]fabric.NodeID, n)}
	for s, chans := range sv.Adj {
		v.mult[s] = make(map[int]int)
		for _, c := range chans {
			if c.Peer == s {
				return nil, fmt.Errorf("switch %q: self cable from its port %d to its own port %d", f.Name(v.ids[s]), c.Port, c.PeerPort)
			}
			v.mult[s][c.Peer]++
		}
		v.deg[s] = len(chans)
		for _, p := range sv.Endpoints[s] {
			v.hcas[s] = append(v.hcas[s], p.Node)
		}
	}
	v.nbrs = distinctPeers(sv)
	return v, nil
}

// checkHCAPorts requires every HCA to have exactly one port, cabled to a
// switch.
func checkHCAPorts(f *fabric.Fabric) error {
	for _, h := range f.IDsOf(fabric.HCA) {
		if p := f.Ports(h); p != 1 {
			return fmt.Errorf("HCA %q: %d ports, want 1 (single-port HCAs)", f.Name(h), p)
		}
		peer, ok := f.Peer(fabric.PortRef{Node: h, Port: 1})
		if !ok {
			return fmt.Errorf("HCA %q: port 1 not cabled, want it cabled to a switch", f.Name(h))
		}
		if f.Kind(peer.Node) != fabric.Switch {
			return fmt.Errorf("HCA %q: cabled to %s %q, want a switch", f.Name(h), f.Kind(peer.Node), f.Name(peer.Node))
		}
	}
	return nil
}

// distinctPeers lists, per switch, the distinct other switches it is
// cabled to, ascending (self cables and HCAs left out).
func distinctPeers(sv *fabric.SwitchView) [][]int {
	out := make([][]int, len(sv.Adj))
	for s, chans := range sv.Adj {
		seen := make(map[int]bool)
		for _, c := range chans {
			if c.Peer != s && !seen[c.Peer] {
				seen[c.Peer] = true
				out[s] = append(out[s], c.Peer)
			}
		}
		sort.Ints(out[s])
	}
	return out
}

// name returns the name of switch s.
func (v *view) name(s int) string { return v.f.Name(v.ids[s]) }

// wantCounts checks the number of switches and of HCAs.
func (v *view) wantCounts(switches, hcas int) error {
	if got := len(v.ids); got != switches {
		return fmt.Errorf("fabric has %d switches, want %d", got, switches)
	}
	if got := len(v.f.IDsOf(fabric.HCA)); got != hcas {
		return fmt.Errorf("fabric has %d HCAs, want %d", got, hcas)
	}
	return nil
}

// checkHCAs checks that switch s has exactly want HCAs and that they are
// named prefix-1 … prefix-want. Names are unique in a fabric, so the right
// count with every index in range means exactly that set.
func (v *view) checkHCAs(s int, prefix string, want int) error {
	got := v.hcas[s]
	if len(got) != want {
		return fmt.Errorf("switch %q: %d HCAs attached, want %d", v.name(s), len(got), want)
	}
	for _, h := range got {
		n := v.f.Name(h)
		i, ok := parseName(n, prefix+"-", 1)
		if !ok || i[0] < 1 || i[0] > want {
			return fmt.Errorf("switch %q: attached HCA %q, want names %s-1 … %s-%d", v.name(s), n, prefix, prefix, want)
		}
	}
	return nil
}

// parseName splits name = prefix + "n1-n2-…-nk" into k non-negative
// decimal integers written canonically (no sign, no leading zeros).
func parseName(name, prefix string, k int) ([]int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return nil, false
	}
	parts := strings.Split(rest, "-")
	if len(parts) != k {
		return nil, false
	}
	out := make([]int, k)
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 || strconv.Itoa(x) != p {
			return nil, false
		}
		out[i] = x
	}
	return out, true
}

// joinInts writes c as "c1-c2-…-ck", the coordinate part of a name.
func joinInts(c []int) string {
	s := make([]string, len(c))
	for i, x := range c {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, "-")
}

// bfs returns the switch-to-switch hop distance from switch src to every
// switch over nbrs, -1 where unreachable.
func bfs(nbrs [][]int, src int) []int {
	dist := make([]int, len(nbrs))
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue := []int{src}
	for head := 0; head < len(queue); head++ {
		s := queue[head]
		for _, t := range nbrs[s] {
			if dist[t] < 0 {
				dist[t] = dist[s] + 1
				queue = append(queue, t)
			}
		}
	}
	return dist
}

// diameter returns the largest distance between two switches of v, or -1
// if the switch graph is disconnected.
func (v *view) diameter() int {
	all := make([]int, len(v.ids))
	for i := range all {
		all[i] = i
	}
	return diameterOf(v.nbrs, all)
}

// diameterOf returns the largest distance between two of the switches
// among (indices into nbrs), -1 if two of them are disconnected.
func diameterOf(nbrs [][]int, among []int) int {
	d := 0
	for _, s := range among {
		dist := bfs(nbrs, s)
		for _, t := range among {
			if dist[t] < 0 {
				return -1
			}
			d = max(d, dist[t])
		}
	}
	return d
}

// Diameter returns the largest switch-to-switch hop distance between two
// nodes of among, which must be switches of f. Only cables between
// switches are walked. It returns -1 if some pair is disconnected or among
// holds a node that is not a switch of f, and 0 for fewer than two nodes.
func Diameter(f *fabric.Fabric, among []fabric.NodeID) int {
	sv := f.SwitchView()
	idx := make([]int, len(among))
	for i, id := range among {
		if id < 0 || int(id) >= f.NumNodes() || sv.Index[id] < 0 {
			return -1
		}
		idx[i] = sv.Index[id]
	}
	return diameterOf(distinctPeers(sv), idx)
}
