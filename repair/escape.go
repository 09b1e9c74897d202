package repair

// escapes hands out spare (SL, VL) pairs for new routes that no SL in use
// gives increasing VLs under the kept SL2VL tables. A spare pair is an SL
// that no path used and a VL that no SL in use reaches on any switch; the
// repair then maps that SL to that VL on every switch, in port and out
// port, and changes no other SL2VL entry. Packets of the routes on a pair
// stay on its VL from source to destination and no other packet enters
// it, so the only dependencies on that VL are those of its own routes: it
// stays deadlock-free as long as they form no cycle, which is checked as
// each route is added (first fit over the pairs, then a new pair, as
// DFSSSP packs routes into VLs; Domke et al., 2011).
type escapes struct {
	m      *match
	vls    int           // data VLs the switches have
	sl2vl  []switchSL2VL // the previous SL2VL tables
	vlUsed *[16]bool
	pairs  []*escapePair
}

type escapePair struct {
	sl, vl uint8
	next   map[int32][]int32 // channel dependencies: channel -> channels
}

// channel numbers the channel leaving switch s on port p.
func channel(s int32, p int) int32 { return s<<8 | int32(p) }

// place finds a pair whose dependency graph stays acyclic with the route
// through channels chs, opening a new pair if none does, and adds the
// route to it. ok is false when no spare SL or VL is left.
func (e *escapes) place(chs []int32, slUsed func() *[16]bool) (*escapePair, bool) {
	for _, pr := range e.pairs {
		if pr.add(chs) {
			return pr, true
		}
	}
	sl, vl, ok := e.spare(slUsed())
	if !ok {
		return nil, false
	}
	pr := &escapePair{sl: sl, vl: vl, next: map[int32][]int32{}}
	e.pairs = append(e.pairs, pr)
	pr.add(chs) // a route alone is a simple path: no cycle
	return pr, true
}

// spare returns an SL and a VL that neither a path SL nor an earlier pair
// uses.
func (e *escapes) spare(slUsed *[16]bool) (uint8, uint8, bool) {
	if e.vlUsed == nil {
		e.vlUsed = e.m.vlsReached(e.sl2vl, slUsed)
	}
	sl, vl := -1, -1
	for x := 15; x >= 1; x-- {
		if !slUsed[x] && !e.taken(uint8(x), true) {
			sl = x
		}
	}
	for x := 1; x < min(e.vls, 15); x++ {
		if !e.vlUsed[x] && !e.taken(uint8(x), false) {
			vl = x
			break
		}
	}
	if sl < 0 || vl < 0 {
		return 0, 0, false
	}
	return uint8(sl), uint8(vl), true
}

func (e *escapes) taken(x uint8, isSL bool) bool {
	for _, pr := range e.pairs {
		if (isSL && pr.sl == x) || (!isSL && pr.vl == x) {
			return true
		}
	}
	return false
}

// add adds the dependencies of the route through chs, one by one, each
// only if the graph has no path back from its head to its tail (which
// would close a cycle, with the pair's routes or the route's own earlier
// dependencies); if one would, it takes back those it added and reports
// false.
func (pr *escapePair) add(chs []int32) bool {
	for i := 0; i+1 < len(chs); i++ {
		if pr.reaches(chs[i+1], chs[i]) {
			for j := i - 1; j >= 0; j-- {
				pr.next[chs[j]] = pr.next[chs[j]][:len(pr.next[chs[j]])-1]
			}
			return false
		}
		pr.next[chs[i]] = append(pr.next[chs[i]], chs[i+1])
	}
	return true
}

func (pr *escapePair) reaches(from, to int32) bool {
	seen := map[int32]bool{from: true}
	stack := []int32{from}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c == to {
			return true
		}
		for _, d := range pr.next[c] {
			if !seen[d] {
				seen[d] = true
				stack = append(stack, d)
			}
		}
	}
	return false
}

// vlsReached returns the VLs the previous SL2VL tables put packets of the
// SLs in use on, on any switch, in port and out port that has a cable.
func (m *match) vlsReached(tabs []switchSL2VL, slUsed *[16]bool) *[16]bool {
	var used [16]bool
	used[0] = true
	for s := range m.switches {
		for _, tab := range tabs[s].tables {
			for out := 1; out*16 < len(tab); out++ {
				if m.back[s][out] < 0 {
					continue
				}
				for sl, vl := range tab[out*16 : out*16+16] {
					if slUsed[sl] {
						used[vl&15] = true
					}
				}
			}
		}
	}
	return &used
}
