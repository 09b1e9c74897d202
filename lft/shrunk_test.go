package lft_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/lft"
)

// TestShrunkDropsWhatTheFabricLost writes the tables of a Slim Fly, takes
// one or two switches away (seeded draws), and reads the files back onto
// the smaller fabric: the gone switches are named (the GUIDs the fabric
// lost), every switch left has its table, an entry for a LID whose port
// is left is the original's (matched by GUID), the LIDs of the ports that
// went are dropped and counted, and path SLs and SL2VL tables read onto
// the result. Read the other way — onto a fabric with a switch the files
// lack — it names that switch as new.
func TestShrunkDropsWhatTheFabricLost(t *testing.T) {
	tab := programmed(t)
	f := tab.Fabric()
	files := map[string]*bytes.Buffer{}
	for _, fm := range formats {
		var b bytes.Buffer
		if err := fm.write(&b, tab); err != nil {
			t.Fatal(err)
		}
		files[fm.name] = &b
	}
	for seed := uint64(1); seed <= 12; seed++ {
		small, err := failures.Draw(f, 0, 1+int(seed%2), seed)
		if err != nil {
			t.Fatal(err)
		}
		s := lft.NewShrunk(small)
		got, err := s.ReadOpenSMLFTs(bytes.NewReader(files["opensm-lfts"].Bytes()), "lfts")
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if got, err = s.ReadPathSL(bytes.NewReader(files["path-sl"].Bytes()), "psl", got); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if got, err = s.ReadSL2VL(bytes.NewReader(files["sl2vl"].Bytes()), "sl2vl", got); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var lost []string
		for _, sw := range f.IDsOf(fabric.Switch) {
			if _, ok := small.NodeByGUID(f.GUID(sw)); !ok {
				lost = append(lost, f.GUID(sw).String())
			}
		}
		gone := s.GoneSwitches()
		if len(gone) != len(lost) {
			t.Fatalf("seed %d: gone %v, the fabric lost %v", seed, gone, lost)
		}
		for i, g := range gone {
			if !strings.Contains(g, lost[i]) {
				t.Fatalf("seed %d: gone %v, the fabric lost %v", seed, gone, lost)
			}
		}
		kept, dropped := map[lft.LID]bool{}, 0
		for _, p := range tab.LIDs().Ports() {
			q, ok := small.NodeByGUID(f.GUID(p.Port.Node))
			_, cabled := small.Peer(fabric.PortRef{Node: q, Port: p.Port.Port})
			left := ok && (small.Kind(q) == fabric.Switch || cabled)
			for l := p.Base; l <= p.Top(); l++ {
				kept[l] = left
				if !left {
					dropped++
				}
			}
		}
		if s.GoneLIDs() != dropped {
			t.Fatalf("seed %d: %d LIDs dropped, %d belong to ports the fabric lost", seed, s.GoneLIDs(), dropped)
		}
		for _, sw := range small.IDsOf(fabric.Switch) {
			orig, _ := f.NodeByGUID(small.GUID(sw))
			if got.LFT(sw) == nil {
				t.Fatalf("seed %d: no table for %s", seed, small.Name(sw))
			}
			for l := lft.LID(1); l <= tab.LIDs().Top(); l++ {
				want := uint8(lft.Drop)
				if kept[l] {
					want = tab.Port(orig, l)
				}
				if p := got.Port(sw, l); p != want {
					t.Fatalf("seed %d: %s LID %d: port %d, want %d", seed, small.Name(sw), l, p, want)
				}
			}
		}
	}
	// the other way: the files of a smaller fabric onto the whole one
	small, _ := failures.Draw(f, 0, 1, 3)
	var b bytes.Buffer
	shrunk, err := lft.NewShrunk(small).ReadOpenSMLFTs(bytes.NewReader(files["opensm-lfts"].Bytes()), "lfts")
	if err != nil {
		t.Fatal(err)
	}
	if err := lft.WriteOpenSMLFTs(&b, shrunk, 1); err != nil {
		t.Fatal(err)
	}
	_, err = lft.NewShrunk(f).ReadOpenSMLFTs(&b, "lfts")
	if err == nil || !strings.Contains(err.Error(), "is new") {
		t.Fatalf("files without a switch of the fabric: error %v", err)
	}
	// the files cut short exactly between two switches' tables read as a
	// switch the tables lack, and the error says they may be cut short
	text := files["opensm-lfts"].String()
	cut := strings.LastIndex(text[:len(text)/2], "Unicast lids")
	_, err = lft.NewShrunk(f).ReadOpenSMLFTs(strings.NewReader(text[:cut]), "lfts")
	if err == nil || !strings.Contains(err.Error(), "is new, or the previous tables were cut short") {
		t.Fatalf("files cut between two tables: error %v", err)
	}
	// a bad line half-way is the reader's error, though the switches after
	// it have no table yet
	lines := strings.Split(files["opensm-lfts"].String(), "\n")
	mid := len(lines) / 2
	lines[mid] = "0x0zz1 7 # not an entry"
	_, err = lft.NewShrunk(small).ReadOpenSMLFTs(strings.NewReader(strings.Join(lines, "\n")), "lfts")
	if err == nil || strings.Contains(err.Error(), "is new") || !strings.Contains(err.Error(), fmt.Sprint(mid+1)) {
		t.Fatalf("a bad line %d: error %v", mid+1, err)
	}
}

// corrupt returns b damaged in one of five ways, chosen and placed by
// seed: replaced by random bytes, one line replaced by random bytes,
// truncated, random bytes inserted, or one byte made a 'z'.
func corrupt(b []byte, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	junk := make([]byte, 1+rng.IntN(4000))
	for i := range junk {
		junk[i] = byte(rng.Uint32())
	}
	at := rng.IntN(len(b))
	switch seed % 5 {
	case 0:
		return junk
	case 1:
		lines := bytes.Split(b, []byte("\n"))
		lines[rng.IntN(len(lines))] = bytes.ReplaceAll(junk, []byte("\n"), nil)
		return bytes.Join(lines, []byte("\n"))
	case 2:
		return b[:at]
	case 3:
		return append(append(append([]byte(nil), b[:at]...), junk...), b[at:]...)
	}
	return append(append(append([]byte(nil), b[:at]...), 'z'), b[at+1:]...)
}

// TestShrunkReportsACorruptFileAsTheReaderDoes: each file route writes
// (LFT listing, path SLs, SL2VL), damaged (seeded: junk, a junk line,
// truncated, junk inserted, a byte made 'z'), read by Shrunk onto the
// fabric it was written for fails with the reader's own error (file and
// line) or passes as the reader does, whatever the file's size: no line
// is dropped as a gone switch's. Only an LFT listing that lacks a whole
// switch table reads as that switch being new.
func TestShrunkReportsACorruptFileAsTheReaderDoes(t *testing.T) {
	tab := programmed(t)
	f := tab.Fabric()
	files := map[string][]byte{}
	for _, fm := range formats {
		var b bytes.Buffer
		if err := fm.write(&b, tab); err != nil {
			t.Fatal(err)
		}
		files[fm.name] = b.Bytes()
	}
	base, err := lft.ReadOpenSMLFTs(bytes.NewReader(files["opensm-lfts"]), "lfts", f)
	if err != nil {
		t.Fatal(err)
	}
	// shrunk returns a Shrunk that has read the intact LFT listing, and
	// the tables it gave
	shrunk := func() (*lft.Shrunk, *lft.Tables) {
		s := lft.NewShrunk(f)
		got, err := s.ReadOpenSMLFTs(bytes.NewReader(files["opensm-lfts"]), "lfts")
		if err != nil {
			t.Fatal(err)
		}
		return s, got
	}
	readers := []struct {
		name          string
		plain, shrunk func(r io.Reader) error
	}{
		{"opensm-lfts",
			func(r io.Reader) error { _, err := lft.ReadOpenSMLFTs(r, "lfts", f); return err },
			func(r io.Reader) error { _, err := lft.NewShrunk(f).ReadOpenSMLFTs(r, "lfts"); return err }},
		{"path-sl",
			func(r io.Reader) error { _, err := lft.ReadPathSL(r, "psl", base); return err },
			func(r io.Reader) error { s, got := shrunk(); _, err := s.ReadPathSL(r, "psl", got); return err }},
		{"sl2vl",
			func(r io.Reader) error { _, err := lft.ReadSL2VL(r, "sl2vl", base); return err },
			func(r io.Reader) error { s, got := shrunk(); _, err := s.ReadSL2VL(r, "sl2vl", got); return err }},
	}
	for _, rd := range readers {
		for seed := uint64(0); seed < 64; seed++ {
			bad := corrupt(files[rd.name], seed)
			want, got := rd.plain(bytes.NewReader(bad)), rd.shrunk(bytes.NewReader(bad))
			switch {
			case want == nil && got != nil:
				t.Errorf("%s seed %d: the reader takes the file, Shrunk says %v", rd.name, seed, got)
			case want != nil && strings.Contains(want.Error(), "no table for switch"):
				if got == nil || !strings.Contains(got.Error(), "is new") {
					t.Errorf("%s seed %d: %v; Shrunk says %v, want the switch named as new", rd.name, seed, want, got)
				}
			case want != nil && (got == nil || got.Error() != want.Error()):
				t.Errorf("%s seed %d (%d bytes): Shrunk says %v, the reader %v", rd.name, seed, len(bad), got, want)
			}
		}
	}
}
