package lft

import (
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/slimfly"
)

// The readers take a fast path for lines as the writers write them and
// hand every other line to the general parser. These fuzz targets hold
// the fast path to the general parser's reading of every line it takes.

// FuzzFastEntryReadsAsParseEntry: a line fastEntry reads is an entry
// parseEntry reads alike, without an error.
func FuzzFastEntryReadsAsParseEntry(f *testing.F) {
	for _, s := range []string{
		"0x0004 001 # Channel Adapter portguid 0x5346200000000011: 'hca-1'",
		"0x00ff 017 # Switch portguid 0x5346000000000000: 'sw-0-0-0'",
		"0xBFFF 255 : (Channel Adapter portguid 0x0000000000000001: 'a b')",
		"0x0010 003 # portguid 0x1)",
		"0x0010 003",
		"0x0010 003 # unknown node and type",
		"0x0010 003 portguid 0x12345678901234567: 'x'",
		"0x0010 -03 portguid 0x1: 'x'",
		"0x0010 003 portguid  0x1: 'x'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		fast, ok := fastEntry([]byte(line))
		if !ok {
			return
		}
		want, err := parseEntry(line, 255)
		if err != nil || fast != want {
			t.Fatalf("%q: the fast path reads %+v, parseEntry %+v, %v", line, fast, want, err)
		}
	})
}

// FuzzFastSL2VLRowReadsAsParseSL2VLLine: a row fastSL2VLRow reads, of a
// switch of the fabric with the ports it names, parseSL2VLLine reads alike,
// without an error.
func FuzzFastSL2VLRowReadsAsParseSL2VLLine(f *testing.F) {
	fab, err := slimfly.Build(slimfly.Params{Q: 3})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"0x5346000000000000 0 1 0x01 0x23 0x45 0x67 0x89 0xab 0xcd 0xef",
		"0x5346000000000000 3 12 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0xFF",
		"0x5346000000000000 03 1 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00",
		"0x5346000000000000 0 1 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x0",
		"0x1 0 1 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00",
		"0x5346000000000000 0 1 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		row, ok := fastSL2VLRow([]byte(line))
		if !ok {
			return
		}
		sw, found := fab.NodeByGUID(row.guid)
		if !found || row.in > fab.Ports(sw) || row.out > fab.Ports(sw) {
			return // the reader hands it to the general parser
		}
		gsw, in, out, vls, err := parseSL2VLLine(line, fab)
		if err != nil || gsw != sw || in != row.in || out != row.out || vls != row.vls {
			t.Fatalf("%q: the fast path reads %+v, parseSL2VLLine %v %d %d %v, %v", line, row, gsw, in, out, vls, err)
		}
	})
}

// FuzzReaderParsesEntriesAsParseEntry: the reader's parse, which takes
// the owner of an entry whose text after the port is that of its LID's
// first entry from that entry, reads two lines in turn as parseEntry reads
// each (an error for an error), of the lines it takes for entries.
func FuzzReaderParsesEntriesAsParseEntry(f *testing.F) {
	f.Add("0x0004 001 # Channel Adapter portguid 0x5346200000000011: 'hca-1'", "0x0004 017 # Channel Adapter portguid 0x5346200000000011: 'hca-1'")
	f.Add("0x0004 001 # Channel Adapter portguid 0x5346200000000011: 'hca-1'", "0x0004 17 # Channel Adapter portguid 0x5346200000000011: 'hca-1'")
	f.Add("0x0004 001", "0x0004 002")
	f.Add("0x0004 001 portguid 0x1", "0x0004 300 portguid 0x1")
	f.Fuzz(func(t *testing.T, first, second string) {
		rd := &listingReader{known: make([]knownTail, MaxUnicastLID+1)}
		for _, line := range []string{first, second} {
			if !strings.HasPrefix(line, "0x") {
				continue // not an entry (the reader's classify)
			}
			got, err := rd.parse([]byte(line), 254)
			want, werr := parseEntry(line, 254)
			if got != want || (err == nil) != (werr == nil) {
				t.Fatalf("%q after %q: the reader reads %+v, %v; parseEntry %+v, %v", line, first, got, err, want, werr)
			}
		}
	})
}

// TestSL2VLRowIsSL2VL: the row the writers, MaxVL and Sent look up once
// per port pair is what SL2VL gives for each SL, for every in and out port
// of every switch and HCA and a few ports that are none.
func TestSL2VLRowIsSL2VL(t *testing.T) {
	fab, err := slimfly.Build(slimfly.Params{Q: 3})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(fab, mustLIDs(t, fab))
	for i, sw := range fab.IDsOf(fabric.Switch) {
		n := fab.Ports(sw)
		for in := 0; in <= n; in++ {
			vls := make([]uint8, (n+1)*16)
			for j := range vls {
				vls[j] = uint8((i + in + j) % 16)
			}
			if err := b.SetSL2VL(sw, in, vls); err != nil {
				t.Fatal(err)
			}
		}
	}
	tab := b.Tables()
	for id := range fabric.NodeID(fab.NumNodes()) {
		for in := -1; in <= fab.Ports(id)+1; in++ {
			for out := -1; out <= fab.Ports(id)+1; out++ {
				row := tab.sl2vlRow(id, in, out)
				for sl := range uint8(16) {
					if row[sl] != tab.SL2VL(id, in, out, sl) {
						t.Fatalf("%s in %d out %d SL %d: row %d, SL2VL %d", fab.Name(id), in, out, sl, row[sl], tab.SL2VL(id, in, out, sl))
					}
				}
			}
		}
	}
}

// mustLIDs assigns f's LIDs, LMC 0.
func mustLIDs(t *testing.T, f *fabric.Fabric) *LIDs {
	t.Helper()
	lids, err := AssignLIDs(f, LIDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return lids
}
