package lft

import (
	"fmt"
	"io"
	"strings"

	"slimroute/fabric"
)

// WriteIBRoute writes the tables as ibroute (infiniband-diags) prints a
// switch's unicast table, every switch in GUID order:
//
//	Unicast lids [0x0-0x13] of switch Lid 1 guid 0x5346100000000000 (sw-a):
//	  Lid  Out   Destination
//	       Port     Info
//	0x0004 001 : (Channel Adapter portguid 0x5346200000000011: 'hca-1')
//	19 valid lids dumped
//
// so tables read back from switches compare with ours as text.
func WriteIBRoute(w io.Writer, t *Tables, workers int) error {
	tails := entryTails(t, func(kind, guid, name string) string {
		return fmt.Sprintf(" (%s portguid %s: '%s')\n", kind, guid, name)
	})
	return writeBlocks(w, workers, t.SortedSwitches(), func(buf []byte, sw fabric.NodeID) []byte {
		n := t.f.Node(sw)
		own, _ := t.lids.Of(fabric.PortRef{Node: sw})
		buf = fmt.Appendf(buf, "Unicast lids [0x0-0x%x] of switch Lid %d guid %s (%s):\n  Lid  Out   Destination\n       Port     Info \n", t.lids.top, own.Base, n.GUID, n.Name)
		buf, count := appendEntries(buf, t.lft[t.swIndex[sw]], tails, ':')
		return fmt.Appendf(buf, "%d valid lids dumped \n", count)
	})
}

// ReadIBRoute reads the output of ibroute for every switch of fabric f
// (concatenated, in any order) into tables, the way ReadOpenSMLFTs reads
// OpenSM's dump: the LID plan comes from the port GUIDs of the entries.
func ReadIBRoute(r io.Reader, file string, f *fabric.Fabric) (*Tables, error) {
	return readLFTs(r, file, f, func(line string) (lineKind, error) {
		switch {
		case line == "" || strings.HasPrefix(line, "Lid") || strings.HasPrefix(line, "Port") || strings.HasSuffix(line, "lids dumped"):
			return skipLine, nil
		case strings.HasPrefix(line, "Unicast lids"):
			return headerLine, nil
		case strings.HasPrefix(line, "0x"):
			return entryLine, nil
		}
		return 0, fmt.Errorf("unrecognised line %q", line)
	})
}
