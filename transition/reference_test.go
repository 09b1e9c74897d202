package transition

import (
	"slimroute/fabric"
	"slimroute/lft"
)

// The reference judge of the tests: it shares nothing with Check but the
// tables' accessors. It traces single packets through fixed mixes.

// ch is a channel: a switch, its egress port and a VL.
type ch struct {
	sw       fabric.NodeID
	port, vl int
}

// refGraph is a set of channels and dependencies, and what the traces met.
type refGraph struct {
	chans map[ch]bool
	deps  map[[2]ch]bool
	dead  bool // some packet was dropped
}

func newRefGraph() *refGraph {
	return &refGraph{chans: map[ch]bool{}, deps: map[[2]ch]bool{}}
}

// trace sends one packet from HCA port src to lid on SL sl, switch i of
// sws forwarding by tabs[lftOf(i)] and mapping VLs by tabs[vlOf(i)]; it
// follows a looping packet for 3·len(sws) hops, enough to close its loop.
func (g *refGraph) trace(tabs [2]*lft.Tables, sws map[fabric.NodeID]int, src fabric.PortRef, lid lft.LID, sl uint8, lftOf, vlOf func(int) int) {
	f := tabs[0].Fabric()
	owner, _, _ := tabs[0].LIDs().Owner(lid)
	at, _ := f.Peer(src)
	var prev *ch
	for range 3 * len(sws) {
		i := sws[at.Node]
		out := int(tabs[lftOf(i)].Port(at.Node, lid))
		if out == lft.Drop || out == 0 {
			g.dead = g.dead || out == lft.Drop || owner.Port != (fabric.PortRef{Node: at.Node})
			return
		}
		peer, ok := f.Peer(fabric.PortRef{Node: at.Node, Port: out})
		vl := int(tabs[vlOf(i)].SL2VL(at.Node, at.Port, out, sl))
		if !ok || vl == 15 {
			g.dead = true
			return
		}
		if f.Kind(peer.Node) == fabric.HCA {
			g.dead = g.dead || peer != owner.Port
			return
		}
		c := ch{at.Node, out, vl}
		g.chans[c] = true
		if prev != nil {
			g.deps[[2]ch{*prev, c}] = true
		}
		prev, at = &c, peer
	}
}

// cyclic reports whether the dependencies hold a cycle (Kahn's algorithm).
func (g *refGraph) cyclic() bool {
	in := map[ch]int{}
	succ := map[ch][]ch{}
	for d := range g.deps {
		in[d[1]]++
		succ[d[0]] = append(succ[d[0]], d[1])
	}
	var ready []ch
	for c := range g.chans {
		if in[c] == 0 {
			ready = append(ready, c)
		}
	}
	done := 0
	for len(ready) > 0 {
		c := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		done++
		for _, s := range succ[c] {
			if in[s]--; in[s] == 0 {
				ready = append(ready, s)
			}
		}
	}
	return done < len(g.chans)
}

// sources lists the LID-holding HCA ports cabled to a switch.
func sources(t *lft.Tables) []fabric.PortRef {
	var out []fabric.PortRef
	for _, p := range t.LIDs().Ports() {
		peer, ok := t.Fabric().Peer(p.Port)
		if t.Fabric().Kind(p.Port.Node) == fabric.HCA && ok && t.Fabric().Kind(peer.Node) == fabric.Switch {
			out = append(out, p.Port)
		}
	}
	return out
}

// lidsOf lists every LID of the tables with its owner.
func lidsOf(t *lft.Tables) map[lft.LID]fabric.PortRef { return lidsOfPlan(t.LIDs()) }

// lidsOfPlan lists every LID of a plan with its owner.
func lidsOfPlan(lids *lft.LIDs) map[lft.LID]fabric.PortRef {
	out := map[lft.LID]fabric.PortRef{}
	for _, p := range lids.Ports() {
		for l := p.Base; l <= p.Top(); l++ {
			out[l] = p.Port
		}
	}
	return out
}

// switchIndex numbers the switches.
func switchIndex(t *lft.Tables) map[fabric.NodeID]int {
	out := map[fabric.NodeID]int{}
	for i, s := range t.Switches() {
		out[s] = i
	}
	return out
}

// pure traces every packet of one state: the reference for mixes that
// differ in one entry, where every packet meets the changed entry once.
func pure(g *refGraph, t *lft.Tables) {
	tabs, sws := [2]*lft.Tables{t, t}, switchIndex(t)
	zero := func(int) int { return 0 }
	for lid, owner := range lidsOf(t) {
		for _, src := range sources(t) {
			if src != owner {
				g.trace(tabs, sws, src, lid, t.PathSL(src, lid), zero, zero)
			}
		}
	}
}

// bruteForce traces every packet under every mix: each switch's LFT
// entry old or new, its SL-to-VL table old or new, the source's path SL
// old or new (2^(2S+1) traces per source and LID). It also reports
// whether any mix of LFT entries has a forwarding loop, and dead ends at
// the sources (an HCA sending on VL 15).
func bruteForce(old, new *lft.Tables) (g *refGraph, loop bool) {
	tabs, sws := [2]*lft.Tables{old, new}, switchIndex(old)
	g = newRefGraph()
	n := len(sws)
	for lid, owner := range lidsOf(old) {
		loop = loop || anyLoop(tabs, sws, lid)
		for _, src := range sources(old) {
			if src == owner {
				continue
			}
			for st := range 2 {
				sl := tabs[st].PathSL(src, lid)
				g.dead = g.dead || old.CASL2VL(src)[sl] == 15 || new.CASL2VL(src)[sl] == 15
				for a := range 1 << n {
					for b := range 1 << n {
						g.trace(tabs, sws, src, lid, sl, func(i int) int { return a >> i & 1 }, func(i int) int { return b >> i & 1 })
					}
				}
			}
		}
	}
	return g, loop
}

// anyLoop reports whether some assignment of old or new entries to the
// switches makes lid's next hops circle.
func anyLoop(tabs [2]*lft.Tables, sws map[fabric.NodeID]int, lid lft.LID) bool {
	f := tabs[0].Fabric()
	for a := range 1 << len(sws) {
		for start := range sws {
			at := start
			for range len(sws) + 1 {
				out := int(tabs[a>>sws[at]&1].Port(at, lid))
				peer, ok := f.Peer(fabric.PortRef{Node: at, Port: out})
				if out == 0 || out == lft.Drop || !ok || f.Kind(peer.Node) != fabric.Switch {
					break
				}
				at = peer.Node
				if at == start {
					return true
				}
			}
		}
	}
	return false
}
