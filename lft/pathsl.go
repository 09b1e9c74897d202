package lft

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"slimroute/fabric"
)

// pathSLHeader opens slimroute's path-SL file.
const pathSLHeader = "# slimroute path SLs: source switch GUID, first DLID, one hex SL per DLID (for the HCA ports on that switch)\n"

// WritePathSL writes slimroute's path-SL file: the SL of every
// destination LID for the HCA ports of each switch, one line per source
// switch in GUID order:
//
//	# source-switch-GUID first-DLID SLs…
//	0x5346000000000000 0x0001 0000120…
//
// The SLs are hex digits, one per DLID from first-DLID on; every HCA port
// cabled to the switch uses them, from any of its LIDs. It fails when the
// HCA ports of one switch have different SLs, which the file cannot hold.
// Up to workers goroutines format the lines.
func WritePathSL(w io.Writer, t *Tables, workers int) error {
	rowOf, err := switchSLRows(t)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, pathSLHeader); err != nil {
		return err
	}
	var switches []fabric.NodeID
	for _, sw := range t.SortedSwitches() {
		if _, ok := rowOf[sw]; ok {
			switches = append(switches, sw)
		}
	}
	return writeBlocks(w, workers, switches, func(buf []byte, sw fabric.NodeID) []byte {
		buf = fmt.Appendf(buf, "%s 0x0001 ", t.f.Node(sw).GUID)
		row := rowOf[sw]
		for lid := LID(1); lid <= t.lids.top; lid++ {
			buf = append(buf, hexDigit(int(t.rowSL(row, lid))))
		}
		return append(buf, '\n')
	})
}

// switchSLRows finds the path-SL row of the HCA ports on each switch that
// has any.
func switchSLRows(t *Tables) (map[fabric.NodeID]int32, error) {
	rowOf := map[fabric.NodeID]int32{}
	for i, p := range t.lids.ports {
		peer, ok := t.f.Peer(p.Port)
		if p.Port.Port == 0 || !ok || t.switchIndex(peer.Node) < 0 {
			continue
		}
		row, seen := rowOf[peer.Node]
		if seen && !t.sameSLs(row, t.slRow[i]) {
			return nil, fmt.Errorf("the HCA ports on %s have different path SLs; the path-SL file holds one line per switch", t.f.Node(peer.Node).Name)
		}
		rowOf[peer.Node] = t.slRow[i]
	}
	return rowOf, nil
}

func (t *Tables) sameSLs(a, b int32) bool {
	if a == b {
		return true // the HCA ports of a switch share their row
	}
	for lid := LID(0); lid <= t.lids.top; lid++ {
		if t.rowSL(a, lid) != t.rowSL(b, lid) {
			return false
		}
	}
	return true
}

// ReadPathSL reads a path-SL file in the layout WritePathSL writes and
// returns t with those path SLs: every HCA port cabled to a listed switch
// takes that switch's line. The file must be complete for t: a line for
// every switch with HCA ports that hold LIDs, each line covering every
// LID of t's plan; a missing line or SL would read as SL 0 and another
// routing than the one the file was written for would be judged.
func ReadPathSL(r io.Reader, file string, t *Tables) (*Tables, error) {
	return readPathSL(r, file, t, nil)
}

// readPathSL is ReadPathSL with the lines filtered by keep
// (scanLineBytes).
func readPathSL(r io.Reader, file string, t *Tables, keep func([]byte) []byte) (*Tables, error) {
	b := t.rebuild()
	b.t.sl, b.t.slRow = nil, make([]int32, len(t.lids.ports))
	for i := range b.t.slRow {
		b.t.slRow[i] = -1
	}
	f := t.f
	lo, hi := t.lids.span()
	rowOf := map[fabric.NodeID]int{}
	lineOf := map[fabric.NodeID]int{}
	err := scanLineBytes(r, file, keep, func(ln int, text []byte) error {
		line := string(text) // a line per switch
		if line == "" || strings.HasPrefix(line, "#") {
			return nil
		}
		sw, first, sls, err := parsePathSLLine(line, f)
		if err != nil {
			return parseError(file, ln, "%v", err)
		}
		if prev, dup := lineOf[sw]; dup {
			return parseError(file, ln, "switch %s listed twice (first at line %d); keep one of the lines", f.Node(sw).GUID, prev)
		}
		last := LID(int(first) + len(sls) - 1)
		if int(first)+len(sls)-1 > int(t.lids.top) {
			return parseError(file, ln, "SLs up to LID 0x%04x, but the tables end at LID 0x%04x", int(first)+len(sls)-1, t.lids.top)
		}
		if first > lo || last < hi {
			return parseError(file, ln, "SLs for DLIDs 0x%04x-0x%04x, but the tables hold LIDs 0x%04x-0x%04x: is the line cut short, or written for another LID plan?", first, last, lo, hi)
		}
		n, row := b.AddSLRow()
		copy(row[first:], sls)
		rowOf[sw], lineOf[sw] = n, ln
		return nil
	})
	if err != nil {
		return nil, err
	}
	var missing []fabric.NodeID
	for _, p := range t.lids.ports {
		peer, ok := f.Peer(p.Port)
		if !ok || p.Port.Port == 0 {
			continue
		}
		n, listed := rowOf[peer.Node]
		if !listed {
			missing = append(missing, peer.Node)
			continue
		}
		b.SetSLRow(p.Port, n)
	}
	if len(missing) > 0 {
		return nil, parseError(file, 0, "incomplete: no line for %s, whose HCA ports hold LIDs; the file needs a line for every such switch (slimroute route writes them all): is it cut short, or from another fabric?", switchList(t, missing))
	}
	return b.Tables(), nil
}

// switchList names the first few of some switches (repeats dropped) as
// "name (GUID)", in GUID order, and says how many there are.
func switchList(t *Tables, sws []fabric.NodeID) string {
	set := map[fabric.NodeID]bool{}
	for _, sw := range sws {
		set[sw] = true
	}
	var names []string
	for _, sw := range t.SortedSwitches() {
		if set[sw] {
			names = append(names, fmt.Sprintf("%s (%s)", t.f.Name(sw), t.f.GUID(sw)))
		}
	}
	return fewOf(names, "switches")
}

// fewOf joins the first four of names and counts the rest.
func fewOf(names []string, what string) string {
	if len(names) <= 4 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more %s", strings.Join(names[:4], ", "), len(names)-4, what)
}

// parsePathSLLine reads "<switch GUID> 0x<first DLID> <hex SLs>".
func parsePathSLLine(line string, f *fabric.Fabric) (fabric.NodeID, LID, []uint8, error) {
	fs := strings.Fields(line)
	if len(fs) != 3 {
		return 0, 0, nil, fmt.Errorf("want \"<switch GUID> 0x<first DLID> <one hex SL per DLID>\", got %d fields", len(fs))
	}
	g, err := parseGUID(fs[0])
	if err != nil {
		return 0, 0, nil, err
	}
	sw, ok := f.NodeByGUID(g)
	if !ok || f.Node(sw).Kind != fabric.Switch {
		return 0, 0, nil, fmt.Errorf("switch GUID %s is not in the fabric", g)
	}
	first, err := strconv.ParseUint(strings.TrimPrefix(fs[1], "0x"), 16, 16)
	if err != nil || first == 0 || !strings.HasPrefix(fs[1], "0x") {
		return 0, 0, nil, fmt.Errorf("first DLID %q: want 0x and a LID from 0x0001", clip(fs[1]))
	}
	sls := make([]uint8, len(fs[2]))
	for i, c := range []byte(fs[2]) {
		v, ok := hexDigitValue(c)
		if !ok {
			return 0, 0, nil, fmt.Errorf("SL %q for DLID 0x%04x: want a hex digit", c, int(first)+i)
		}
		sls[i] = v
	}
	return sw, LID(first), sls, nil
}
