package lft

import (
	"io"

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
	return ibrouteListing.write(w, t, workers)
}

// ibrouteListing is the layout of ibroute's output.
var ibrouteListing = listing{
	header: "Unicast lids [0x0-0x%x] of switch Lid %d guid %s (%s):\n  Lid  Out   Destination\n       Port     Info \n",
	tail:   " (%s portguid %s: '%s')\n",
	sep:    ':',
	footer: "%d valid lids dumped \n",
	skip:   []string{"Lid", "Port"},
}

// ReadIBRoute reads the output of ibroute for every switch of fabric f
// (concatenated, in any order) into tables, the way ReadOpenSMLFTs reads
// OpenSM's dump: the LID plan comes from the port GUIDs of the entries.
func ReadIBRoute(r io.Reader, file string, f *fabric.Fabric) (*Tables, error) {
	return ibrouteListing.read(r, file, f, nil)
}
