package lft

import (
	"bufio"
	"fmt"
	"io"
	"sort"

	"slimroute/fabric"
)

// WriteOpenSMLFTs writes the tables in the layout of OpenSM's
// opensm-lfts.dump, which `opensm -R file -U FILE` loads: one block per
// switch, one line per routed LID with the destination's port GUID, so
// OpenSM re-bases the LID if it assigns the port another LID range. Every
// switch and every routed LID (all LMC offsets) is listed: the file
// engine drops what a file leaves out without a warning.
func WriteOpenSMLFTs(w io.Writer, t *Tables) error {
	bw := bufio.NewWriter(w)
	f := t.Fabric
	for _, sw := range t.sortedSwitches() {
		n := f.Node(sw)
		own, _ := t.LIDs.Of(fabric.PortRef{Node: sw})
		fmt.Fprintf(bw, "Unicast lids [0-%d] of switch Lid %d guid %s ('%s'):\n", t.LIDs.Top, own.Base, n.GUID, n.Name)
		lft := t.LFT(sw)
		count := 0
		for lid := 1; lid < len(lft); lid++ {
			port := lft[lid]
			if port == Drop {
				continue
			}
			owner, _, ok := t.LIDs.Owner(LID(lid))
			if !ok {
				continue
			}
			on := f.Node(owner.Port.Node)
			kind := "Channel Adapter"
			if on.Kind == fabric.Switch {
				kind = "Switch"
			}
			fmt.Fprintf(bw, "0x%04x %03d # %s portguid %s: '%s'\n", lid, port, kind, on.PortGUID(owner.Port.Port), on.Name)
			count++
		}
		fmt.Fprintf(bw, "%d lids dumped\n", count)
	}
	return bw.Flush()
}

// WriteGUID2LID writes OpenSM's guid2lid cache (OSM_CACHE_DIR/guid2lid), so
// that OpenSM assigns exactly the planned LIDs: one record per port, "port
// GUID min max", records separated by blank lines.
func WriteGUID2LID(w io.Writer, t *Tables) error {
	bw := bufio.NewWriter(w)
	ports := append([]PortLIDs(nil), t.LIDs.Ports...)
	sort.SliceStable(ports, func(i, j int) bool { return ports[i].Base < ports[j].Base })
	for _, p := range ports {
		g := t.Fabric.Node(p.Port.Node).PortGUID(p.Port.Port)
		fmt.Fprintf(bw, "%s 0x%04x 0x%04x\n\n", g, p.Base, p.Top())
	}
	return bw.Flush()
}

// WritePathSL writes slimroute's path-SL file: the SL of every
// destination LID for the HCAs of each switch, one line per source switch:
//
//	# source-switch-GUID first-DLID SLs…
//	0x5346000000000000 0x0001 0000120…
//
// The SLs are hex digits, one per DLID from first-DLID on; every HCA port
// cabled to the switch uses them, from any of its LIDs.
func WritePathSL(w io.Writer, t *Tables) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# slimroute path SLs: source switch GUID, first DLID, one hex SL per DLID (for the HCA ports on that switch)\n")
	v := t.Fabric.SwitchView()
	for _, sw := range t.sortedSwitches() {
		s := v.Index[sw]
		if len(v.Endpoints[s]) == 0 {
			continue
		}
		src := v.Endpoints[s][0]
		fmt.Fprintf(bw, "%s 0x0001 ", t.Fabric.Node(sw).GUID)
		for lid := LID(1); lid <= t.LIDs.Top; lid++ {
			fmt.Fprintf(bw, "%x", t.PathSL(src, lid)&15)
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// WriteSL2VL writes every switch's SL-to-VL tables in ibdmchk's -d format,
// which is also slimroute's: "switch-GUID in-port out-port" and eight
// bytes 0x(VL of SL 2i)(VL of SL 2i+1), for every in port (0 included) and
// every cabled out port.
func WriteSL2VL(w io.Writer, t *Tables) error {
	bw := bufio.NewWriter(w)
	f := t.Fabric
	for _, sw := range t.sortedSwitches() {
		cabled := func(p int) bool {
			_, ok := f.Peer(fabric.PortRef{Node: sw, Port: p})
			return ok
		}
		writeSL2VL(bw, t, sw, f.Node(sw).Ports, cabled, func(p int) int { return p })
	}
	return bw.Flush()
}

// writeSL2VL writes the -d lines of switch sw with ports 1..n, for every
// cabled out port and every cabled in port or 0; real maps a listed port
// to the real port whose SL2VL it carries.
func writeSL2VL(bw *bufio.Writer, t *Tables, sw fabric.NodeID, n int, cabled func(int) bool, real func(int) int) {
	g := t.Fabric.Node(sw).GUID
	for out := 1; out <= n; out++ {
		if !cabled(out) {
			continue
		}
		for in := 0; in <= n; in++ {
			if in == out || (in != 0 && !cabled(in)) {
				continue
			}
			fmt.Fprintf(bw, "%s %d %d", g, in, out)
			ri, ro := real(in), real(out)
			for sl := uint8(0); sl < 16; sl += 2 {
				fmt.Fprintf(bw, " 0x%x%x", t.SL2VL(sw, ri, ro, sl)&15, t.SL2VL(sw, ri, ro, sl+1)&15)
			}
			bw.WriteString("\n")
		}
	}
}

func (t *Tables) sortedSwitches() []fabric.NodeID {
	sw := t.Switches()
	sort.Slice(sw, func(i, j int) bool { return t.Fabric.Node(sw[i]).GUID < t.Fabric.Node(sw[j]).GUID })
	return sw
}
