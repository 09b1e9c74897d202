package repair

import (
	"slices"
	"sync"

	"slimroute/fabric"

	"slimroute/lft"
)

// carryLFTs copies every switch's previous table into the new tables,
// with the LIDs of gone ports dropped and base's entries toward the LIDs
// of ports back in, and returns the rows to repair in place (per switch
// index).
func carryLFTs(m *match, b *lft.Builder, lids *lft.LIDs, workers int) [][]uint8 {
	var gone, back []lft.LID
	for lid := lft.LID(1); lid <= lids.Top(); lid++ {
		_, _, now := lids.Owner(lid)
		_, _, before := m.prev.LIDs().Owner(lid)
		switch {
		case !now:
			gone = append(gone, lid)
		case !before:
			back = append(back, lid)
		}
	}
	rows := make([][]uint8, len(m.switches))
	for s, sw := range m.switches {
		rows[s] = b.LFT(sw)
	}
	perSwitch(len(rows), workers, func(s int) {
		m.src[s].CopyLFT(rows[s], m.prevSw[s])
		for _, lid := range gone {
			rows[s][lid] = lft.Drop
		}
		for _, lid := range back {
			rows[s][lid] = m.base.Port(m.baseSw[s], lid)
		}
	})
	return rows
}

// switchSL2VL is one switch's previous SL-to-VL tables: the distinct
// tables (indexed out*16+sl) and the table of each in port.
type switchSL2VL struct {
	tables [][]uint8
	of     []int // per in port 0..ports: index in tables
	// fresh[p] says port p has a cable its tables' fabric lacked (back
	// in, with a base): entries from or to it are base's, and a pair's SL
	// is set on them once the pairs are known (fillPairs)
	fresh []bool
}

// vl returns the VL of a packet of SL sl entering on port in and leaving
// on port out.
func (t *switchSL2VL) vl(in, out int, sl uint8) uint8 {
	return t.tables[t.of[in]][out*16+int(sl)]
}

// readSL2VL takes every switch's SL-to-VL tables from the previous tables
// (from base for a switch back in), with base's entries from and to the
// ports whose cables are back in.
func readSL2VL(m *match, workers int) []switchSL2VL {
	out := make([]switchSL2VL, len(m.switches))
	perSwitch(len(m.switches), workers, func(s int) {
		src, ps, n := m.src[s], m.prevSw[s], m.f.Ports(m.switches[s])
		byClass := map[int]int{}
		t := switchSL2VL{of: make([]int, n+1), fresh: m.freshPorts(s)}
		for in := 0; in <= n; in++ {
			c := src.SL2VLClass(ps, in)
			i, ok := byClass[c]
			if !ok {
				i = len(t.tables)
				byClass[c] = i
				t.tables = append(t.tables, src.SL2VLTable(ps, in))
			}
			t.of[in] = i
		}
		if slices.Contains(t.fresh, true) {
			t.withBase(m, s)
		}
		out[s] = t
	})
	return out
}

// freshPorts marks the ports of switch s whose cables its tables' fabric
// lacked, all of them for a switch back in (nil without a base).
func (m *match) freshPorts(s int) []bool {
	if m.base == nil {
		return nil
	}
	fresh := make([]bool, len(m.nbr[s]))
	for p := 1; p < len(fresh); p++ {
		_, had := m.src[s].Fabric().Peer(fabric.PortRef{Node: m.prevSw[s], Port: p})
		fresh[p] = m.back[s][p] >= 0 && (!had || m.src[s] != m.prev)
	}
	return fresh
}

// split gives every in port a table of its own (a copy), so that the
// entries of one in port can change alone.
func (t *switchSL2VL) split() {
	tables := make([][]uint8, len(t.of))
	for in := range t.of {
		tables[in], t.of[in] = slices.Clone(t.tables[t.of[in]]), in
	}
	t.tables = tables
}

// withBase gives every in port a table of its own, with base's entries
// where the in or the out port is fresh — but from an in port fed by an
// HCA that is not, the VLs that HCA sends its SLs on (its table stays the
// previous one, and base's may be of another scheme, after a full
// recompute).
func (t *switchSL2VL) withBase(m *match, s int) {
	t.split()
	for in, tab := range t.tables {
		hca, fromHCA := m.hcaOn(s, in)
		for out := 1; out*16 < len(tab); out++ {
			if !t.fresh[in] && !t.fresh[out] {
				continue
			}
			for sl := range 16 {
				if fromHCA && !t.fresh[in] {
					tab[out*16+sl] = hca[sl]
				} else {
					tab[out*16+sl] = m.base.SL2VL(m.baseSw[s], in, out, uint8(sl))
				}
			}
		}
	}
}

// hcaOn returns the previous SL-to-VL table of the HCA port cabled to
// port in of switch s, if one is.
func (m *match) hcaOn(s, in int) ([16]uint8, bool) {
	if in == 0 {
		return [16]uint8{}, false
	}
	peer, ok := m.f.Peer(fabric.PortRef{Node: m.switches[s], Port: in})
	if !ok || m.f.Kind(peer.Node) != fabric.HCA {
		return [16]uint8{}, false
	}
	src, pp, ok := m.portIn(peer)
	if !ok {
		return [16]uint8{}, false
	}
	return src.CASL2VL(pp), true
}

// fillPairs sets the SL of every pair of the previous tables on the
// entries from and to fresh ports, as the pair has it elsewhere.
func fillPairs(m *match, tabs []switchSL2VL, pairs []*escapePair) {
	for s := range tabs {
		t := &tabs[s]
		if !slices.Contains(t.fresh, true) {
			continue
		}
		for in := range t.of {
			tab := t.tables[t.of[in]]
			for out := 1; out*16 < len(tab); out++ {
				if t.fresh[in] || t.fresh[out] {
					for _, pr := range pairs {
						tab[out*16+int(pr.sl)] = pr.vlFrom(m.nbr[s][in] >= 0)
					}
				}
			}
		}
	}
}

// carrySL2VL gives every switch its previous SL-to-VL tables, except that
// the SL of each new pair goes to its VL from every in port fed by a
// switch, and to VL 0 from the others (see escapes).
func carrySL2VL(m *match, b *lft.Builder, tabs []switchSL2VL, fresh []*escapePair, workers int) error {
	errs := make([]error, len(m.switches))
	perSwitch(len(m.switches), workers, func(s int) {
		t := &tabs[s]
		if len(fresh) > 0 {
			t.split()
		}
		for in := 0; in < len(t.of) && errs[s] == nil; in++ {
			tab := t.tables[t.of[in]]
			for out := 0; len(fresh) > 0 && out*16 < len(tab); out++ {
				for _, pr := range fresh {
					tab[out*16+int(pr.sl)] = pr.vlFrom(m.nbr[s][in] >= 0)
				}
			}
			errs[s] = b.SetSL2VL(m.switches[s], in, tab)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// carryCASL2VL gives every HCA port the SL-to-VL table it had (base's,
// for a port back in, with the SL of each of the previous tables' pairs
// on its VL, as fillPairs gives the switch's entries from it), with the
// SL of each new pair on the VL the pair's routes take from the HCA's
// switch, as a switch's in port fed by an HCA has it.
func carryCASL2VL(m *match, b *lft.Builder, lids *lft.LIDs, pairs, fresh []*escapePair) error {
	for _, pl := range lids.Ports() {
		if pl.Port.Port == 0 {
			continue
		}
		src, pp, _ := m.portIn(pl.Port)
		vls := src.CASL2VL(pp)
		if src != m.prev {
			for _, pr := range pairs {
				vls[pr.sl] = pr.vlFrom(false)
			}
		}
		for _, pr := range fresh {
			vls[pr.sl] = pr.vlFrom(false)
		}
		if err := b.SetCASL2VL(pl.Port, vls); err != nil {
			return err
		}
	}
	return nil
}

// carrySLs gives the HCA ports of every switch the path SLs they had,
// one row per switch and previous path-SL class (of base's, for a port
// back in), and returns the rows of each switch index for the repair to
// change. Toward the LIDs of ports back in, a row takes base's SLs.
func carrySLs(m *match, b *lft.Builder, lids *lft.LIDs) ([][]*slRow, error) {
	rowsOf := make([][]*slRow, len(m.switches))
	type key struct {
		s                int32
		src              *lft.Tables
		class, baseClass int
	}
	rowOf := map[key]int{} // -> row number
	for _, pl := range lids.Ports() {
		peer, ok := m.f.Peer(pl.Port)
		if pl.Port.Port == 0 || !ok || m.index[peer.Node] < 0 {
			continue
		}
		s := m.index[peer.Node]
		src, pp, _ := m.portIn(pl.Port)
		k := key{s, src, src.SLClass(pp), -1}
		if m.base != nil {
			bp, _ := m.portOf(m.base, pl.Port)
			k.baseClass = m.base.SLClass(bp)
		}
		n, seen := rowOf[k]
		if !seen {
			var sl []uint8
			n, sl = b.AddSLRow()
			src.CopyClassSLs(sl, k.class)
			if m.base != nil && src != m.base {
				bp, _ := m.portOf(m.base, pl.Port)
				m.backSLs(sl, lids, bp)
			}
			rowOf[k] = n
			rowsOf[s] = append(rowsOf[s], &slRow{src: src, class: k.class, baseClass: k.baseClass, sl: sl})
		}
		for _, row := range rowsOf[s] {
			if row.src == src && row.class == k.class && row.baseClass == k.baseClass {
				row.addIn(m, s, peer.Port)
			}
		}
		if err := b.SetSLRow(pl.Port, n); err != nil {
			return nil, err
		}
	}
	return rowsOf, nil
}

// backSLs sets, in the path-SL row sl, the SLs toward the LIDs prev
// lacks (those of ports back in) to base's for its port bp.
func (m *match) backSLs(sl []uint8, lids *lft.LIDs, bp fabric.PortRef) {
	for _, pl := range lids.Ports() {
		if _, _, before := m.prev.LIDs().Owner(pl.Base); before {
			continue
		}
		for lid := pl.Base; lid <= pl.Top(); lid++ {
			sl[lid] = m.base.PathSL(bp, lid)
		}
	}
}

// addIn records in port in of switch s as an entry of the row's HCAs,
// unless an in port of the same SL2VL class is already recorded.
func (row *slRow) addIn(m *match, s int32, in int) {
	src, ps := m.src[s], m.prevSw[s]
	for _, have := range row.ins {
		if src.SL2VLClass(ps, have) == src.SL2VLClass(ps, in) {
			return
		}
	}
	row.ins = append(row.ins, in)
}

// perSwitch runs fn for switch indices 0..n-1 on up to workers goroutines.
func perSwitch(n, workers int, fn func(s int)) {
	workers = max(1, min(workers, n))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := w; s < n; s += workers {
				fn(s)
			}
		}()
	}
	wg.Wait()
}
