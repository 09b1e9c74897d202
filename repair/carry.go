package repair

import (
	"slices"
	"sync"

	"slimroute/lft"
)

// carryLFTs copies every switch's previous table into the new tables,
// with the LIDs of gone ports dropped, and returns the rows to repair in
// place (per switch index).
func carryLFTs(m *match, b *lft.Builder, lids *lft.LIDs, workers int) [][]uint8 {
	var gone []lft.LID
	for lid := lft.LID(1); lid <= lids.Top(); lid++ {
		if _, _, ok := lids.Owner(lid); !ok {
			gone = append(gone, lid)
		}
	}
	rows := make([][]uint8, len(m.switches))
	for s, sw := range m.switches {
		rows[s] = b.LFT(sw)
	}
	perSwitch(len(rows), workers, func(s int) {
		m.prev.CopyLFT(rows[s], m.prevSw[s])
		for _, lid := range gone {
			rows[s][lid] = lft.Drop
		}
	})
	return rows
}

// switchSL2VL is one switch's previous SL-to-VL tables: the distinct
// tables (indexed out*16+sl) and the table of each in port.
type switchSL2VL struct {
	tables [][]uint8
	of     []int // per in port 0..ports: index in tables
}

// readSL2VL takes every switch's SL-to-VL tables from the previous tables.
func readSL2VL(m *match, workers int) []switchSL2VL {
	out := make([]switchSL2VL, len(m.switches))
	perSwitch(len(m.switches), workers, func(s int) {
		ps, n := m.prevSw[s], m.f.Ports(m.switches[s])
		byClass := map[int]int{}
		t := switchSL2VL{of: make([]int, n+1)}
		for in := 0; in <= n; in++ {
			c := m.prev.SL2VLClass(ps, in)
			i, ok := byClass[c]
			if !ok {
				i = len(t.tables)
				byClass[c] = i
				t.tables = append(t.tables, m.prev.SL2VLTable(ps, in))
			}
			t.of[in] = i
		}
		out[s] = t
	})
	return out
}

// carrySL2VL gives every switch its previous SL-to-VL tables, except that
// the SL of each new pair goes to its VL from every in port fed by a
// switch, and to VL 0 from the others (see escapes).
func carrySL2VL(m *match, b *lft.Builder, tabs []switchSL2VL, fresh []*escapePair, workers int) error {
	errs := make([]error, len(m.switches))
	perSwitch(len(m.switches), workers, func(s int) {
		t := tabs[s]
		for in := 0; in < len(t.of) && errs[s] == nil; in++ {
			tab := t.tables[t.of[in]]
			if len(fresh) > 0 {
				tab = slices.Clone(tab)
				for out := 0; out*16 < len(tab); out++ {
					for _, pr := range fresh {
						tab[out*16+int(pr.sl)] = 0
						if m.nbr[s][in] >= 0 {
							tab[out*16+int(pr.sl)] = pr.vl
						}
					}
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

// carrySLs gives the HCA ports of every switch the path SLs they had,
// one row per switch and previous path-SL class, and returns the rows of
// each switch index for the repair to change.
func carrySLs(m *match, b *lft.Builder, lids *lft.LIDs) ([][]*slRow, error) {
	rowsOf := make([][]*slRow, len(m.switches))
	classOf := map[[2]int]int{} // (switch index, previous class) -> row number
	for _, pl := range lids.Ports() {
		peer, ok := m.f.Peer(pl.Port)
		if pl.Port.Port == 0 || !ok || m.index[peer.Node] < 0 {
			continue
		}
		s := m.index[peer.Node]
		pp, _ := m.prevPort(pl.Port)
		cls := m.prev.SLClass(pp)
		key := [2]int{int(s), cls}
		n, seen := classOf[key]
		if !seen {
			var sl []uint8
			n, sl = b.AddSLRow()
			m.prev.CopyClassSLs(sl, cls)
			classOf[key] = n
			rowsOf[s] = append(rowsOf[s], &slRow{class: cls, sl: sl})
		}
		for _, row := range rowsOf[s] {
			if row.class == cls {
				row.addIn(m, s, peer.Port)
			}
		}
		if err := b.SetSLRow(pl.Port, n); err != nil {
			return nil, err
		}
	}
	return rowsOf, nil
}

// addIn records in port in of switch s as an entry of the row's HCAs,
// unless an in port of the same SL2VL class is already recorded.
func (row *slRow) addIn(m *match, s int32, in int) {
	ps := m.prevSw[s]
	for _, have := range row.ins {
		if m.prev.SL2VLClass(ps, have) == m.prev.SL2VLClass(ps, in) {
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
