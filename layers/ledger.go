package layers

import "slices"

// ledger is the channel loads the improving passes weigh: per layer, the
// routes of the searched destinations' trees over each channel (layer 0
// one per endpoint, layers ≥ 1 one per endpoint sharing the tree), charged
// to the channel's whole orbit on a symmetric routing (graph.charge), and
// their sum over the layers. improve reads it from the tables once, after
// the construction; regrow, balance (with mend) and unload keep it current
// as they move routes, each over the loads the last one left.
type ledger struct {
	layer [][]int64 // [k][channel]
	total []int64
}

// readLedger reads the loads of r's tables. Cost: O(L × endpoints × S).
func readLedger(g *graph, r *Routing) *ledger {
	S, C := len(g.adj), g.chOff[len(g.adj)]
	l := &ledger{layer: make([][]int64, r.layers), total: make([]int64, C)}
	members := sharers(r)
	ts := newTreeState(S)
	for k := range l.layer {
		l.layer[k] = make([]int64, C)
		for d := 0; d < g.nEP; d++ {
			if (k == 0 || r.share[d] == d) && g.searched(d) {
				w := int64(1)
				if k > 0 {
					w = int64(len(members[d]))
				}
				ts.build(g, r.next[k][d*S:(d+1)*S], g.dests[d].Switch, w)
				ts.addLoads(g, l.layer[k])
			}
		}
		for c, v := range l.layer[k] {
			l.total[c] += v
		}
	}
	return l
}

// clone returns a copy of l that changes apart from it.
func (l *ledger) clone() *ledger {
	c := &ledger{total: slices.Clone(l.total)}
	for _, x := range l.layer {
		c.layer = append(c.layer, slices.Clone(x))
	}
	return c
}

// set makes l's loads those of o.
func (l *ledger) set(o *ledger) {
	for k := range l.layer {
		copy(l.layer[k], o.layer[k])
	}
	copy(l.total, o.total)
}
