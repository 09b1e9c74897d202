package lft

import "slimroute/fabric"

// Changed counts what differs between tables a (in force) and b (their
// successor) where hosts and switches see it: the LFT entries (switch,
// LID) of b's switches that name another port than a's (on a switch a
// lacks, every entry that is not a drop), and the path SLs (LID-holding
// HCA port, destination LID of b's plan) that differ from a's (a port a
// lacks has SL 0 there). Nodes are matched by GUID, entries by LID: what
// a subnet manager would program, and what hosts would ask the SA for
// again. Cost: O(switches × LIDs) for the entries; the path SLs are
// compared once per pair of SL rows met.
func Changed(a, b *Tables) (entries, pathSLs int) {
	fa, fb := a.Fabric(), b.Fabric()
	for i, sw := range b.switches {
		var na []uint8
		if id, ok := fa.NodeByGUID(fb.GUID(sw)); ok {
			if s := a.switchIndex(id); s >= 0 {
				na = a.lft[s]
			}
		}
		nb := b.lft[i]
		for lid := 1; lid < max(len(na), len(nb)); lid++ {
			if entry(na, lid) != entry(nb, lid) {
				entries++
			}
		}
	}
	var dlids []LID
	for _, pl := range b.lids.ports {
		for lid := pl.Base; lid <= pl.Top(); lid++ {
			dlids = append(dlids, lid)
		}
	}
	differ := map[[2]int32]int{} // per (a's row, b's row): DLIDs whose SLs differ
	for i, pl := range b.lids.ports {
		if pl.Port.Port == 0 {
			continue
		}
		ra := int32(-1)
		if id, ok := fa.NodeByGUID(fb.GUID(pl.Port.Node)); ok {
			if j, ok := a.lids.byPort[fabric.PortRef{Node: id, Port: pl.Port.Port}]; ok {
				ra = a.slRow[j]
			}
		}
		key := [2]int32{ra, b.slRow[i]}
		n, ok := differ[key]
		if !ok {
			for _, d := range dlids {
				if a.rowSL(ra, d) != b.rowSL(key[1], d) {
					n++
				}
			}
			differ[key] = n
		}
		pathSLs += n
	}
	return entries, pathSLs
}
