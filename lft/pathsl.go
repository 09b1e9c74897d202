package lft

import (
	"bufio"
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
	for lid := LID(0); lid <= t.lids.top; lid++ {
		if t.rowSL(a, lid) != t.rowSL(b, lid) {
			return false
		}
	}
	return true
}

// ReadPathSL reads a path-SL file in the layout WritePathSL writes and
// returns t with those path SLs: every HCA port cabled to a listed switch
// takes that switch's line; ports on unlisted switches keep SL 0.
func ReadPathSL(r io.Reader, file string, t *Tables) (*Tables, error) {
	b := t.rebuild()
	b.t.sl, b.t.slRow = nil, make([]int32, len(t.lids.ports))
	for i := range b.t.slRow {
		b.t.slRow[i] = -1
	}
	f := t.f
	rowOf := map[fabric.NodeID]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sw, first, sls, err := parsePathSLLine(line, f)
		if err != nil {
			return nil, &fabric.ParseError{File: file, Line: ln, Msg: err.Error()}
		}
		if _, dup := rowOf[sw]; dup {
			return nil, &fabric.ParseError{File: file, Line: ln, Msg: fmt.Sprintf("switch %s listed twice", f.Node(sw).GUID)}
		}
		if int(first)+len(sls)-1 > int(t.lids.top) {
			return nil, &fabric.ParseError{File: file, Line: ln, Msg: fmt.Sprintf("SLs up to LID 0x%04x, but the tables end at LID 0x%04x", int(first)+len(sls)-1, t.lids.top)}
		}
		n, row := b.AddSLRow()
		copy(row[first:], sls)
		rowOf[sw] = n
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	for _, p := range t.lids.ports {
		if peer, ok := f.Peer(p.Port); ok && p.Port.Port != 0 {
			if n, ok := rowOf[peer.Node]; ok {
				b.SetSLRow(p.Port, n)
			}
		}
	}
	return b.Tables(), nil
}

// parsePathSLLine reads "<switch GUID> 0x<first DLID> <hex SLs>".
func parsePathSLLine(line string, f *fabric.Fabric) (fabric.NodeID, LID, []uint8, error) {
	fs := strings.Fields(line)
	if len(fs) != 3 {
		return 0, 0, nil, fmt.Errorf("want \"<switch GUID> 0x<first DLID> <one hex SL per DLID>\", got %d fields", len(fs))
	}
	g, err := fabric.ParseGUID(fs[0])
	if err != nil {
		return 0, 0, nil, err
	}
	sw, ok := f.NodeByGUID(g)
	if !ok || f.Node(sw).Kind != fabric.Switch {
		return 0, 0, nil, fmt.Errorf("switch GUID %s is not in the fabric", g)
	}
	first, err := strconv.ParseUint(strings.TrimPrefix(fs[1], "0x"), 16, 16)
	if err != nil || first == 0 || !strings.HasPrefix(fs[1], "0x") {
		return 0, 0, nil, fmt.Errorf("first DLID %q: want 0x and a LID from 0x0001", fs[1])
	}
	sls := make([]uint8, len(fs[2]))
	for i, c := range []byte(fs[2]) {
		v, err := strconv.ParseUint(string(c), 16, 8)
		if err != nil {
			return 0, 0, nil, fmt.Errorf("SL %q for DLID 0x%04x: want a hex digit", c, int(first)+i)
		}
		sls[i] = uint8(v)
	}
	return sw, LID(first), sls, nil
}
