package cabling

// step is one physical step on ports of a portGraph.
type step struct {
	op   string
	a, b int32
}

// repair returns the fewest steps that turn difference d into the plan,
// then a replacement for every cable they leave in a planned position at a
// lower rate than planned. The steps are checked on a bench (a copy of the
// difference's ports); should they not restore the plan — a bug — the
// plain repair (remove every cable of d, connect every planned one) is
// returned instead, so that no report ever carries wrong steps.
func (g *portGraph) repair(d difference) []step {
	var steps []step
	if d.cycle {
		steps = g.repairCycle(d)
	} else {
		steps = g.repairPath(d.ports, d.found)
	}
	b := g.newBench(d)
	if !b.applyAll(steps) || !g.restored(b, d) {
		g.plainRepairs++
		steps = g.plainRepair(d)
		b = g.newBench(d)
		b.applyAll(steps)
	}
	for _, p := range d.ports {
		if c, ok := b.cable[p]; ok && g.planned[p] > p && g.slower(c, g.planLink[p]) {
			q := g.planned[p]
			steps = append(steps, step{OpReplace, p, q})
		}
	}
	return steps
}

// repairCycle: k found cables, each in the port where another one belongs.
// Exchanging two plugs puts one cable right and leaves a cycle of k−1 (the
// last exchange puts two right), so k−1 exchanges are needed and enough.
// For each, the exchange on one switch (then in one rack) is preferred.
func (g *portGraph) repairCycle(d difference) []step {
	b := g.newBench(d)
	var steps []step
	for range d.ports {
		best, score := step{}, -1
		for _, u := range d.ports {
			v := g.planned[u]
			if v < u || b.peer[u] == v {
				continue
			}
			for _, s := range []step{{OpExchange, b.peer[u], v}, {OpExchange, u, b.peer[v]}} {
				if s.b < s.a {
					s.a, s.b = s.b, s.a
				}
				l := g.locality(s.a, s.b)
				if l > score || (l == score && (s.a < best.a || (s.a == best.a && s.b < best.b))) {
					best, score = s, l // ties: the step that comes first in rack and node order
				}
			}
		}
		if score < 0 {
			break
		}
		b.apply(best)
		steps = append(steps, best)
	}
	return steps
}

// repairPath: a path of found and planned cables. Cables to nodes the plan
// does not have are removed (never reused). A path that ends in found
// cables at both ends has one cable too many: one is removed. What remains
// starts at an empty port: moving the plug that belongs there puts one
// cable right and empties the next port of the path; a planned cable left
// over at the end, between two empty ports, is connected.
func (g *portGraph) repairPath(ports []int32, found []bool) []step {
	var steps []step
	if len(found) > 0 && found[0] && g.isForeign(ports[0]) {
		steps = append(steps, step{OpRemove, ports[1], ports[0]})
		ports, found = ports[1:], found[1:]
	}
	if n := len(found); n > 0 && found[n-1] && g.isForeign(ports[n]) {
		steps = append(steps, step{OpRemove, ports[n-1], ports[n]})
		ports, found = ports[:n], found[:n-1]
	}
	n := len(found)
	switch {
	case n == 0:
		return steps
	case found[0] && found[n-1]:
		return append(steps, g.removeOne(ports, found)...)
	case found[0]:
		return append(steps, fromEmpty(reversed(ports), reversedBools(found))...)
	case found[n-1]:
		return append(steps, fromEmpty(ports, found)...)
	}
	return append(steps, g.better(fromEmpty(ports, found), fromEmpty(reversed(ports), reversedBools(found)))...)
}

// removeOne removes the found cable of a path that has one too many whose
// removal leaves the most local moves.
func (g *portGraph) removeOne(ports []int32, found []bool) []step {
	var best []step
	for i := 0; i < len(found); i += 2 {
		s := []step{{OpRemove, ports[i], ports[i+1]}}
		s = append(s, fromEmpty(reversed(ports[:i+1]), reversedBools(found[:i]))...)
		s = append(s, fromEmpty(ports[i+1:], found[i+1:])...)
		if best == nil {
			best = s
		} else {
			best = g.better(best, s)
		}
	}
	return best
}

// fromEmpty repairs a path whose first port is empty and planned to the
// second.
func fromEmpty(ports []int32, found []bool) []step {
	var s []step
	i := 0
	for i+2 < len(ports) && found[i+1] {
		s = append(s, step{OpMove, ports[i+2], ports[i]})
		i += 2
	}
	if i+1 < len(ports) {
		s = append(s, step{OpConnect, ports[i], ports[i+1]})
	}
	return s
}

// plainRepair removes every found cable of d, then connects every planned
// one: always legal, always right, rarely the fewest steps.
func (g *portGraph) plainRepair(d difference) []step {
	var s []step
	for _, p := range d.ports {
		if q := g.cabled[p]; q > p {
			s = append(s, step{OpRemove, p, q})
		}
	}
	for _, p := range d.ports {
		if q := g.planned[p]; q > p {
			s = append(s, step{OpConnect, p, q})
		}
	}
	return s
}

// better returns the plan with more steps on one switch (then in one rack);
// a when they tie.
func (g *portGraph) better(a, b []step) []step {
	score := func(s []step) int {
		n := 0
		for _, x := range s {
			if x.op == OpMove || x.op == OpExchange {
				n += g.locality(x.a, x.b)
			}
		}
		return n
	}
	if len(b) < len(a) || (len(b) == len(a) && score(b) > score(a)) {
		return b
	}
	return a
}

// locality is 2 for two ports of one node, 1 for two nodes in one rack.
func (g *portGraph) locality(a, b int32) int {
	ka, _ := g.node(a)
	kb, _ := g.node(b)
	switch {
	case ka == kb:
		return 2
	case g.rack(ka) > 0 && g.rack(ka) == g.rack(kb):
		return 1
	}
	return 0
}

func (g *portGraph) isForeign(p int32) bool {
	k, _ := g.node(p)
	return k >= g.nPlan
}

func reversed(s []int32) []int32 {
	out := make([]int32, len(s))
	for i, x := range s {
		out[len(s)-1-i] = x
	}
	return out
}

func reversedBools(s []bool) []bool {
	out := make([]bool, len(s))
	for i, x := range s {
		out[len(s)-1-i] = x
	}
	return out
}

// bench is the cabling of one difference's ports while steps are applied:
// which port holds a plug of which cable (a found link, or -1 for a new
// one), and where its other plug is. It follows the contract's semantics.
type bench struct {
	peer  map[int32]int32
	cable map[int32]int32
}

func (g *portGraph) newBench(ds ...difference) *bench {
	b := &bench{peer: map[int32]int32{}, cable: map[int32]int32{}}
	for _, d := range ds {
		for _, p := range d.ports {
			if q := g.cabled[p]; q >= 0 {
				b.peer[p], b.cable[p] = q, g.foundLink[p]
			}
		}
	}
	return b
}

func (b *bench) holds(p int32) bool { _, ok := b.peer[p]; return ok }

// apply performs s, or reports false (changing nothing) if the ports are
// not as s requires.
func (b *bench) apply(s step) bool {
	if s.a == s.b {
		return false
	}
	switch s.op {
	case OpExchange:
		if !b.holds(s.a) || !b.holds(s.b) {
			return false
		}
		x, y, cx, cy := b.peer[s.a], b.peer[s.b], b.cable[s.a], b.cable[s.b]
		if x == s.b {
			return true
		}
		b.plug(s.a, y, cy)
		b.plug(s.b, x, cx)
	case OpMove:
		if !b.holds(s.a) || b.holds(s.b) {
			return false
		}
		x, c := b.peer[s.a], b.cable[s.a]
		delete(b.peer, s.a)
		delete(b.cable, s.a)
		b.plug(s.b, x, c)
	case OpConnect:
		if b.holds(s.a) || b.holds(s.b) {
			return false
		}
		b.plug(s.a, s.b, -1)
	case OpRemove:
		if b.peer[s.a] != s.b || !b.holds(s.a) {
			return false
		}
		delete(b.peer, s.a)
		delete(b.peer, s.b)
		delete(b.cable, s.a)
		delete(b.cable, s.b)
	default:
		return false
	}
	return true
}

func (b *bench) plug(p, q, c int32) {
	b.peer[p], b.peer[q] = q, p
	b.cable[p], b.cable[q] = c, c
}

func (b *bench) applyAll(steps []step) bool {
	for _, s := range steps {
		if !b.apply(s) {
			return false
		}
	}
	return true
}

// restored reports whether every port of d is cabled as planned on b.
func (g *portGraph) restored(b *bench, d difference) bool {
	for _, p := range d.ports {
		q, ok := b.peer[p]
		if want := g.planned[p]; (want >= 0) != ok || (ok && q != want) {
			return false
		}
	}
	return true
}
