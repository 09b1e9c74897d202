package repair

import (
	"sync"

	"slimroute/lft"
)

// carryLFTs copies every switch's previous table into the new tables,
// with the LIDs of gone ports dropped, and returns the rows to repair in
// place (per switch index).
func carryLFTs(m *match, b *lft.Builder, lids *lft.LIDs, workers int) [][]uint8 {
	var gone []lft.LID
	for lid := lft.LID(1); lid <= lids.Top; lid++ {
		if _, _, ok := lids.Owner(lid); !ok {
			gone = append(gone, lid)
		}
	}
	rows := make([][]uint8, len(m.switches))
	for s, sw := range m.switches {
		rows[s] = b.LFT(sw)
	}
	perSwitch(len(rows), workers, func(s int) {
		copy(rows[s], m.prev.LFT(m.prevSw[s]))
		for _, lid := range gone {
			rows[s][lid] = lft.Drop
		}
	})
	return rows
}

// carrySL2VL copies every switch's SL-to-VL tables, except that the SL
// of each spare pair goes to its VL everywhere.
func carrySL2VL(m *match, b *lft.Builder, spares []*escapePair, workers int) error {
	errs := make([]error, len(m.switches))
	perSwitch(len(m.switches), workers, func(s int) {
		sw, ps := m.switches[s], m.prevSw[s]
		n := m.f.Node(sw).Ports
		byClass := map[int][]uint8{}
		for in := 0; in <= n && errs[s] == nil; in++ {
			c := m.prev.SL2VLClass(ps, in)
			vls, ok := byClass[c]
			if !ok {
				vls = make([]uint8, (n+1)*16)
				for out := 0; out <= n; out++ {
					for sl := uint8(0); sl < 16; sl++ {
						vls[out*16+int(sl)] = m.prev.SL2VL(ps, in, out, sl)
					}
					for _, pr := range spares {
						vls[out*16+int(pr.sl)] = pr.vl
					}
				}
				byClass[c] = vls
			}
			errs[s] = b.SetSL2VL(sw, in, vls)
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
	for _, pl := range lids.Ports {
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
			copy(sl, m.prev.ClassSLs(cls))
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
