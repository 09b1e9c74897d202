// Package hcavl judges, for tests, the SL-to-VL tables of a routing's
// HCA ports: each HCA sends an SL on the VL its switch forwards that SL
// on from the HCA (the first hop's VL class), and on no VL beyond the
// switches'. It reads only lft.Tables' accessors, not how the tables were
// made.
package hcavl

import (
	"fmt"

	"slimroute/fabric"
	"slimroute/lft"
)

// Mismatch returns the first HCA port and SL of t whose egress VL differs
// from the VL its switch puts that SL on from the HCA's cable toward any
// other cabled port, or that names a VL at or above vls (0: no bound);
// "" when there is none.
func Mismatch(t *lft.Tables, vls int) string {
	f := t.Fabric()
	for _, pl := range t.LIDs().Ports() {
		if pl.Port.Port == 0 {
			continue
		}
		peer, ok := f.Peer(pl.Port)
		if !ok || f.Kind(peer.Node) != fabric.Switch {
			continue
		}
		sends := t.CASL2VL(pl.Port)
		for sl := range uint8(16) {
			if vls > 0 && int(sends[sl]) >= vls {
				return fmt.Sprintf("%s sends SL %d on VL %d of %d", f.PortString(pl.Port), sl, sends[sl], vls)
			}
			for out := 1; out <= f.Ports(peer.Node); out++ {
				if _, cabled := f.Peer(fabric.PortRef{Node: peer.Node, Port: out}); !cabled || out == peer.Port {
					continue
				}
				if vl := t.SL2VL(peer.Node, peer.Port, out, sl); vl != sends[sl] {
					return fmt.Sprintf("%s sends SL %d on VL %d; %s forwards it from there to port %d on VL %d", f.PortString(pl.Port), sl, sends[sl], f.Name(peer.Node), out, vl)
				}
			}
		}
	}
	return ""
}
