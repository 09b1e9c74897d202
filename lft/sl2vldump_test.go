package lft_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
)

// opensmSL2VLDump writes t's SL2VL tables as OpenSM 3.3 writes
// opensm-sl2vl.dump (osm_dump.c): a section per port with a LID — HCAs
// with their egress table as "0 0", switches with a row per cabled out
// port and every in port 0..n — headers and separators as OpenSM prints
// them.
func opensmSL2VLDump(t *lft.Tables) string {
	f := t.Fabric()
	var b strings.Builder
	row := func(in, out int, vl func(sl uint8) uint8) {
		fmt.Fprintf(&b, "%-3d %-3d :", in, out)
		for sl := uint8(0); sl < 16; sl++ {
			fmt.Fprintf(&b, " %-2d", vl(sl))
		}
		b.WriteString("\n")
	}
	sep := "#--------------------------------------------------------"
	for _, id := range f.IDsOf(fabric.HCA)[:2] {
		fmt.Fprintf(&b, "Channel Adapter %s, base LID 9, \"%s\"\n#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15\n%s\n", f.GUID(id), f.Name(id), sep)
		row(0, 0, func(uint8) uint8 { return 0 })
		fmt.Fprintf(&b, "%s\n\n", sep)
	}
	for _, sw := range t.SortedSwitches() {
		n := f.Node(sw)
		fmt.Fprintf(&b, "Switch %s, base LID 1, \"%s\"\n#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15\n%s\n", n.GUID, n.Name, sep)
		for out := 0; out <= n.Ports; out++ {
			if _, cabled := f.Peer(fabric.PortRef{Node: sw, Port: out}); !cabled {
				continue
			}
			for in := 0; in <= n.Ports; in++ {
				row(in, out, func(sl uint8) uint8 { return t.SL2VL(sw, in, out, sl) })
			}
		}
		fmt.Fprintf(&b, "%s\n\n", sep)
	}
	return b.String()
}

// TestReadSL2VLReadsOpenSMsDump reads OpenSM's opensm-sl2vl.dump layout
// into tables without SL2VL (read from an LFT file) and gets the SL2VL of
// the tables it was written from; a row before any header, a switch not
// in the fabric and a VL out of range are errors naming the line.
func TestReadSL2VLReadsOpenSMsDump(t *testing.T) {
	tab := programmed(t)
	var lfts bytes.Buffer
	if err := lft.WriteOpenSMLFTs(&lfts, tab, 1); err != nil {
		t.Fatal(err)
	}
	base, err := lft.ReadOpenSMLFTs(&lfts, "lfts", tab.Fabric())
	if err != nil {
		t.Fatal(err)
	}
	dump := opensmSL2VLDump(tab)
	got, err := lft.ReadSL2VL(strings.NewReader(dump), "opensm-sl2vl.dump", base)
	if err != nil {
		t.Fatal(err)
	}
	var want, have, none bytes.Buffer
	lft.WriteSL2VL(&want, tab)
	lft.WriteSL2VL(&have, got)
	lft.WriteSL2VL(&none, base)
	if want.String() == none.String() {
		t.Fatal("the tables' SL2VL is the default: the test proves nothing")
	}
	if have.String() != want.String() {
		t.Fatal("the SL2VL read from the dump differs from the tables it was written from")
	}
	sw := tab.SortedSwitches()[0]
	for _, c := range []struct{ text, want string }{
		{"1   2   : 0  1  2  0  0  0  0  0  0  0  0  0  0  0  0  0\n", "opensm-sl2vl.dump:1: a row of OpenSM's SL2VL dump before any"},
		{"Switch 0x0123456789abcdef, base LID 1, \"x\"\n", "opensm-sl2vl.dump:1: switch GUID 0x0123456789abcdef is not in the fabric"},
		{fmt.Sprintf("Switch %s, base LID 1, \"x\"\n1   2   : 0  1  2  16 0  0  0  0  0  0  0  0  0  0  0  0\n", tab.Fabric().GUID(sw)), "opensm-sl2vl.dump:2: VL \"16\" of SL 3: want 0 to 15"},
	} {
		if _, err := lft.ReadSL2VL(strings.NewReader(c.text), "opensm-sl2vl.dump", base); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}
