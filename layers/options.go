// Package layers computes layered multipath routes: layer 0 minimal and
// balanced, layers 1..L−1 almost-minimal paths that overlap as little as
// possible with the earlier layers. Each layer is destination-based — for a
// destination endpoint every switch has exactly one next hop, so the routes
// toward it form a loop-free in-tree — and is meant to be programmed at LID
// offset k under LMC log2(L).
//
// The algorithm (Compute) follows the layered routing of the Slim Fly
// deployment (LNMP in the SPCL OpenSM fork, see ../shared/docs), reworked:
//
//   - Layer 0 routes destinations one at a time, in the DFSSSP/SSSP order
//     (switches with more endpoints first), along minimal paths; among
//     minimal paths each switch takes the one with the least accumulated
//     load, and the load of every channel (directed cable) then grows by
//     the number of source endpoints routed over it, in the direction the
//     traffic flows.
//   - Before layer 1, each destination switch's neighbours are coloured
//     (entry.go): in layer k only one colour delivers over its direct
//     cable, the others reach the destination over two or three hops, so
//     that adjacent switches — whose alternatives are few — get new paths
//     in the layers of the other colours, through neighbours of those
//     colours.
//   - Layer k ≥ 1 routes each destination's sources in priority order:
//     the neighbours that may not deliver directly first, then the
//     switches whose every minimal path ends on such a neighbour, then the
//     rest; within each, pairs that received fewer in-bounds alternative
//     paths in earlier layers first, ties broken by a seeded shuffle. Each
//     source takes the path within the length bounds that shares the
//     fewest channels with its own paths of earlier layers and, among
//     those, is cheapest (the cube of each channel's load), while following the next hops already pinned for this
//     destination in this layer (which keeps the layer a tree). Switches
//     left without an in-bounds path get the shortest, least loaded route
//     consistent with the pins, and are counted. The search runs once
//     per group of a switch's endpoints (Options.Trees: one per endpoint
//     by default, fewer on large fabrics), charged with the weight of all
//     the group's endpoints; they get the same next hops at their own
//     LIDs. A layer's groups are routed in fixed batches of two, one per
//     core.
//
// Fat trees and folded Clos fabrics, recognised from the fabric itself,
// get destination-based up/down layers after D-mod-K instead (fattree.go):
// each layer carries every shift permutation at link load 1 on a
// full-bisection tree.
//
// Differences from the reference: results depend only on the input and the
// seed; switches and endpoints are unlimited (32-bit indices); parallel
// cables are distinct channels, used by every layer; every cabled HCA port
// is a destination, so dual-ported HCAs work; loads are charged in the
// direction traffic flows.
package layers

import (
	"fmt"
	"math/bits"
	"time"

	"slimroute/fabric"
)

// Options configure Compute.
type Options struct {
	// Layers is the number of layers L, a power of two from 1 to 128 (LMC
	// 0..7). Zero means 4.
	Layers int
	// MinLen and MaxLen bound the switch-to-switch hops of the paths of
	// layers ≥ 1. Zero means: 2 and 3 on a fabric designed with diameter 2
	// (Slim Fly, two-level Clos; also after failures leave a few pairs
	// further apart, see DesignShare), else per pair the minimal distance d
	// and d+1. A pair farther apart than the bounds gets its shortest path.
	MinLen, MaxLen int
	// AvoidLinks lists indices into fabric.Links of cables not to use
	// (failed or drained).
	AvoidLinks []int
	// Seed drives the tie-breaking shuffles; the same seed gives the same
	// routing.
	Seed uint64
	// Trees is how many distinct trees a destination switch gets in each
	// layer ≥ 1: its endpoints are dealt, in port order, round-robin over
	// that many groups, and the endpoints of a group share their trees
	// (their own LIDs, the same next hops). One tree per endpoint spreads
	// a switch's traffic best; fewer route faster, the search running once
	// per group. -1 means one per endpoint. Zero chooses by size: one per
	// endpoint while (endpoints × switches) ≤ SearchBudget (2^19), else the most
	// of 8, 4, 2, 1 per switch that keeps (groups × switches) within it, and
	// at least orbitTrees on a Slim Fly of up to orbitTreesSwitches switches.
	Trees int
	// Workers is how many goroutines may route at once (the caller's
	// choice, e.g. runtime.GOMAXPROCS(0)); 0 or 1 routes on one. The
	// routing is the same for every value.
	Workers int
	// Unbalanced skips the pass that evens out each layer's channel loads
	// (balance.go), for comparison. The pass runs only where a destination
	// switch has at least as many trees as entry colours (Trees: one per
	// endpoint, or ≥ 3) and with at most 8 layers: with fewer trees, all of
	// a switch's endpoints deliver over the same third of its cables in a
	// layer, which no move can even out. It skips the mending of short
	// pairs too (mend.go), which runs after it.
	Unbalanced bool
	// NoValiant routes a Dragonfly+ as any other fabric (minimal to
	// minimal + 1 hops), not group pair by group pair through third
	// groups (dragonflyplus.go).
	NoValiant bool
	// NoRegrow keeps the trees of the construction. Without it (the
	// zero Options, as the command line and the OpenSM plugin run),
	// Compute rebuilds the trees of layers ≥ 1 of every destination
	// switch whose neighbours get more disjoint alternatives from
	// colourings of any sizes than from the shared one, each tree under
	// its own colouring, for the pairs' disjoint paths (regrow.go), then
	// unloads the busiest channels (unload.go) and takes overlaps off the
	// routes (unlap.go): on Slim Fly q = 7 and 11 nearly every pair then
	// has three (docs/quality.md). Regrowing applies to three or four
	// layers of 2 to 3 hops on fabrics designed with diameter 2, without
	// parallel cables, with a tree per colour; elsewhere it changes
	// nothing.
	NoRegrow bool

	// Template, when the fabric fits it (the same Slim Fly graph, as many
	// endpoints per switch, these options, no cable avoided), gives the
	// routing: Compute copies its tables instead of searching (template.go).
	// A fabric that does not fit is routed as without it.
	Template *Template

	// Traffic, when set, is the traffic of the jobs that run: the routing
	// is made for it too (traffic.go) — their loads spread and their flows
	// kept apart where the rules allow — after every other pass. The
	// Template is then not used.
	Traffic *Traffic

	// SwitchOver, with Traffic, routes for it starting from a previous
	// routing of the same fabric, with moves that keep every mix of the
	// two sets of tables deadlock-free under the previous hop-indexed VLs
	// (switchover.go). Compute fails when the previous routing is not of
	// this fabric.
	SwitchOver *SwitchOver

	// Clock, when set, times the passes (Routing.Passes); the caller
	// passes time.Now, or a fake clock in tests.
	Clock func() time.Time

	unmended   bool // balance without mending (tests compare)
	asymmetric bool // search every destination, not one per orbit (symmetry.go; tests compare)
	unlapped   bool // regrow without taking overlaps off (tests compare)
	// afterPass, when set, is called after each pass with its name, the
	// graph and the routing (nil after symmetry): the pass tests print
	// what each pass leaves (passes_test.go)
	afterPass func(pass string, g *graph, r *Routing)
}

// SearchBudget bounds, for Options.Trees = 0, the destination groups
// times switches of a layer, which the search time follows: 2^19 is about
// half a second per layer ≥ 1 on two cores. Slim Fly q ≤ 7 and small Clos
// fabrics get one tree per endpoint; q = 11: 8 per switch, q = 13: 4,
// q = 16: 4 (orbitTrees), q = 17 and 19 (722 switches, 10830 endpoints): 1.
const SearchBudget = 1 << 19

// orbitTrees is the least number of trees per destination switch that
// Options.Trees = 0 gives a fabric searched one orbit at a time
// (symmetry.go) of at most orbitTreesSwitches switches: a tree per entry
// colour of four layers, so that layers ≥ 1 are balanced and regrown
// (Options.Unbalanced). The search runs on one destination switch per
// orbit, so it costs a fraction of what SearchBudget counts: on Slim Fly
// q = 16 (512 switches, 17 orbits), which SearchBudget gives 2 trees,
// 4 trees take the layers from 0.3–0.4 to 1.1–1.2 s and its busiest
// channels of layers ≥ 1 from 1.95–2.10 to 1.28 × their layer's mean
// (docs/performance.md). On q = 19 (722
// switches) regrowing 4 trees alone took 5 s, so larger fabrics keep
// SearchBudget's count.
const (
	orbitTrees         = 4
	orbitTreesSwitches = 512
)

// treesFor resolves Options.Trees = 0 for a fabric.
func treesFor(trees int, g *graph) int {
	if trees != 0 {
		return trees
	}
	S := len(g.adj)
	if g.nEP*S <= SearchBudget {
		return -1
	}
	least := 1
	if g.sym != nil && S <= orbitTreesSwitches {
		least = orbitTrees
	}
	for _, t := range []int{8, 4, 2} {
		groups := 0
		for s := 0; s < S; s++ {
			groups += min(g.hosts[s], t)
		}
		if groups*S <= SearchBudget || t == least {
			return t
		}
	}
	return 1
}

// MaxSearchLen is the longest path the almost-minimal search explores.
const MaxSearchLen = 6

func (o Options) withDefaults() (Options, error) {
	if o.Layers == 0 {
		o.Layers = 4
	}
	if o.Layers < 1 || o.Layers > 128 || bits.OnesCount(uint(o.Layers)) != 1 {
		return o, fmt.Errorf("layers=%d: want a power of two from 1 to 128 (one layer per LID offset under LMC 0..7)", o.Layers)
	}
	if o.Trees < -1 {
		return o, fmt.Errorf("trees=%d: want a positive number of trees per destination switch, or -1 for one per endpoint", o.Trees)
	}
	if (o.MinLen == 0) != (o.MaxLen == 0) {
		return o, fmt.Errorf("min-len=%d, max-len=%d: set both or neither", o.MinLen, o.MaxLen)
	}
	if o.MinLen < 0 || o.MaxLen < o.MinLen || o.MaxLen > MaxSearchLen {
		return o, fmt.Errorf("min-len=%d, max-len=%d: want 1 ≤ min-len ≤ max-len ≤ %d", o.MinLen, o.MaxLen, MaxSearchLen)
	}
	return o, nil
}

// LMC returns log2(Layers): the LMC that gives every endpoint one LID per
// layer.
func LMC(layers int) int { return bits.TrailingZeros(uint(layers)) }

// Bounds reports how path lengths are bounded in layers ≥ 1.
type Bounds struct {
	// PerPair is true when the bounds are [d, d+1] for a pair at distance d;
	// otherwise every pair uses [Min, Max].
	PerPair  bool
	Min, Max int
}

func (b Bounds) String() string {
	if b.PerPair {
		return "minimal to minimal+1 hops"
	}
	return fmt.Sprintf("%d to %d hops", b.Min, b.Max)
}

func (b Bounds) of(dist int) (lo, hi int) {
	if b.PerPair {
		return dist, min(dist+1, MaxSearchLen)
	}
	return b.Min, b.Max
}

// check rejects avoided links that do not exist.
func checkAvoid(f *fabric.Fabric, avoid []int) error {
	for _, i := range avoid {
		if i < 0 || i >= f.NumLinks() {
			return fmt.Errorf("avoided link %d does not exist (the fabric has %d links)", i, f.NumLinks())
		}
	}
	return nil
}
