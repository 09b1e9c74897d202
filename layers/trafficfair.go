package layers

import (
	"slices"
)

// No job worse off (traffic.go).
//
// A job's contention factor is the load, with every job's traffic, of the
// busiest channel it uses over the load of its busiest channel under its
// own traffic alone (jobs.Analyze). Spreading the jobs' loads and parting
// their flows lowers most jobs' factors but may raise one's: a move that
// would raise a job's factor above what it was before the pass is not
// made (make), and should one be above it at the end all the same, the
// pass gives the trees of that job's destinations back their rows, and
// repeats until no job's factor is (at worst every tree is given back).

// raisesAFactor tells whether some job's contention factor is above
// what it was before the pass, under the present loads.
func (tp *trafficPass) raisesAFactor() bool {
	for j, c := range tp.factors() {
		if c.above(tp.before[j]) {
			return true
		}
	}
	return false
}

// contention is a job's busiest channel alone and, among the channels it
// uses, with every job's traffic.
type contention struct{ alone, together int64 }

// above tells whether c's factor (together / alone) exceeds b's.
func (c contention) above(b contention) bool {
	if c.alone == 0 || b.alone == 0 {
		return false // (no channel: the job's hosts share a switch)
	}
	return c.together*b.alone > b.together*c.alone
}

// factors returns every job's contention under the present loads.
func (tp *trafficPass) factors() []contention {
	out := make([]contention, tp.J)
	for ch := range tp.load[0] {
		total := tp.total(ch)
		for j := range out {
			if l := tp.load[j][ch]; l > 0 {
				out[j].alone = max(out[j].alone, l)
				out[j].together = max(out[j].together, total)
			}
		}
	}
	return out
}

// keepNoneWorse gives back their rows the changed trees of the
// destinations of every job whose factor rose above before's, until none
// did; it returns how many trees it gave back.
func (tp *trafficPass) keepNoneWorse(before []contention) int {
	back := 0
	for {
		now := tp.factors()
		worse := map[int]bool{}
		for j := range now {
			if now[j].above(before[j]) {
				worse[j] = true
			}
		}
		if len(worse) == 0 {
			return back
		}
		n := tp.giveBack(func(d int) bool {
			return slices.ContainsFunc(tp.flows[d], func(f srcFlow) bool { return worse[f.job] })
		})
		if n == 0 {
			n = tp.giveBack(func(int) bool { return true })
		}
		back += n
		tp.reload()
	}
}

// giveBack restores the saved rows of the trees of the destinations of
// which returns true, and returns how many.
func (tp *trafficPass) giveBack(which func(d int) bool) int {
	S := len(tp.g.adj)
	var keys []treeKey
	for key := range tp.saved {
		if which(key.d) {
			keys = append(keys, key)
		}
	}
	for _, key := range keys {
		copy(tp.r.next[key.k][key.d*S:(key.d+1)*S], tp.saved[key])
		delete(tp.saved, key)
	}
	return len(keys)
}

// differing counts the table entries of the changed trees that differ
// from their saved rows.
func (tp *trafficPass) differing() int {
	S := len(tp.g.adj)
	n := 0
	for key, old := range tp.saved {
		row := tp.r.next[key.k][key.d*S : (key.d+1)*S]
		for s := range row {
			if row[s] != old[s] {
				n++
			}
		}
	}
	return n
}
