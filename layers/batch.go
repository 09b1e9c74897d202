package layers

import (
	"slices"
	"sync"
)

// batch is how many destinations (or destination groups) of a layer are
// routed at once, each against the channel loads as they were when the
// batch began plus its own. It is fixed, not the number of cores, so the
// routing does not depend on the machine; with two cores the members of a
// batch are routed in parallel.
const batch = 2

// loads is one worker's copy of the channel loads, with the increments it
// made since the last batch ended.
type loads struct {
	load  []int64 // per channel: source endpoints routed over it so far
	total int64   // sum of load
	log   []loadInc
}

type loadInc struct {
	ch int32
	v  int64
}

func newLoads(load []int64) loads {
	var total int64
	for _, v := range load {
		total += v
	}
	return loads{load: slices.Clone(load), total: total}
}

// add charges v to channel ch (and, on a symmetric routing, to every
// channel of its orbit: g.charge).
func (l *loads) add(g *graph, ch int, v int64) {
	if g.sym == nil {
		l.load[ch] += v
		l.total += v
		l.log = append(l.log, loadInc{int32(ch), v})
		return
	}
	for _, m := range g.sym.ch {
		l.load[m[ch]] += v
		l.total += v
		l.log = append(l.log, loadInc{m[ch], v})
	}
}

// inBatches calls work(w, i) for i = 0..n−1, item i on worker i mod batch,
// the members of a batch in parallel when parallel is set. After each
// batch every worker's copy of the loads receives the other workers'
// increments, in worker order, so all copies agree again.
func inBatches(n int, parallel bool, ws [batch]*loads, work func(w, i int)) {
	for i := 0; i < n; i += batch {
		m := min(batch, n-i)
		eachWorker(m, parallel, func(w int) { work(w, i+w) })
		for w := 0; w < m; w++ {
			for _, inc := range ws[w].log {
				for o := range ws {
					if o != w {
						ws[o].load[inc.ch] += inc.v
						ws[o].total += inc.v
					}
				}
			}
			ws[w].log = ws[w].log[:0]
		}
	}
}

// add counts one pair whose path has h hops, in or out of bounds.
func (st *LayerStats) add(h int, in bool) {
	st.Pairs++
	if in {
		st.InBounds++
	} else {
		st.Fallback++
	}
	for len(st.Lengths) <= h {
		st.Lengths = append(st.Lengths, 0)
	}
	st.Lengths[h]++
}

// merge adds the counts of x to st.
func (st *LayerStats) merge(x LayerStats) {
	st.Pairs += x.Pairs
	st.InBounds += x.InBounds
	st.Fallback += x.Fallback
	for len(st.Lengths) < len(x.Lengths) {
		st.Lengths = append(st.Lengths, 0)
	}
	for h, c := range x.Lengths {
		st.Lengths[h] += c
	}
}

// eachWorker calls work(w) for w = 0..m−1, at once when parallel.
func eachWorker(m int, parallel bool, work func(w int)) {
	if !parallel || m < 2 {
		for w := 0; w < m; w++ {
			work(w)
		}
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < m; w++ {
		wg.Add(1)
		go func() { defer wg.Done(); work(w) }()
	}
	wg.Wait()
}
