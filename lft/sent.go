package lft

import "slimroute/fabric"

// Sent counts what a subnet manager sends the switches to go from tables
// a (programmed) to b: the LFT blocks of 64 LIDs that differ (all of a
// switch a lacks) and the SL-to-VL tables, per switch, in port and out
// port with a cable, that differ. Switches are matched by GUID. OpenSM
// sends an LFT block only where it differs from what the switch holds.
func Sent(a, b *Tables) (blocks, sl2vl int) {
	fa, fb := a.Fabric(), b.Fabric()
	for _, sw := range b.SortedSwitches() {
		nb := b.LFT(sw)
		asw, ok := fa.NodeByGUID(fb.GUID(sw))
		var na []uint8
		if ok {
			na = a.LFT(asw)
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
				for sl := range uint8(16) {
					if na == nil || a.SL2VL(asw, in, out, sl) != b.SL2VL(sw, in, out, sl) {
						sl2vl++
						break
					}
				}
			}
		}
	}
	return blocks, sl2vl
}
