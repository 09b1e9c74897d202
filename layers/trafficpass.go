package layers

import (
	"math/bits"
	"slices"

	"slimroute/fabric"
)

// trafficPass holds the jobs' loads and the tree being improved
// (traffic.go).
type trafficPass struct {
	g      *graph
	r      *Routing
	J      int
	kappa  []int64   // [i*J+j]
	load   [][]int64 // [job][channel]
	flows  map[int][]srcFlow
	dests  []int // destinations with flows, ascending
	nFlows int
	dist   []int32 // hops to the destination switch
	order  []int32
	// the tree being improved: per switch its route's channels and
	// switches, the jobs' traffic through it
	path    [][]int32
	via     [][]int32
	through [][]int64 // [switch][job]
	// under[x]: the switches whose route passes x, x first; others[z]:
	// z's routes in every layer but the one being improved (nil there;
	// switches with hosts only), read once per tree
	under    [][]int32
	others   [][][]int32
	trialChs []int32 // scratch of trial: the channels a move touches
	trialDs  []int64 // and the change of each job's load on them
	trials   int     // moves weighed (trafficTrials bounds them)
	routeBuf []int32 // scratch of shifts
	shiftBuf []shift
	// saved holds the rows of every tree the pass changed, as they were
	saved map[treeKey][]uint8
	// before is every job's contention before the pass
	before []contention
	// lost counts the pairs (source switch with hosts, destination) that
	// send the jobs' traffic and that moves took below keepPaths disjoint
	// routes (never down: a pair that gets them back still counts), and
	// lossBudget bounds it: lossPermille of all pairs
	lost, lossBudget int
	// dfGroup and dfLeaf are the groups and leaves of a Dragonfly+
	// routing (nil otherwise): its routes keep their shapes
	// (dragonflyShape)
	dfGroup []int32
	dfLeaf  []bool
	// peak is the load above which a channel costs more while shaving
	// (0: not shaving)
	peak int64
	// apart[i*J+j]: jobs i ≠ j cannot interleave their phases (or do not
	// say); sharePenalty is what such a pair costs on a channel both use
	apart        []bool
	sharePenalty int64
	// guard, for a switch-over from a previous routing, refuses the
	// moves whose mixes with it would not be deadlock-free (switchover.go)
	guard *switchGuard
}

// lossPermille bounds the pairs the traffic pass may take below keepPaths
// disjoint routes, in thousandths of all pairs: issue 30 allows the share
// of pairs with three a point below what they have without the jobs.
// Without the bound a two-level Clos of radix 12 under two ring and tree
// jobs (bench/jobmix, seed 1) lost 4.2 points; never to trade lowered
// the suite's mean contention factor 19 % instead of 26 %, with it 24 %.
const lossPermille = 10

// κ of the pass's cost (traffic.go): a job with itself, two jobs that
// can interleave their phases, two that cannot (or whose phases are not
// given). Against the total load squared, (l_i + l_j)² = l_i² + l_j² +
// 2 l_i l_j, the cost charges two jobs on one channel 2κ(i, j) l_i l_j
// and each job's own load κ(i, i) l_i²: the larger κ apart is against κ
// self, the more the pass parts jobs rather than spreading each job's own
// load. Measured over four draws of the suite's scattered ring and tree
// mixes (go test ./jobs -run TestRoutingForJobsPartsThem, the seed
// offset 0–3), the mean contention factor fell 26, 39, 31 and 24 % with
// 2/3/4, and 29, 39, 35 and 27 % with 1/3/5; the channels incompatible
// jobs share on q = 7 fell 18–35 % and 24–40 %; the busiest channel over the LP
// bound on q = 7 was 1.46, 1.64, 1.74, 1.57 and 1.46, 1.64, 1.79, 1.46.
// (1/3/4, 1/3/6, 1/2/5, 1/4/8, 2/4/6 and 2/4/8 did no better: a least
// of 26–28 %, some with the busiest up to 1.58 on the first draw.)
// A larger κ apart does not halve the channels incompatible jobs share,
// as issue 30 asks: on q = 7 they fell 28, 24, 45 and 30 % with 1/3/8,
// 27, 23, 46 and 30 % with 1/2/8 (whose fourth draw fell only 24 % in
// mean factor) and 28, 24, 46 and 32 % with 1/3/12, against 24–40 %
// with 1/3/5: the cost weighs the jobs' loads on a channel, not whether
// two jobs share it at all.
const (
	kappaSelf       = 1
	kappaCompatible = 3
	kappaApart      = 5
	// shareWeight: beyond κ, each channel two jobs that cannot
	// interleave their phases both use costs shareWeight × the square of
	// the mean load a job puts on a channel it uses (sharePenalty), for
	// issue 30's "the links shared between incompatible jobs at least
	// halved", which κ alone does not reach (above). Over the same four
	// draws, on q = 7 those channels fell 35, 36, 52 and 38 % with 4,
	// against 25, 24, 40 and 27 % without (q = 5: 57, 59, 54 % against
	// 45, 44, 46 %), the mean factor 29, 38, 34 and 27 % (29, 39, 35, 27
	// % without), the busiest channel over the LP bound 1.45, 1.68, 1.77,
	// 1.46 (1.46, 1.64, 1.79, 1.46); with 8 they fell 38–54 % and with 16
	// 39–55 %, but the mean factor only 24 and 22 % on the fourth draw.
	shareWeight = 4
)

// treeKey names the tree of destination d in layer k.
type treeKey struct{ d, k int }

// srcFlow is a flow seen from its destination: source switch, job, weight.
type srcFlow struct {
	s, job int
	w      int64
}

func newTrafficPass(g *graph, r *Routing, t *Traffic) *trafficPass {
	S := len(g.adj)
	tp := &trafficPass{g: g, r: r, J: max(t.Jobs, 1), flows: map[int][]srcFlow{}, saved: map[treeKey][]uint8{},
		dist: make([]int32, S), path: make([][]int32, S), via: make([][]int32, S), through: make([][]int64, S),
		under: make([][]int32, S), others: make([][][]int32, S)}
	tp.dfGroup, tp.dfLeaf, _ = r.DragonflyPlus()
	tp.kappa = make([]int64, tp.J*tp.J)
	tp.apart = make([]bool, tp.J*tp.J)
	for i := 0; i < tp.J; i++ {
		for j := 0; j < tp.J; j++ {
			switch {
			case i == j:
				tp.kappa[i*tp.J+j] = kappaSelf
			case t.Compatible != nil && t.Compatible(i, j):
				tp.kappa[i*tp.J+j] = kappaCompatible
			default:
				tp.kappa[i*tp.J+j] = kappaApart
				tp.apart[i*tp.J+j] = true
			}
		}
	}
	destOf := map[fabric.PortRef]int{}
	for d := 0; d < g.nEP; d++ {
		destOf[g.dests[d].Port] = d
	}
	for _, fl := range t.Flows {
		from, ok1 := g.f.Peer(fl.From)
		d, ok2 := destOf[fl.To]
		_, ok3 := destOf[fl.From] // (an HCA port whose cable is avoided sends nothing)
		if !ok1 || !ok2 || !ok3 || fl.Weight == 0 || g.index[from.Node] < 0 {
			continue
		}
		s := g.index[from.Node]
		if s == g.dests[d].Switch {
			continue
		}
		tp.flows[d] = append(tp.flows[d], srcFlow{s, fl.Job, fl.Weight})
		tp.nFlows++
	}
	for d := range tp.flows {
		tp.dests = append(tp.dests, d)
	}
	slices.Sort(tp.dests)
	tp.load = make([][]int64, tp.J)
	for j := range tp.load {
		tp.load[j] = make([]int64, g.chOff[S])
	}
	tp.reload()
	tp.sharePenalty = shareWeight * tp.meanLoad() * tp.meanLoad()
	tp.before = tp.factors()
	withHosts := 0
	for s := range g.adj {
		if g.hosts[s] > 0 {
			withHosts++
		}
	}
	for d := 0; d < g.nEP; d++ {
		pairs := withHosts
		if g.hosts[g.dests[d].Switch] > 0 {
			pairs--
		}
		tp.lossBudget += pairs
	}
	tp.lossBudget = tp.lossBudget * lossPermille / 1000
	return tp
}

// reload sets the jobs' loads from the tables.
func (tp *trafficPass) reload() {
	g, r := tp.g, tp.r
	for _, l := range tp.load {
		clear(l)
	}
	for _, d := range tp.dests {
		for k := 0; k < r.layers; k++ {
			for _, fl := range tp.flows[d] {
				r.walk(k, fl.s, d, func(x, e int) { tp.load[fl.job][g.chOff[x]+e] += fl.w })
			}
		}
	}
}

// meanLoad is the mean load a job puts on a channel it uses (0: none).
func (tp *trafficPass) meanLoad() int64 {
	var sum, n int64
	for _, l := range tp.load {
		for _, v := range l {
			if v > 0 {
				sum, n = sum+v, n+1
			}
		}
	}
	if n == 0 {
		return 0
	}
	return sum / n
}

// apartOn counts the pairs of jobs that cannot interleave their phases
// and both use channel ch.
func (tp *trafficPass) apartOn(ch int32) int64 {
	var n int64
	for i := 0; i < tp.J; i++ {
		for j := i + 1; j < tp.J; j++ {
			if tp.apart[i*tp.J+j] && tp.load[i][ch] > 0 && tp.load[j][ch] > 0 {
				n++
			}
		}
	}
	return n
}

// apartChange is how many more pairs of jobs apart use channel ch with δ
// added to the jobs' loads: only pairs with a job whose load changes,
// each once (at the first such job).
func (tp *trafficPass) apartChange(ch int32, δ []int64) int64 {
	var n int64
	for i, di := range δ {
		if di == 0 {
			continue
		}
		li := tp.load[i][ch]
		for j, dj := range δ {
			if j == i || dj != 0 && j < i || !tp.apart[i*tp.J+j] {
				continue
			}
			lj := tp.load[j][ch]
			was := li > 0 && lj > 0
			now := li+di > 0 && lj+dj > 0
			switch {
			case now && !was:
				n++
			case was && !now:
				n--
			}
		}
	}
	return n
}

// cost is the pass's objective over every channel, for its statistics
// (in floating point: the sum over a large fabric may exceed int64).
func (tp *trafficPass) cost() float64 {
	var c float64
	for ch := range tp.load[0] {
		c += float64(tp.costOn([]int32{int32(ch)}))
	}
	return c
}

// costOn is the pass's objective over the channels chs.
func (tp *trafficPass) costOn(chs []int32) int64 {
	var c int64
	for _, ch := range chs {
		for i := 0; i < tp.J; i++ {
			li := tp.load[i][ch]
			if li == 0 {
				continue
			}
			for j := 0; j < tp.J; j++ {
				c += tp.kappa[i*tp.J+j] * li * tp.load[j][ch]
			}
		}
		c += tp.sharePenalty * tp.apartOn(ch)
	}
	return c
}

// total is channel ch's load from every job.
func (tp *trafficPass) total(ch int) int64 {
	var sum int64
	for _, l := range tp.load {
		sum += l[ch]
	}
	return sum
}

// apply adds sign × d (per job) to the loads of the channels chs.
func (tp *trafficPass) apply(chs []int32, d []int64, sign int64) {
	for _, ch := range chs {
		for j, v := range d {
			tp.load[j][ch] += sign * v
		}
	}
}

// readTree sets the route of every switch toward d in layer k (channels
// and switches after it) and the jobs' traffic through every switch.
func (tp *trafficPass) readTree(k, d int) {
	g, r := tp.g, tp.r
	for s := range g.adj {
		tp.path[s], tp.via[s] = tp.path[s][:0], tp.via[s][:0]
		if tp.through[s] == nil {
			tp.through[s] = make([]int64, tp.J)
		}
		clear(tp.through[s])
		if r.walk(k, s, d, func(x, e int) {
			tp.path[s] = append(tp.path[s], int32(g.chOff[x]+e))
			tp.via[s] = append(tp.via[s], int32(g.adj[x][e].Peer))
		}) != nil {
			tp.path[s] = tp.path[s][:0] // (a finished routing has none)
		}
	}
	for _, fl := range tp.flows[d] {
		tp.through[fl.s][fl.job] += fl.w
		for _, x := range tp.via[fl.s] {
			tp.through[x][fl.job] += fl.w
		}
	}
	for x := range tp.under {
		tp.under[x] = tp.under[x][:0]
	}
	for z := range g.adj {
		tp.under[z] = append(tp.under[z], int32(z))
		for _, x := range tp.via[z] {
			tp.under[x] = append(tp.under[x], int32(z))
		}
	}
}

// readOthers reads every switch's routes toward d in the layers but k.
func (tp *trafficPass) readOthers(k, d int) {
	g := tp.g
	for z := range g.adj {
		if tp.others[z] == nil {
			tp.others[z] = make([][]int32, tp.r.layers)
		}
		for l := range tp.others[z] {
			tp.others[z][l] = tp.others[z][l][:0]
			if l != k && g.hosts[z] > 0 {
				tp.r.walk(l, z, d, func(s, c int) { tp.others[z][l] = append(tp.others[z][l], int32(g.chOff[s]+c)) })
			}
		}
		tp.others[z][k] = nil
	}
}

// disjointRoutes returns, at most keepPaths, the most routes of rs (up to
// eight) that share no channel.
func disjointRoutes(rs [][]int32) int {
	var clash [maxTrafficLayers]uint8
	for i := range rs {
		for j := i + 1; j < len(rs); j++ {
			if slices.ContainsFunc(rs[i], func(c int32) bool { return slices.Contains(rs[j], c) }) {
				clash[i] |= 1 << j
				clash[j] |= 1 << i
			}
		}
	}
	best := 0
	for m := 1; m < 1<<len(rs) && best < keepPaths; m++ {
		n := bits.OnesCount8(uint8(m))
		if n <= best {
			continue
		}
		ok := true
		for i := range rs {
			ok = ok && (m>>i&1 == 0 || clash[i]&uint8(m) == 0)
		}
		if ok {
			best = n
		}
	}
	return min(best, keepPaths)
}

// unshare gives every endpoint whose tables the pass changed trees of its
// own (Routing.SharedWith); the endpoints that shared a changed
// endpoint's trees keep them, the first of them now leading their group.
func (tp *trafficPass) unshare() {
	r := tp.r
	changed := map[int]bool{}
	for key := range tp.saved {
		changed[key.d] = true
	}
	lead := map[int]int{}
	for d, rep := range r.share {
		switch {
		case changed[d]:
			r.share[d] = d
		case rep != d && changed[rep]:
			if l, ok := lead[rep]; ok {
				r.share[d] = l
			} else {
				lead[rep], r.share[d] = d, d
			}
		}
	}
}
