package pipeline

import (
	"slimroute/deadlock"
	"slimroute/fabric"
	"slimroute/lft"
)

// The spare pair, programmed ahead.
//
// After a failure, a route that no SL in use gives increasing VLs goes on
// a spare (SL, VL) pair (package repair, escapes): the lowest SL no path
// uses, mapped to the lowest VL no SL in use reaches, on every switch
// from every in port a switch feeds (from an HCA, VL 0). Written by the
// repair, that mapping changes an SL2VL table on nearly every switch port
// pair — 17,196 tables for one cable of Slim Fly q = 7 on 4 VLs — and
// plugging everything back takes it out again. The full computation
// programs it from the start instead: no path uses the SL, so no packet
// meets it, and the first repair that needs the pair changes no SL2VL
// table.

// withSpare is a's VL assignment with the spare pair programmed, when the
// switches' vls data VLs leave one (a itself otherwise).
func withSpare(f *fabric.Fabric, a *deadlock.Assignment, vls int) lft.VLs {
	if vls <= 0 {
		vls = 8
	}
	sl, vl := a.SLs, a.VLs // the SLs and VLs in use are the lowest ones
	if sl < 1 || sl > 15 || vl < 1 || vl >= min(vls, 15) {
		return a
	}
	return spareVLs{a: a, f: f, sl: uint8(sl), vl: uint8(vl)}
}

// spareVLs maps SL sl to VL vl from every in port a switch feeds, to VL
// 0 from the others; every other SL as a does.
type spareVLs struct {
	a      *deadlock.Assignment
	f      *fabric.Fabric
	sl, vl uint8
}

func (s spareVLs) SLsTo(layer, d int, out []uint8) { s.a.SLsTo(layer, d, out) }

func (s spareVLs) VL(sw fabric.NodeID, in, out int, sl uint8) uint8 {
	if sl != s.sl {
		return s.a.VL(sw, in, out, sl)
	}
	if in == 0 || s.f.Kind(sw) != fabric.Switch {
		return 0
	}
	if peer, ok := s.f.Peer(fabric.PortRef{Node: sw, Port: in}); ok && s.f.Kind(peer.Node) == fabric.Switch {
		return s.vl
	}
	return 0
}

// InPortOnly is a's (lft.InPortVLs): the spare pair depends on the in
// port only.
func (s spareVLs) InPortOnly() bool { return s.a.InPortOnly() }

// VLsFrom is VL for every SL (lft.InPortVLs) when a's VLs do not depend
// on the out port.
func (s spareVLs) VLsFrom(sw fabric.NodeID, in int, vls *[16]uint8) {
	s.a.VLsFrom(sw, in, vls)
	vls[s.sl] = s.VL(sw, in, 0, s.sl)
}
