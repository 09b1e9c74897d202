package analysis

import (
	"fmt"
	"sync"
)

// ShiftReport gives the link load of every shift permutation — rank i
// sends to rank i+s (mod N) over the endpoints in rank order, for s =
// 1..N−1: the pattern of ring and pairwise-exchange collectives. Each
// endpoint injects at link rate 1; a load of 1 means no link is shared.
type ShiftReport struct {
	Shifts int `json:"shifts"`
	// Layers holds the load when every flow takes layer k alone; All when
	// flows are split evenly over the layers.
	Layers []ShiftLoad `json:"layers"`
	All    ShiftLoad   `json:"all_layers"`
}

// ShiftLoad summarises the most loaded link over all shifts.
type ShiftLoad struct {
	// Layer is the layer, or -1 for all layers.
	Layer int `json:"layer"`
	// MaxLoad is the highest link load of any shift, first reached by
	// WorstShift; MeanMaxLoad the mean over shifts of their highest load.
	MaxLoad     float64 `json:"max_load"`
	MeanMaxLoad float64 `json:"mean_max_load"`
	WorstShift  int     `json:"worst_shift"`
	// AtLinkRate counts shifts whose highest link load is at most 1.
	AtLinkRate int `json:"shifts_at_link_rate"`
}

// hopTable is a routing as next channels: next[k][s*N+d] is the channel
// switch s forwards endpoint d's layer-k traffic on, or −1 where d hangs
// off s; peer[ch] is the switch a channel leads to.
type hopTable struct {
	N    int
	next [][]int32
	peer []int32
}

// newHopTable reads every next hop of t once, so the shifts walk arrays.
func newHopTable(t *view) (*hopTable, error) {
	L, S, N := t.NumLayers(), t.NumSwitches(), t.NumEndpoints()
	h := &hopTable{N: N, next: make([][]int32, L), peer: make([]int32, t.NumChannels())}
	for s := 0; s < S; s++ {
		for i, c := range t.v.Adj[s] {
			h.peer[t.chOff[s]+i] = int32(c.Peer)
		}
	}
	for k := range h.next {
		h.next[k] = make([]int32, S*N)
		for s := 0; s < S; s++ {
			for d := 0; d < N; d++ {
				ch, _, local, err := t.Step(k, s, d)
				if err != nil {
					return nil, err
				}
				h.next[k][s*N+d] = int32(ch)
				if local {
					h.next[k][s*N+d] = -1
				}
			}
		}
	}
	return h, nil
}

// addPath adds w to the load of every channel from switch s to endpoint d
// in layer k; limit bounds the hops (a loop is an error).
func (h *hopTable) addPath(load []float64, k, s, d int, w float64, limit int) error {
	for steps := 0; ; steps++ {
		ch := h.next[k][s*h.N+d]
		if ch < 0 {
			return nil
		}
		if steps >= limit {
			return fmt.Errorf("layer %d: forwarding loop toward endpoint %d", k, d)
		}
		load[ch] += w
		s = int(h.peer[ch])
	}
}

// shiftLoads measures every shift permutation over the endpoints in rank
// order, on up to workers goroutines.
func shiftLoads(t *view, rank []int, workers int) (*ShiftReport, error) {
	L, N := t.NumLayers(), t.NumEndpoints()
	rep := &ShiftReport{Shifts: max(N-1, 0), All: ShiftLoad{Layer: -1}}
	for k := 0; k < L; k++ {
		rep.Layers = append(rep.Layers, ShiftLoad{Layer: k})
	}
	if N < 2 {
		return rep, nil
	}
	h, err := newHopTable(t)
	if err != nil {
		return nil, err
	}
	// peak[shift*(L+1)+k]: the most loaded link of a shift in layer k, and
	// at k = L over all layers; shifts are dealt round-robin to workers and
	// summed in shift order, so every worker count gives the same report
	peak := make([]float64, N*(L+1))
	workers = max(1, min(workers, N-1))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			errs[w] = h.shiftPeaks(t, rank, 1+w, workers, peak)
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for shift := 1; shift < N; shift++ {
		row := peak[shift*(L+1) : (shift+1)*(L+1)]
		for k := range rep.Layers {
			rep.Layers[k].note(shift, row[k])
		}
		rep.All.note(shift, row[L])
	}
	for k := range rep.Layers {
		rep.Layers[k].MeanMaxLoad /= float64(rep.Shifts)
	}
	rep.All.MeanMaxLoad /= float64(rep.Shifts)
	return rep, nil
}

// shiftPeaks measures the shifts first, first+step, … into peak.
func (h *hopTable) shiftPeaks(t *view, rank []int, first, step int, peak []float64) error {
	L, S, N, C := t.NumLayers(), t.NumSwitches(), t.NumEndpoints(), t.NumChannels()
	load := make([][]float64, L)
	for k := range load {
		load[k] = make([]float64, C)
	}
	all := make([]float64, C)
	for shift := first; shift < N; shift += step {
		for k := range load {
			clear(load[k])
		}
		for i, src := range rank {
			s, d := t.epSw[src], rank[(i+shift)%N]
			for k := 0; k < L; k++ {
				if err := h.addPath(load[k], k, s, d, 1, S); err != nil {
					return err
				}
			}
		}
		clear(all)
		row := peak[shift*(L+1) : (shift+1)*(L+1)]
		for k := range load {
			row[k] = maxOf(load[k])
			for ch, v := range load[k] {
				all[ch] += v
			}
		}
		row[L] = maxOf(all) / float64(L)
	}
	return nil
}

// note counts one shift whose most loaded link carries m (the mean is
// divided out at the end).
func (l *ShiftLoad) note(shift int, m float64) {
	if m > l.MaxLoad {
		l.MaxLoad, l.WorstShift = m, shift
	}
	l.MeanMaxLoad += m
	if m <= 1 {
		l.AtLinkRate++
	}
}
