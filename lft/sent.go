package lft

import "slimroute/fabric"

// Sent counts what a subnet manager sends the switches to go from tables
// a (programmed) to b: the LFT blocks of 64 LIDs that differ (all of a
// switch a lacks) and the SL-to-VL tables that differ: per switch, in
// port and out port with a cable, and per LID-holding HCA port. Nodes are
// matched by GUID. OpenSM sends an LFT block only where it differs from
// what the switch holds.
func Sent(a, b *Tables) (blocks, sl2vl int) {
	blocks, sl2vl = SentToSwitches(a, b)
	return blocks, sl2vl + sentCA(a, b)
}

// SentToSwitches is Sent without the HCA ports' SL-to-VL tables, which
// route's files do not record: what tables read back from them can be
// compared in.
func SentToSwitches(a, b *Tables) (blocks, sl2vl int) {
	fa, fb := a.Fabric(), b.Fabric()
	for _, sw := range b.SortedSwitches() {
		nb := b.lft[b.switchIndex(sw)] // read, not kept: no copy
		asw, ok := fa.NodeByGUID(fb.GUID(sw))
		var na []uint8
		if s := a.switchIndex(asw); ok && s >= 0 {
			na = a.lft[s]
		}
		for lo := 0; lo < len(nb); lo += 64 {
			hi := min(lo+64, len(nb))
			if na == nil || hi > len(na) || string(na[lo:hi]) != string(nb[lo:hi]) {
				blocks++
			}
		}
		cabled := func(p int) bool { _, ok := fb.Peer(fabric.PortRef{Node: sw, Port: p}); return ok }
		n := fb.Ports(sw)
		for in := 0; in <= n; in++ {
			if in > 0 && !cabled(in) {
				continue
			}
			for out := 1; out <= n; out++ {
				if out == in || !cabled(out) {
					continue
				}
				if na == nil || a.sl2vlRow(asw, in, out) != b.sl2vlRow(sw, in, out) {
					sl2vl++
				}
			}
		}
	}
	return blocks, sl2vl
}

// sentCA counts the LID-holding HCA ports of b whose SL-to-VL table
// differs from a's (or that a lacks).
func sentCA(a, b *Tables) int {
	fa, fb := a.Fabric(), b.Fabric()
	n := 0
	for _, pl := range b.lids.ports {
		if pl.Port.Port == 0 {
			continue
		}
		id, ok := fa.NodeByGUID(fb.GUID(pl.Port.Node))
		if !ok || a.CASL2VL(fabric.PortRef{Node: id, Port: pl.Port.Port}) != b.CASL2VL(pl.Port) {
			n++
		}
	}
	return n
}
