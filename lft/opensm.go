package lft

import (
	"io"

	"slimroute/fabric"
)

// WriteOpenSMLFTs writes the tables in the layout of OpenSM's
// opensm-lfts.dump, which `opensm -R file -U FILE` loads:
//
//	Unicast lids [0-19] of switch Lid 1 guid 0x5346100000000000 ('sw-a'):
//	0x0004 001 # Channel Adapter portguid 0x5346200000000011: 'hca-1'
//	19 lids dumped
//
// one block per switch in GUID order, one line per routed LID with the
// destination's port GUID, so OpenSM re-bases the LID if it assigns the
// port another LID range. Every switch and every routed LID (all LMC
// offsets) is listed: the file engine drops what a file leaves out without
// a warning. Up to workers goroutines format the blocks; the bytes are the
// same for every value.
func WriteOpenSMLFTs(w io.Writer, t *Tables, workers int) error {
	return opensmListing.write(w, t, workers)
}

// opensmListing is the layout of OpenSM's LFT dump.
var opensmListing = listing{
	header: "Unicast lids [0-%d] of switch Lid %d guid %s ('%s'):\n",
	tail:   " # %s portguid %s: '%s'\n",
	sep:    ' ',
	footer: "%d lids dumped\n",
	skip:   []string{"#"},
}

// ReadOpenSMLFTs reads forwarding tables in the layout WriteOpenSMLFTs
// writes and OpenSM dumps (opensm-lfts.dump, written with -D 0x43
// --dump_files_dir DIR) and maps them onto fabric f. Every entry names its
// destination's port GUID, so the LID plan comes from the file: a port's
// LIDs are those listed with its GUID, its base LID the smallest and its
// LMC the one its LIDs span. An entry OpenSM marks "unknown node and
// type" (a LID no port holds) is skipped. Path SLs and SL2VL tables are
// left 0: read them with ReadPathSL and ReadSL2VL.
func ReadOpenSMLFTs(r io.Reader, file string, f *fabric.Fabric) (*Tables, error) {
	return opensmListing.read(r, file, f, nil)
}
