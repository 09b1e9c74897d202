package analysis

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slimroute/layers"
	"slimroute/lft"
	"sort"
)

// Options configure Analyze.
type Options struct {
	// Permutations is the number of random permutations to sample; 0 means
	// 100.
	Permutations int
	// Seed drives the permutation sampling.
	Seed uint64
	// Layers is the number of layers, 2^LMC; 0 takes it from the endpoint
	// with the most LIDs.
	Layers int
	// Bounds are the path-length bounds of layers ≥ 1 that the ceiling
	// allows (pass layers.Routing.Bounds); zero applies layers.Compute's
	// default for the fabric.
	Bounds layers.Bounds
	// ListShort is how many pairs short of their ceiling to list; 0 means
	// 20.
	ListShort int
	// Workers is how many goroutines may measure the shift permutations
	// (the caller's choice, e.g. runtime.GOMAXPROCS(0)); 0 or 1 means one.
	// The report is the same for every value.
	Workers int
}

// Report holds the quality figures of a routing. A "pair" is a (source
// switch with endpoints, destination endpoint on another switch); every
// endpoint of the source switch sends along the same paths.
type Report struct {
	Layers    int `json:"layers"`
	Switches  int `json:"switches"`
	Endpoints int `json:"endpoints"`
	Channels  int `json:"channels"`
	Pairs     int `json:"pairs"`
	// PathLengths[k][h] counts pairs whose layer-k path has h
	// switch-to-switch hops.
	PathLengths [][]int `json:"path_lengths"`
	// Disjoint[n] counts pairs whose L layer paths contain at least n
	// pairwise link-disjoint paths (n = 0..L); identical paths count once.
	Disjoint []int `json:"disjoint_at_least"`
	// SwitchPairs counts ordered pairs of distinct switches with endpoints;
	// SwitchPairDisjoint[n] those for which every endpoint of the second
	// switch is reached from the first over at least n disjoint paths.
	SwitchPairs        int   `json:"switch_pairs"`
	SwitchPairDisjoint []int `json:"switch_pair_disjoint_at_least"`
	// EFI is the edge forwarding index per layer: routes (source endpoint,
	// destination endpoint) per directed inter-switch channel.
	EFI []EFI `json:"edge_forwarding_index"`
	// Patterns are link loads under traffic patterns, every flow split
	// evenly over the layers, each endpoint injecting at link rate 1.
	Patterns []PatternLoad `json:"patterns"`
	// Shifts is the link load of every shift permutation, per layer and
	// over all layers.
	Shifts *ShiftReport `json:"shift_permutations"`
	// Ceiling sets the disjoint-path figures beside what the graph allows;
	// nil when it could not be computed, CeilingError saying why.
	Ceiling      *CeilingReport `json:"ceiling,omitempty"`
	CeilingError string         `json:"ceiling_error,omitempty"`
	// AllToAllLoads is the load of every channel under all-to-all traffic,
	// for plotting its distribution.
	AllToAllLoads []float64 `json:"-"`
}

// EFI summarises route counts per channel in one layer.
type EFI struct {
	Layer int     `json:"layer"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
	// LowerBound is total route-hops / channels: no routing of the same
	// path lengths can have a smaller maximum.
	LowerBound float64 `json:"lower_bound"`
	// Hottest names a channel carrying Max routes.
	Hottest string `json:"hottest"`
}

// PatternLoad reports the most loaded channel under a traffic pattern.
type PatternLoad struct {
	Name    string `json:"name"`
	Samples int    `json:"samples"`
	// MaxLoad is the largest channel load (1 = one link's bandwidth) over
	// all samples; MeanMaxLoad its mean over samples.
	MaxLoad     float64 `json:"max_load"`
	MeanMaxLoad float64 `json:"mean_max_load"`
	// EffectiveBandwidth is the mean over samples of min(1, 1/max load):
	// the share of injection bandwidth every flow gets when the hottest
	// link is the bottleneck.
	EffectiveBandwidth float64 `json:"effective_bandwidth"`
}

// Analyze measures the forwarding tables tab, layer k being the LIDs at
// offset k. It fails if a route is missing or loops.
func Analyze(tab *lft.Tables, opts Options) (*Report, error) {
	if opts.Permutations == 0 {
		opts.Permutations = 100
	}
	if opts.ListShort == 0 {
		opts.ListShort = 20
	}
	if b := opts.Bounds; !b.PerPair && (b.Min < 0 || b.Max < b.Min || (b.Min == 0) != (b.Max == 0) || b.Max > layers.MaxSearchLen) {
		return nil, fmt.Errorf("path-length bounds min-len=%d, max-len=%d: set both, 1 ≤ min-len ≤ max-len ≤ %d, or neither for the default", b.Min, b.Max, layers.MaxSearchLen)
	}
	t, err := newView(tab, opts.Layers)
	if err != nil {
		return nil, err
	}
	L, S, N, C := t.NumLayers(), t.NumSwitches(), t.NumEndpoints(), t.NumChannels()
	rep := &Report{Layers: L, Switches: S, Endpoints: N, Channels: C}
	hosts := make([]int, S)
	epSw := make([]int, N)
	for d := 0; d < N; d++ {
		_, s := t.Endpoint(d)
		epSw[d] = s
		hosts[s]++
	}
	w := walker{t: t, S: S}
	var tally *ceilingTally
	if c, err := computeCeilings(t.v, opts.Bounds, L, t.SwitchName); err != nil {
		rep.CeilingError = err.Error()
	} else {
		tally = newCeilingTally(c, L, opts.ListShort, func(s, d int) (string, string) {
			return t.SwitchName(s), t.f.PortString(t.eps[d])
		})
	}
	rep.PathLengths = make([][]int, L)
	rep.Disjoint = make([]int, L+1)
	efi := make([][]float64, L)
	for k := range efi {
		efi[k] = make([]float64, C)
	}
	a2a := make([]float64, C)
	paths := make([][]int, L)
	// per switch pair: the least disjoint count over the second switch's endpoints
	minDisjoint := make([]int, S*S)
	for i := range minDisjoint {
		minDisjoint[i] = L + 1
	}
	for s := 0; s < S; s++ {
		if hosts[s] == 0 {
			continue
		}
		for d := 0; d < N; d++ {
			if epSw[d] == s {
				continue
			}
			rep.Pairs++
			for k := 0; k < L; k++ {
				p, err := w.walk(k, s, d, paths[k][:0])
				if err != nil {
					return nil, err
				}
				paths[k] = p
				h := len(p)
				for len(rep.PathLengths[k]) <= h {
					rep.PathLengths[k] = append(rep.PathLengths[k], 0)
				}
				rep.PathLengths[k][h]++
				for _, ch := range p {
					efi[k][ch] += float64(hosts[s])
					a2a[ch] += float64(hosts[s]) / float64(L)
				}
			}
			n := maxDisjoint(paths)
			for i := 0; i <= n; i++ {
				rep.Disjoint[i]++
			}
			if tally != nil {
				tally.add(s, d, epSw[d], paths)
			}
			idx := s*S + epSw[d]
			minDisjoint[idx] = min(minDisjoint[idx], n)
		}
	}
	if tally != nil {
		rep.Ceiling = tally.finish(hosts)
	}
	rep.SwitchPairDisjoint = make([]int, L+1)
	for _, n := range minDisjoint {
		if n <= L {
			rep.SwitchPairs++
			for i := 0; i <= n; i++ {
				rep.SwitchPairDisjoint[i]++
			}
		}
	}
	for k := 0; k < L; k++ {
		e := EFI{Layer: k}
		var total float64
		hot := 0
		for ch, v := range efi[k] {
			total += v
			if v > e.Max {
				e.Max, hot = v, ch
			}
		}
		if C > 0 {
			e.Mean = total / float64(C)
			e.LowerBound = e.Mean // total route-hops spread perfectly evenly
			e.Hottest = t.ChannelName(hot)
		}
		rep.EFI = append(rep.EFI, e)
	}
	if N > 1 {
		scale := 1 / float64(N-1)
		for i := range a2a {
			a2a[i] *= scale
		}
		rep.AllToAllLoads = a2a
		rep.Patterns = append(rep.Patterns, single("all-to-all", maxOf(a2a)))
	}
	rank := rankOrder(t)
	load := make([]float64, C)
	flows := func(name string, dst func(i int) int) error {
		clear(load)
		for i, e := range rank {
			if err := w.addFlow(load, epSw[e], rank[dst(i)], L, epSw); err != nil {
				return err
			}
		}
		rep.Patterns = append(rep.Patterns, single(name, maxOf(load)))
		return nil
	}
	if N > 1 {
		if err := flows("ring all-reduce (rank order)", func(i int) int { return (i + 1) % N }); err != nil {
			return nil, err
		}
		if err := flows("bisection (rank i <-> i+N/2)", func(i int) int { return (i + N/2) % N }); err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(opts.Seed, 0x5eed))
		pl := PatternLoad{Name: "random permutations", Samples: opts.Permutations}
		perm := make([]int, N)
		for n := 0; n < opts.Permutations; n++ {
			for i := range perm {
				perm[i] = i
			}
			rng.Shuffle(N, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			clear(load)
			for i := 0; i < N; i++ {
				if err := w.addFlow(load, epSw[i], perm[i], L, epSw); err != nil {
					return nil, err
				}
			}
			m := maxOf(load)
			pl.MaxLoad = max(pl.MaxLoad, m)
			pl.MeanMaxLoad += m / float64(opts.Permutations)
			pl.EffectiveBandwidth += effective(m) / float64(opts.Permutations)
		}
		rep.Patterns = append(rep.Patterns, pl)
		if pl, ok, err := dimensionShifts(t, &w, load); err != nil {
			return nil, err
		} else if ok {
			rep.Patterns = append(rep.Patterns, pl)
		}
	}
	if rep.Shifts, err = shiftLoads(t, rank, opts.Workers); err != nil {
		return nil, err
	}
	return rep, nil
}

func single(name string, m float64) PatternLoad {
	return PatternLoad{Name: name, Samples: 1, MaxLoad: m, MeanMaxLoad: m, EffectiveBandwidth: effective(m)}
}

func effective(maxLoad float64) float64 {
	if maxLoad <= 1 {
		return 1
	}
	return 1 / maxLoad
}

func maxOf(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = max(m, v)
	}
	return m
}

// rankOrder lists endpoints by HCA node, then port: the order a job
// launcher would number ranks on hosts named in fabric order.
func rankOrder(t *view) []int {
	N := t.NumEndpoints()
	r := make([]int, N)
	for i := range r {
		r[i] = i
	}
	sort.Slice(r, func(a, b int) bool {
		x, _ := t.Endpoint(r[a])
		y, _ := t.Endpoint(r[b])
		if x.Node != y.Node {
			return x.Node < y.Node
		}
		return x.Port < y.Port
	})
	return r
}

type walker struct {
	t   *view
	S   int
	buf []int
}

// walk returns the channels of the layer-k route from switch s to endpoint d.
func (w *walker) walk(k, s, d int, buf []int) ([]int, error) {
	for x, steps := s, 0; ; steps++ {
		ch, next, local, err := w.t.Step(k, x, d)
		if err != nil {
			return buf, err
		}
		if local {
			return buf, nil
		}
		if steps >= w.S {
			return buf, fmt.Errorf("layer %d: forwarding loop toward %s (through %s)", k, w.t.f.PortString(w.t.eps[d]), w.t.ChannelName(ch))
		}
		buf = append(buf, ch)
		x = next
	}
}

// addFlow adds a unit flow from switch s to endpoint d, split over L layers.
func (w *walker) addFlow(load []float64, s, d, L int, epSw []int) error {
	if epSw[d] == s {
		return nil
	}
	for k := 0; k < L; k++ {
		p, err := w.walk(k, s, d, w.buf[:0])
		if err != nil {
			return err
		}
		w.buf = p
		for _, ch := range p {
			load[ch] += 1 / float64(L)
		}
	}
	return nil
}

// maxDisjoint returns the size of the largest set of pairwise
// channel-disjoint paths among paths: exact for up to 12 paths, greedy
// (in layer order) beyond.
func maxDisjoint(paths [][]int) int {
	n := min(len(paths), 32) // beyond 32 layers only the first 32 are compared
	conflict := make([]uint32, n)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if share(paths[i], paths[j]) {
				conflict[i] |= 1 << j
				conflict[j] |= 1 << i
			}
		}
	}
	if n > 12 {
		var chosen uint32
		count := 0
		for i := 0; i < n; i++ {
			if conflict[i]&chosen == 0 {
				chosen |= 1 << i
				count++
			}
		}
		return count
	}
	best := 0
	for m := uint32(1); m < 1<<n; m++ {
		c := bits.OnesCount32(m)
		if c <= best {
			continue
		}
		ok := true
		for i := 0; i < n && ok; i++ {
			if m&(1<<i) != 0 && conflict[i]&m != 0 {
				ok = false
			}
		}
		if ok {
			best = c
		}
	}
	return best
}

func share(a, b []int) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
