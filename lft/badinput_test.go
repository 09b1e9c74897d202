package lft_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
)

// written is the text of every format of the tables of programmed.
func written(t *testing.T, tab *lft.Tables) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, fm := range formats {
		var b bytes.Buffer
		if err := fm.write(&b, tab); err != nil {
			t.Fatal(err)
		}
		out[fm.name] = b.String()
	}
	return out
}

// dataLines lists the indexes of a text's lines that carry data: LFT
// entries, path-SL lines, SL2VL rows.
func dataLines(lines []string) []int {
	var out []int
	for i, l := range lines {
		if strings.HasPrefix(l, "0x") {
			out = append(out, i)
		}
	}
	return out
}

// withLine is the text of lines with line inserted before lines[i].
func withLine(lines []string, i int, line string) string {
	return strings.Join(slices.Insert(slices.Clone(lines), i, line), "\n")
}

// parseErrorAt requires err to be a *fabric.ParseError in file at line.
func parseErrorAt(t *testing.T, what string, err error, file string, line int, wants ...string) {
	t.Helper()
	var pe *fabric.ParseError
	if !errors.As(err, &pe) || pe.File != file || pe.Line != line {
		t.Fatalf("%s: error %v; want a *ParseError at %s:%d", what, err, file, line)
	}
	for _, w := range wants {
		if !strings.Contains(pe.Msg, w) {
			t.Fatalf("%s: %q does not say %q", what, pe.Msg, w)
		}
	}
	if len(err.Error()) > 600 {
		t.Fatalf("%s: a message of %d bytes", what, len(err.Error()))
	}
}

// TestSecondEntryForTheSameKeyIsRefusedAtItsLine copies, in seeded
// draws, a data line of every format right after itself (for the LFT
// listings with another port, for SL2VL with other VLs, and as it is):
// the reader refuses the copy at its line and names the first. A switch
// forwards a LID to one port and maps an (in, out, SL) to one VL; which
// of two lines a switch holds cannot be guessed.
func TestSecondEntryForTheSameKeyIsRefusedAtItsLine(t *testing.T) {
	tab := programmed(t)
	texts := written(t, tab)
	rng := rand.New(rand.NewPCG(8, 8))
	for _, fm := range formats {
		lines := strings.Split(texts[fm.name], "\n")
		data := dataLines(lines)
		for draw := range 20 {
			i := data[rng.IntN(len(data))]
			dup := lines[i]
			if draw%2 == 0 {
				dup = changed(fm.name, dup)
			}
			_, err := fm.read(strings.NewReader(withLine(lines, i+1, dup)), tab)
			parseErrorAt(t, fmt.Sprintf("%s: line %d copied as %q", fm.name, i+1, dup), err, fileOf(fm), i+2, fmt.Sprintf("line %d", i+1))
		}
	}
}

// changed returns a data line of a format with its value changed: another
// port, other SLs, other VLs.
func changed(format, line string) string {
	fs := strings.Fields(line)
	switch format {
	case "opensm-lfts", "ibroute":
		if fs[1] == "001" {
			fs[1] = "002"
		} else {
			fs[1] = "001"
		}
	case "path-sl":
		fs[2] = strings.Repeat("f", len(fs[2]))
	case "sl2vl":
		fs[3] = "0xee"
	}
	return strings.Join(fs, " ")
}

// fileOf is the file name the reader of a format is given in formats.
func fileOf(fm format) string {
	return map[string]string{"opensm-lfts": "lfts", "ibroute": "ibroute", "path-sl": "psl", "sl2vl": "sl2vl"}[fm.name]
}

// TestLongLinesAreRefusedAtTheirLineWithoutEcho inserts, at seeded
// places in every format, a line of 70 000 bytes (under the readers'
// limit, but no data line is that long) and one of 2 MB (over it): a
// *ParseError at that line, in a message of a few hundred bytes, not the
// line echoed or the scanner's "token too long" without a line number.
func TestLongLinesAreRefusedAtTheirLineWithoutEcho(t *testing.T) {
	tab := programmed(t)
	texts := written(t, tab)
	rng := rand.New(rand.NewPCG(14, 1))
	for _, fm := range formats {
		lines := strings.Split(texts[fm.name], "\n")
		for _, long := range []string{"0x0002 " + strings.Repeat("7", 70_000), strings.Repeat("x", 2<<20)} {
			for range 3 {
				i := rng.IntN(len(lines))
				_, err := fm.read(strings.NewReader(withLine(lines, i, long)), tab)
				parseErrorAt(t, fmt.Sprintf("%s: %d bytes at line %d", fm.name, len(long), i+1), err, fileOf(fm), i+1)
			}
		}
	}
}

// TestIncompletePathSLAndSL2VLFilesAreRefused drops from the path-SL and
// SL2VL files what a complete file holds — a switch's line or rows, the
// file's tail (as head would), a path-SL line's last SLs — in seeded
// draws: the reader refuses the file, naming it and what is missing.
// Without the check the missing SLs and VLs read as 0, and the verifier
// then blames the routing for a credit loop. A complete file with more
// than it needs (SL2VL rows of in port = out port, rows of uncabled in
// ports, as smpquery prints them) is read as before.
func TestIncompletePathSLAndSL2VLFilesAreRefused(t *testing.T) {
	tab := programmed(t)
	texts := written(t, tab)
	rng := rand.New(rand.NewPCG(7, 7))
	for _, name := range []string{"path-sl", "sl2vl"} {
		fm := formats[map[string]int{"path-sl": 2, "sl2vl": 3}[name]]
		lines := strings.Split(texts[name], "\n")
		data := dataLines(lines)
		for draw := range 12 {
			i := data[rng.IntN(len(data))]
			sw := strings.Fields(lines[i])[0]
			var out []string
			what := ""
			switch draw % 3 {
			case 0: // every line of one switch
				for _, l := range lines {
					if !strings.HasPrefix(l, sw+" ") {
						out = append(out, l)
					}
				}
				what = "without " + sw
			case 1: // cut after line i
				out = lines[:i+1]
				what = fmt.Sprintf("cut after line %d", i+1)
			case 2: // one line, or a path-SL line's tail
				out = append([]string(nil), lines...)
				if name == "path-sl" {
					fs := strings.Fields(lines[i])
					out[i] = fs[0] + " " + fs[1] + " " + fs[2][:rng.IntN(len(fs[2]))]
				} else {
					out = append(out[:i:i], lines[i+1:]...)
				}
				what = fmt.Sprintf("line %d cut", i+1)
			}
			_, err := fm.read(strings.NewReader(strings.Join(out, "\n")), tab)
			var pe *fabric.ParseError
			if !errors.As(err, &pe) || pe.File != fileOf(fm) || !strings.Contains(pe.Msg, "0x") {
				t.Fatalf("%s %s: error %v; want a *ParseError in %s naming what is missing", name, what, err, fileOf(fm))
			}
			if len(err.Error()) > 800 {
				t.Fatalf("%s %s: a message of %d bytes", name, what, len(err.Error()))
			}
		}
	}
	// SL2VL as read back from the switches: a row for every in port,
	// cabled or not, and in = out
	var extra strings.Builder
	extra.WriteString(texts["sl2vl"])
	f := tab.Fabric()
	for _, sw := range tab.SortedSwitches() {
		for p := 1; p <= f.Ports(sw); p++ {
			fmt.Fprintf(&extra, "%s %d %d 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00\n", f.GUID(sw), p, p)
		}
	}
	if _, err := lft.ReadSL2VL(strings.NewReader(extra.String()), "sl2vl", tab); err != nil {
		t.Fatalf("rows of in = out: %v", err)
	}
}

// TestAnEntrysPortGUIDMustBeAGUID: in seeded draws, the port GUID of an
// entry of an OpenSM LFT listing is replaced by a word that is none
// ("GARBAGE", "49152", "0x", an empty word): the reader refuses the entry
// at its line. An entry without "portguid" at all (ibroute prints none
// for a destination it could not query) stays readable.
func TestAnEntrysPortGUIDMustBeAGUID(t *testing.T) {
	tab := programmed(t)
	text := written(t, tab)["opensm-lfts"]
	lines := strings.Split(text, "\n")
	entries := dataLines(lines)
	rng := rand.New(rand.NewPCG(41, 0))
	for range 60 {
		i := entries[rng.IntN(len(entries))]
		j := strings.Index(lines[i], "portguid ") + len("portguid ")
		end := j + strings.IndexByte(lines[i][j:], ':')
		bad := []string{"GARBAGE", "49152", "", "guid"}[rng.IntN(4)]
		edited := slices.Clone(lines)
		edited[i] = lines[i][:j] + bad + lines[i][end:]
		_, err := lft.ReadOpenSMLFTs(strings.NewReader(strings.Join(edited, "\n")), "lfts.txt", tab.Fabric())
		parseErrorAt(t, fmt.Sprintf("%q", edited[i]), err, "lfts.txt", i+1, "portguid without a GUID")
	}
}

// TestAnEntryNextToTheFastPathIsRefusedAtItsLine: in seeded draws, one
// entry of an OpenSM LFT listing is made into a line the readers' fast
// path almost takes — a port past the switch's, a port or LID with a
// letter, a port GUID of 17 digits, the entry before it on another port
// (the same LID, the same text after the port) — and read through
// Shrunk, as route
// --previous reads it: refused at its line, saying what is wrong.
func TestAnEntryNextToTheFastPathIsRefusedAtItsLine(t *testing.T) {
	tab := programmed(t)
	lines := strings.Split(written(t, tab)["opensm-lfts"], "\n")
	entries := dataLines(lines)
	rng := rand.New(rand.NewPCG(43, 0))
	for range 80 {
		i := entries[1+rng.IntN(len(entries)-1)]
		l := lines[i]
		edited := slices.Clone(lines)
		var want string
		switch rng.IntN(5) {
		case 0:
			edited[i], want = l[:7]+"250"+l[10:], "port 250"
		case 1:
			edited[i], want = l[:7]+"0x1"+l[10:], "want \"0x<lid> <port>\""
		case 2:
			edited[i], want = l[:2]+"00g1"+l[6:], "want \"0x<lid> <port>\""
		case 3:
			j := strings.Index(l, "portguid 0x") + len("portguid 0x")
			edited[i], want = l[:j]+"1"+l[j:], "invalid GUID"
		case 4:
			if !strings.HasPrefix(lines[i-1], "0x") {
				continue // the first entry of a table
			}
			edited[i], want = lines[i-1][:7]+"001"+lines[i-1][10:], "twice"
		}
		_, err := lft.NewShrunk(tab.Fabric()).ReadOpenSMLFTs(strings.NewReader(strings.Join(edited, "\n")), "lfts.txt")
		parseErrorAt(t, fmt.Sprintf("%q", edited[i]), err, "lfts.txt", i+1, want)
	}
}
