package lft_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"slimroute/deadlock"
	"slimroute/fabric"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/slimfly"
)

// programmed routes a small Slim Fly (q=3) in 2 layers with hop-indexed
// VLs: SLs and SL2VL tables that are not all 0.
func programmed(t testing.TB) *lft.Tables {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: 3})
	if err != nil {
		t.Fatal(err)
	}
	return tablesOn(t, f)
}

// tablesOn routes f (2 layers, hop-indexed VLs, LMC 1) into tables.
func tablesOn(t testing.TB, f *fabric.Fabric) *lft.Tables {
	t.Helper()
	r, err := layers.Compute(f, layers.Options{Layers: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a, err := deadlock.AssignHops(r, deadlock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: 1})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := lft.Build(f, lids, r, a, 2)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// format is one text format of the forwarding state: its writer, and its
// reader, which adds what it reads to base (the LFT readers ignore base and
// derive the LID plan from the file).
type format struct {
	name  string
	write func(io.Writer, *lft.Tables) error
	read  func(r io.Reader, base *lft.Tables) (*lft.Tables, error)
}

var formats = []format{
	{"opensm-lfts", func(w io.Writer, t *lft.Tables) error { return lft.WriteOpenSMLFTs(w, t, 2) },
		func(r io.Reader, base *lft.Tables) (*lft.Tables, error) {
			return lft.ReadOpenSMLFTs(r, "lfts", base.Fabric())
		}},
	{"ibroute", func(w io.Writer, t *lft.Tables) error { return lft.WriteIBRoute(w, t, 2) },
		func(r io.Reader, base *lft.Tables) (*lft.Tables, error) {
			return lft.ReadIBRoute(r, "ibroute", base.Fabric())
		}},
	{"path-sl", func(w io.Writer, t *lft.Tables) error { return lft.WritePathSL(w, t, 2) },
		func(r io.Reader, base *lft.Tables) (*lft.Tables, error) { return lft.ReadPathSL(r, "psl", base) }},
	{"sl2vl", lft.WriteSL2VL,
		func(r io.Reader, base *lft.Tables) (*lft.Tables, error) { return lft.ReadSL2VL(r, "sl2vl", base) }},
}

// TestEveryFormatReadsBackWhatItWrote writes the tables in each format,
// reads the text back and writes it again: the same bytes, and for the LFT
// formats the same tables and LID plan.
func TestEveryFormatReadsBackWhatItWrote(t *testing.T) {
	tab := programmed(t)
	for _, fm := range formats {
		t.Run(fm.name, func(t *testing.T) {
			var first bytes.Buffer
			if err := fm.write(&first, tab); err != nil {
				t.Fatal(err)
			}
			back, err := fm.read(bytes.NewReader(first.Bytes()), tab)
			if err != nil {
				t.Fatal(err)
			}
			var second bytes.Buffer
			if err := fm.write(&second, back); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first.Bytes(), second.Bytes()) {
				t.Fatalf("written again, %d bytes became %d", first.Len(), second.Len())
			}
			if d := lft.DiffLFTs(tab, back, 3); len(d) > 0 {
				t.Fatalf("tables differ: %v", d)
			}
			for i, p := range tab.LIDs().Ports() {
				if q, ok := back.LIDs().Of(p.Port); !ok || q != p {
					t.Fatalf("port %d: LIDs %+v read back as %+v", i, p, q)
				}
			}
		})
	}
}

// TestEntriesForUnheldLIDsAreSkipped inserts, after every tenth entry of
// an LFT dump, an entry of the kind OpenSM writes for a LID that no port
// holds ("0x<lid> <port> # unknown node and type"), for LIDs above the
// plan's: the tables read back are the original's.
func TestEntriesForUnheldLIDsAreSkipped(t *testing.T) {
	tab := programmed(t)
	var buf bytes.Buffer
	if err := lft.WriteOpenSMLFTs(&buf, tab, 2); err != nil {
		t.Fatal(err)
	}
	top := tab.LIDs().Ports()[len(tab.LIDs().Ports())-1].Top()
	var out []string
	n := 0
	for _, line := range strings.Split(buf.String(), "\n") {
		out = append(out, line)
		if strings.HasPrefix(line, "0x") {
			if n++; n%10 == 0 {
				out = append(out, fmt.Sprintf("0x%04x %03d # unknown node and type", int(top)+1+n%7, 1+n%3))
			}
		}
	}
	back, err := lft.ReadOpenSMLFTs(strings.NewReader(strings.Join(out, "\n")), "lfts", tab.Fabric())
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("%d entries", n)
	}
	if d := lft.DiffLFTs(tab, back, 3); len(d) > 0 {
		t.Fatalf("tables differ: %v", d)
	}
}

// TestReadersAddOnlyTheirPart checks that the SL and SL2VL readers carry
// exactly what the files hold into tables read from an LFT dump (whose SLs
// and VLs are 0): every PathSL and SL2VL entry equals the original's.
func TestReadersAddOnlyTheirPart(t *testing.T) {
	tab := programmed(t)
	var lfts, psl, sl2vl bytes.Buffer
	lft.WriteOpenSMLFTs(&lfts, tab, 1)
	lft.WritePathSL(&psl, tab, 1)
	lft.WriteSL2VL(&sl2vl, tab)
	got, err := lft.ReadOpenSMLFTs(&lfts, "lfts", tab.Fabric())
	if err != nil {
		t.Fatal(err)
	}
	if got, err = lft.ReadPathSL(&psl, "psl", got); err != nil {
		t.Fatal(err)
	}
	if got, err = lft.ReadSL2VL(&sl2vl, "sl2vl", got); err != nil {
		t.Fatal(err)
	}
	f := tab.Fabric()
	nonzero := 0
	for _, p := range tab.LIDs().Ports() {
		for dlid := lft.LID(1); dlid <= tab.LIDs().Top(); dlid++ {
			if a, b := tab.PathSL(p.Port, dlid), got.PathSL(p.Port, dlid); a != b {
				t.Fatalf("%s to LID %d: SL %d read back as %d", f.PortString(p.Port), dlid, a, b)
			}
			if tab.PathSL(p.Port, dlid) != 0 {
				nonzero++
			}
		}
	}
	for _, sw := range tab.Switches() {
		n := f.Node(sw).Ports
		for in := 0; in <= n; in++ {
			for out := 1; out <= n; out++ {
				_, cabledIn := f.Peer(fabric.PortRef{Node: sw, Port: in})
				_, cabledOut := f.Peer(fabric.PortRef{Node: sw, Port: out})
				if in == out || !cabledOut || (in != 0 && !cabledIn) {
					continue // not in the file
				}
				for sl := uint8(0); sl < 16; sl++ {
					if a, b := tab.SL2VL(sw, in, out, sl), got.SL2VL(sw, in, out, sl); a != b {
						t.Fatalf("%s %d->%d SL %d: VL %d read back as %d", f.Node(sw).Name, in, out, sl, a, b)
					}
				}
			}
		}
	}
	if nonzero == 0 {
		t.Fatal("every path SL is 0: the test proves nothing")
	}
}

// fuzzFormat fuzzes one reader: no panic, and whatever it accepts is
// written and read again to the same bytes.
func fuzzFormat(f *testing.F, fm format) {
	tab := programmed(f)
	var seed bytes.Buffer
	fm.write(&seed, tab)
	f.Add(seed.Bytes())
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		back, err := fm.read(bytes.NewReader(data), tab)
		if err != nil {
			return
		}
		var once, twice bytes.Buffer
		if err := fm.write(&once, back); err != nil {
			return // e.g. a path-SL file whose HCAs on one switch differ cannot be written
		}
		again, err := fm.read(bytes.NewReader(once.Bytes()), tab)
		if err != nil {
			t.Fatalf("what the reader accepted, written again, is refused: %v\n%s", err, once.String())
		}
		fm.write(&twice, again)
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatal("a second round trip changed the text")
		}
	})
}

func FuzzReadOpenSMLFTs(f *testing.F) { fuzzFormat(f, formats[0]) }
func FuzzReadIBRoute(f *testing.F)    { fuzzFormat(f, formats[1]) }
func FuzzReadPathSL(f *testing.F)     { fuzzFormat(f, formats[2]) }
func FuzzReadSL2VL(f *testing.F)      { fuzzFormat(f, formats[3]) }
