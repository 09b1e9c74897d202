package analysis

import (
	"slices"

	"slimroute/hyperx"
)

// DimensionShifts names the HyperX's adversarial pattern in
// Report.Patterns.
const DimensionShifts = "dimension shifts"

// dimensionShifts measures a HyperX's adversarial traffic: along one
// dimension, every switch's endpoints send to those of the switch k steps
// on (its i-th endpoint in rank order to the i-th of that switch, wrapping
// round when that one has fewer), for every dimension and every k. Minimal
// routing puts all of a switch's traffic on the one cable between the two
// switches; only longer paths spread it. MaxLoad is the worst of these
// patterns, MeanMaxLoad the mean over them.
//
// The coordinates are hyperx.Match's numbering of the switch graph. Two
// numberings differ by an automorphism of the grid, which maps a shift onto
// another permutation within the lines, so the figure is that of this
// numbering. ok is false when the switch graph is no Hamming graph or a
// switch has no endpoints.
func dimensionShifts(t *view, w *walker, load []float64) (pl PatternLoad, ok bool, err error) {
	S := t.NumSwitches()
	adj := make([][]int32, S)
	for s := range adj {
		for _, c := range t.v.Adj[s] {
			if !slices.Contains(adj[s], int32(c.Peer)) {
				adj[s] = append(adj[s], int32(c.Peer))
			}
		}
	}
	dims, phi := hyperx.Match(adj)
	if phi == nil {
		return pl, false, nil
	}
	eps := make([][]int, S) // per switch: its endpoints in rank order
	for d, s := range t.epSw {
		eps[s] = append(eps[s], d)
	}
	at := make([]int, S) // grid index -> switch
	for s, i := range phi {
		at[i] = s
	}
	if slices.ContainsFunc(eps, func(e []int) bool { return len(e) == 0 }) {
		return pl, false, nil
	}
	shape := hyperx.Shape{Dims: dims}
	pl.Name = DimensionShifts
	for dim, size := range dims {
		for k := 1; k < size; k++ {
			clear(load)
			for s := range S {
				c := shape.CoordOf(int(phi[s]))
				c[dim] = (c[dim] + k) % size
				to := eps[at[shape.IndexOf(c)]]
				for i := range eps[s] {
					if err := w.addFlow(load, s, to[i%len(to)], t.NumLayers(), t.epSw); err != nil {
						return pl, false, err
					}
				}
			}
			m := maxOf(load)
			pl.Samples++
			pl.MaxLoad = max(pl.MaxLoad, m)
			pl.MeanMaxLoad += m
			pl.EffectiveBandwidth += effective(m)
		}
	}
	pl.MeanMaxLoad /= float64(pl.Samples)
	pl.EffectiveBandwidth /= float64(pl.Samples)
	return pl, true, nil
}
