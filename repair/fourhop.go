package repair

// The four-hop rule. Hop-indexed tables (deadlock.AssignHops) put hop i of
// every route on VL i: from an HCA VL 0; from a switch VL 1 if the SL is
// the switch's colour (it is the route's second), else VL 2. A route of
// four switch-to-switch hops — the detour around a failed cable in a
// girth-5 Slim Fly — gets no increasing VLs under them, and took the
// spare VL. On switches with four VLs or more a repair may turn on the
// rule AssignHops uses when four-hop routes exist: a switch fed by a
// switch, whose colour is not the SL, puts the packet on VL 2 if the
// feeding switch's colour is the SL (the feeder was the second switch: this
// is the third) and on VL 3 if not (the fourth). Every route that had
// increasing VLs keeps them: a third switch is fed by the second and stays
// on VL 2; a hop that moves from VL 2 to VL 3 is a route's last (a VL 2
// hop had no successor). A four-hop route v0 … v4 then takes VLs 0, 1, 2, 3
// with the SL of v1's colour when v2's and v3's colours differ from it.
//
// VL 3 then carries the last hops of those routes and may be a pair's VL
// too (see escapes): a hop-indexed route's hop on VL 3 is its last, so it
// adds no dependency that stays on VL 3, and a cycle on VL 3 could only be
// made of the pair's own dependencies, which the pair keeps acyclic.

// hopVL is the VL of the last hop the three-VL rule gives, and fourthVL
// the VL the four-hop rule adds.
const (
	hopVL    = 2
	fourthVL = 3
)

// hopColours returns each switch's colour under hop-indexed tables — the
// SL (not a pair's) that goes to VL 1 from every in port fed by a switch —
// and whether the tables follow the hop rule, with or without the fourth
// hop (four). ok is false for other tables (DFSSSP's, OpenSM's). Ports
// back in (fresh) are not looked at; SLs on VL 4 or above (routes of five
// hops or more) are left out.
func (e *escapes) hopColours(pairSL *[16]bool) (colour []int, four, ok bool) {
	m := e.m
	colour = make([]int, len(m.switches))
	for s := range m.switches {
		colour[s] = -1
		ok := e.eachCarried(s, func(in, _ int, row []uint8) bool {
			for sl, vl := range row {
				switch vl &= 15; {
				case pairSL[sl] || vl > fourthVL:
				case m.nbr[s][in] < 0:
					if vl != 0 {
						return false
					}
				case vl == 1:
					if colour[s] >= 0 && colour[s] != sl {
						return false
					}
					colour[s] = sl
				case vl == fourthVL:
					four = true
				case vl != hopVL:
					return false
				}
			}
			return true
		})
		if !ok {
			return nil, false, false
		}
	}
	return colour, four, true
}

// fourHops turns the four-hop rule on (see above) if the tables follow the
// three-VL hop rule and the switches have a fourth VL; it reports whether
// it did.
func (r *rerouter) fourHops() bool {
	e := r.esc
	if r.fourOn || e.vls <= fourthVL {
		return false
	}
	pairSL := e.pairSLs()
	colour, four, ok := e.hopColours(pairSL)
	if !ok || four {
		return false
	}
	r.fourOn = true
	m := r.m
	for s := range e.sl2vl {
		t := &e.sl2vl[s]
		t.split()
		for in, tab := range t.tables {
			n := m.nbr[s][in]
			for i := 16; n >= 0 && i < len(tab); i++ { // out ports 1 on
				if sl := i % 16; tab[i] == hopVL && !pairSL[sl] && sl != colour[n] {
					tab[i] = fourthVL
				}
			}
		}
	}
	return true
}
