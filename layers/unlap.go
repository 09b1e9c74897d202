package layers

// Taking overlaps off regrown routes (unless Options.NoRegrow; after unload).
//
// The annealing polishes a tree for regrowPolish steps per switch only,
// and leaves many distance-2 pairs with the same route in layer 0 and in
// the layer where their common neighbour with t delivers (49 % of q =
// 11's, against 32 % in the default layers): a flow split over the layers
// then loads those channels twice, and random permutations loaded the
// regrown layers up to 3 % more than the default ones. unlap visits every
// tree once: each switch whose route in a layer ≥ 1 starts or ends on the
// same channel as its route in another layer
//
//   - tries every other next switch there, and takes the one that saves
//     most of the cost (overlaps at lapWeight, loads as regrow prices
//     them) if it costs no disjoint path and no channel of it ends above
//     the targets unload set; or else
//   - when at most evacuateKids switches route through it there (its
//     route cannot lengthen while they do), moves each of them to its
//     cheapest other next switch at no disjoint path, then itself as
//     above, if its move saves more than theirs cost — or puts them back.
//
// A tree left with more pairs short than before is put back. Sequential,
// in switch order: the same tables on any number of cores.

// unlap takes overlaps off the routes of every tree (see above), with
// rg's loads, targets and caps, and reports whether it moved a route.
func (rg *regrower) unlap() (moved bool) {
	g := rg.g
	for d := 0; d < g.nEP; d++ {
		if rg.r.share[d] != d || !g.searched(d) {
			continue
		}
		moved = rg.rework(d, func(gt *growTree) (changed bool) {
			for s := range gt.lap {
				if gt.lap[s] == 0 {
					continue
				}
				for k := 1; k < len(gt.par); k++ {
					if rg.overlapping(gt, k, s) && (rg.bestNext(gt, k, s, 0) || rg.evacuate(gt, k, s)) {
						changed = true
					}
				}
			}
			return changed
		}) || moved
	}
	return moved
}

// overlapping tells whether s's route in layer k starts or ends on the
// same channel as its route in another layer (to the tree's first
// endpoint).
func (rg *regrower) overlapping(gt *growTree, k, s int) bool {
	f, l, ok := gt.hop(k, s)
	if !ok {
		return false
	}
	for j := range gt.par {
		if j == k {
			continue
		}
		if a, b, ok := gt.hop(j, s); ok && (a == f || b == l) {
			return true
		}
	}
	return false
}

// bestNext gives s in layer k the next switch that saves most cost, more
// than least, at no disjoint path, and reports whether it did.
func (rg *regrower) bestNext(gt *growTree, k, s int, least cost) bool {
	best, _ := rg.cheapestNext(gt, k, s, least)
	if best < 0 {
		return false
	}
	rg.unloadStep(gt, k, s, best)
	return true
}

// cheapestNext returns the other next switch of v in layer k that saves
// most cost, more than least, at no disjoint path (-1 if none), and what
// it saves; it tries each and puts v back.
func (rg *regrower) cheapestNext(gt *growTree, k, v int, least cost) (int32, cost) {
	g := rg.g
	old := gt.par[k][v]
	best, bestGain := int32(-1), least
	for _, y := range g.peer[g.chOff[v]:g.chOff[v+1]] {
		paths, cost, ok := rg.unloadStep(gt, k, v, y) // refuses y = old
		if !ok {
			continue
		}
		rg.undo(gt, k, v, old)
		if paths >= 0 && -cost > bestGain {
			best, bestGain = y, -cost
		}
	}
	return best, bestGain
}

// evacuateKids is the most switches behind a switch that evacuate moves
// (3: q = 11's permutations 3.702, 8: 3.701, one second more).
const evacuateKids = 3

// evacuate moves the switches behind s in layer k to other next
// switches, each to the one that costs least at no disjoint path, then
// s as bestNext does, if s's move saves more than theirs cost; it puts
// them back otherwise.
func (rg *regrower) evacuate(gt *growTree, k, s int) bool {
	var kids []int32
	for y := gt.lay[k].first[s]; y >= 0; y = gt.lay[k].next[y] {
		kids = append(kids, y)
	}
	if len(kids) == 0 || len(kids) > evacuateKids {
		return false
	}
	var spent cost
	n := 0
	for _, c := range kids {
		best, bestGain := rg.cheapestNext(gt, k, int(c), -costCeil)
		if best < 0 {
			break
		}
		rg.unloadStep(gt, k, int(c), best)
		spent -= bestGain
		n++
	}
	if n == len(kids) && rg.bestNext(gt, k, s, spent) {
		return true
	}
	for i := n - 1; i >= 0; i-- {
		rg.undo(gt, k, int(kids[i]), int32(s))
	}
	return false
}
