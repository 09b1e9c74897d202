package lft

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"slimroute/fabric"
)

// WriteSL2VL writes every switch's SL-to-VL tables in ibdmchk's -d
// format, which is also slimroute's: "switch-GUID in-port out-port" and
// eight bytes 0x(VL of SL 2i)(VL of SL 2i+1), for every cabled out port and
// every in port that is cabled or 0, switches in GUID order.
func WriteSL2VL(w io.Writer, t *Tables) error {
	bw := bufio.NewWriter(w)
	for _, sw := range t.SortedSwitches() {
		cabled := func(p int) bool {
			_, ok := t.f.Peer(fabric.PortRef{Node: sw, Port: p})
			return ok
		}
		writeSL2VL(bw, t, sw, t.f.Node(sw).Ports, cabled, func(p int) int { return p })
	}
	return bw.Flush()
}

// writeSL2VL writes the -d lines of switch sw with ports 1..n, for every
// cabled out port and every cabled in port or 0; real maps a listed port
// to the real port whose SL2VL it carries.
func writeSL2VL(bw *bufio.Writer, t *Tables, sw fabric.NodeID, n int, cabled func(int) bool, real func(int) int) {
	g := t.f.Node(sw).GUID.String()
	line := make([]byte, 0, 80)
	for out := 1; out <= n; out++ {
		if !cabled(out) {
			continue
		}
		for in := 0; in <= n; in++ {
			if in == out || (in != 0 && !cabled(in)) {
				continue
			}
			line = append(append(line[:0], g...), ' ')
			line = strconv.AppendInt(line, int64(in), 10)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(out), 10)
			vls := t.sl2vlRow(sw, real(in), real(out))
			for sl := 0; sl < 16; sl += 2 {
				line = append(line, ' ', '0', 'x', hexDigit(int(vls[sl])), hexDigit(int(vls[sl+1])))
			}
			bw.Write(append(line, '\n'))
		}
	}
}

// ReadSL2VL reads SL-to-VL tables in the -d layout WriteSL2VL writes (and
// ibdmchk reads), or OpenSM's opensm-sl2vl.dump, and returns t with them. The file must be complete for
// t: a row for every switch's cabled out port and every in port that is
// cabled or 0 — what WriteSL2VL writes, and what smpquery sl2vl <switch
// LID> <out port> prints for every cabled out port (its rows of in port =
// out port and of uncabled in ports are read too, and carry no traffic).
// A missing row would read as VL 0, and the routing would be judged on
// VLs no switch holds.
func ReadSL2VL(r io.Reader, file string, t *Tables) (*Tables, error) {
	return readSL2VL(r, file, t, nil)
}

// readSL2VL is ReadSL2VL with the lines filtered by keep (scanLineBytes).
func readSL2VL(r io.Reader, file string, t *Tables, keep func([]byte) []byte) (*Tables, error) {
	f := t.f
	rd := &sl2vlReader{f: f, file: file, full: make([][]uint8, f.NumNodes()), rows: make([][]int, f.NumNodes()), last: -1}
	if err := scanLineBytes(r, file, keep, rd.line); err != nil {
		return nil, err
	}
	if err := newCable(t, rd.rows, file); err != nil {
		return nil, err
	}
	if missing := missingSL2VLRows(t, rd.rows); missing != "" {
		return nil, &fabric.ParseError{File: file, Msg: "incomplete: no row for " + missing + "; the file needs a row for every cabled out port of every switch and every in port that is cabled or 0 (slimroute route writes them all; from the switches, smpquery sl2vl <switch LID> <out port> for every cabled out port): is it cut short, or from another fabric?"}
	}
	b := t.rebuild()
	b.t.vlIn = make([][]uint8, len(t.switches))
	b.t.vl = make([][][]uint8, len(t.switches))
	for s, sw := range t.switches {
		n := f.Node(sw).Ports
		b.t.vlIn[s] = make([]uint8, n+1)
		b.t.vl[s] = [][]uint8{make([]uint8, (n+1)*16)}
		tab := rd.full[sw] // a switch without cables has no rows
		for in := 0; tab != nil && in <= n; in++ {
			if err := b.SetSL2VL(sw, in, tab[in*(n+1)*16:(in+1)*(n+1)*16]); err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
		}
	}
	return b.Tables(), nil
}

// sl2vlReader collects the rows of an SL2VL file.
type sl2vlReader struct {
	f    *fabric.Fabric
	file string
	full [][]uint8 // per switch: [(in*(n+1)+out)*16+sl], nil until a row is read
	rows [][]int   // per switch: [in*(n+1)+out] → line, 0 if not listed
	dump dumpSection
	// the switch of the last row of the -d layout, by GUID (rows come
	// by switch)
	lastGUID fabric.GUID
	last     fabric.NodeID
}

// line reads line ln (trimmed).
func (rd *sl2vlReader) line(ln int, line []byte) error {
	if len(line) == 0 || line[0] == '#' {
		return nil
	}
	f := rd.f
	sw, in, out, vls, ok, err := rd.parse(line)
	if err != nil {
		return parseError(rd.file, ln, "%v", err)
	}
	if !ok {
		return nil // a header, or a row of an HCA of OpenSM's dump
	}
	n := f.Node(sw).Ports
	tab := rd.full[sw]
	if tab == nil {
		tab = make([]uint8, (n+1)*(n+1)*16)
		rd.full[sw], rd.rows[sw] = tab, make([]int, (n+1)*(n+1))
	}
	if prev := rd.rows[sw][in*(n+1)+out]; prev > 0 {
		return parseError(rd.file, ln, "%s in port %d out port %d listed twice (first at line %d); a switch maps each SL of a port pair to one VL: keep one of the rows", f.Name(sw), in, out, prev)
	}
	rd.rows[sw][in*(n+1)+out] = ln
	copy(tab[(in*(n+1)+out)*16:], vls[:])
	return nil
}

// parse reads a row as dumpSection.parse does, without allocating for a
// row of the -d layout as WriteSL2VL writes it.
func (rd *sl2vlReader) parse(line []byte) (sw fabric.NodeID, in, out int, vls [16]uint8, ok bool, err error) {
	if row, fast := fastSL2VLRow(line); fast {
		if row.guid != rd.lastGUID || rd.last < 0 {
			id, found := rd.f.NodeByGUID(row.guid)
			rd.lastGUID, rd.last = row.guid, -1
			if found && rd.f.Kind(id) == fabric.Switch {
				rd.last = id
			}
		}
		if rd.last >= 0 && row.in <= rd.f.Ports(rd.last) && row.out <= rd.f.Ports(rd.last) {
			return rd.last, row.in, row.out, row.vls, true, nil
		}
	}
	return rd.dump.parse(string(line), rd.f) // the error, or another layout
}

// sl2vlRow is a row of the -d layout.
type sl2vlRow struct {
	guid    fabric.GUID
	in, out int
	vls     [16]uint8
}

// fastSL2VLRow reads "0x<1-16 hex digits> <in> <out>" (up to 3 digits
// each) and eight " 0x<VL><VL>", single blanks between them, as
// parseSL2VLLine would; false for a line of any other shape.
func fastSL2VLRow(line []byte) (sl2vlRow, bool) {
	var row sl2vlRow
	field := func() []byte {
		i := bytes.IndexByte(line, ' ')
		if i < 0 {
			i = len(line)
		}
		b := line[:i]
		line = line[min(i+1, len(line)):]
		return b
	}
	g := field()
	v, ok := hexValue(bytes.TrimPrefix(g, []byte("0x")))
	in, ok1 := decimalValue(field())
	out, ok2 := decimalValue(field())
	if !ok || !ok1 || !ok2 || len(g) < 3 || len(g) > 18 || g[0] != '0' || g[1] != 'x' {
		return row, false
	}
	row.guid, row.in, row.out = fabric.GUID(v), int(in), int(out)
	for i := 0; i < 8; i++ {
		b := field()
		vl, ok := hexValue(b[min(2, len(b)):])
		if len(b) != 4 || b[0] != '0' || b[1] != 'x' || !ok {
			return row, false
		}
		row.vls[2*i], row.vls[2*i+1] = uint8(vl>>4), uint8(vl&15)
	}
	return row, len(line) == 0
}

// missingSL2VLRows names the first few rows of a complete file that rows
// (per switch, the line of each in*(n+1)+out) lacks, switches in GUID
// order, or "".
func missingSL2VLRows(t *Tables, rows [][]int) string {
	var names []string
	for _, sw := range t.SortedSwitches() {
		names = append(names, missingRowsOf(t, sw, rows[sw])...)
	}
	if len(names) == 0 {
		return ""
	}
	return fewOf(names, "rows or switches")
}

// newCable reports, as a *NewCableError, the first cabled port (switches
// in GUID order, ports in order) of a switch with rows that no row names,
// as in port or out port: it had no cable when the file was written.
func newCable(t *Tables, rows [][]int, file string) error {
	for _, sw := range t.SortedSwitches() {
		at := rows[sw]
		if at == nil {
			continue // no rows at all: a switch the file lacks, said below
		}
		n := t.f.Ports(sw)
		for p := 1; p <= n; p++ {
			peer, cabled := t.f.Peer(fabric.PortRef{Node: sw, Port: p})
			if cabled && !portNamed(at, n, p) {
				return &NewCableError{File: file, Port: t.f.PortString(fabric.PortRef{Node: sw, Port: p}), Peer: t.f.PortString(peer)}
			}
		}
	}
	return nil
}

// portNamed reports whether a row of a switch with ports 1..n (at: its
// rows' lines by in*(n+1)+out) names port p as in port or out port.
func portNamed(at []int, n, p int) bool {
	for q := 0; q <= n; q++ {
		if at[p*(n+1)+q] > 0 || at[q*(n+1)+p] > 0 {
			return true
		}
	}
	return false
}

// NewCableError says that a switch port is cabled in the fabric but named
// by no row of an SL2VL file that has rows for the switch: the cable was
// plugged in (or moved there) after the file was written, or the file was
// cut short within the switch's first rows.
type NewCableError struct {
	File string
	Port string // the switch port, fabric.PortString
	Peer string // what it is cabled to now
}

func (e *NewCableError) Error() string {
	return fmt.Sprintf("%s: no row names %s, which is cabled to %s: the cable is new (plugged in or moved after the file was written), or the file was cut short; the file needs its rows (slimroute route writes them all; from the switch, smpquery sl2vl <switch LID> <out port>)", e.File, e.Port, e.Peer)
}

// missingRowsOf names the rows of switch sw that at (its lines, nil when
// it has none) lacks; a switch without any row is named once.
func missingRowsOf(t *Tables, sw fabric.NodeID, at []int) []string {
	n := t.f.Ports(sw)
	cabled := func(p int) bool {
		_, ok := t.f.Peer(fabric.PortRef{Node: sw, Port: p})
		return ok
	}
	var names []string
	for out := 1; out <= n; out++ {
		for in := 0; in <= n && cabled(out); in++ {
			if in == out || (in != 0 && !cabled(in)) || (at != nil && at[in*(n+1)+out] > 0) {
				continue
			}
			if at == nil {
				return []string{fmt.Sprintf("switch %s (%s), which has none", t.f.Name(sw), t.f.GUID(sw))}
			}
			names = append(names, fmt.Sprintf("%s (%s) in port %d out port %d", t.f.Name(sw), t.f.GUID(sw), in, out))
		}
	}
	return names
}

// parseSL2VLLine reads "<switch GUID> <in> <out> 0xVV ×8".
func parseSL2VLLine(line string, f *fabric.Fabric) (fabric.NodeID, int, int, [16]uint8, error) {
	var vls [16]uint8
	fs := strings.Fields(line)
	if len(fs) != 11 {
		return 0, 0, 0, vls, fmt.Errorf("want \"<switch GUID> <in port> <out port>\" and 8 bytes 0xVV, got %d fields", len(fs))
	}
	g, err := parseGUID(fs[0])
	if err != nil {
		return 0, 0, 0, vls, err
	}
	sw, ok := f.NodeByGUID(g)
	if !ok || f.Node(sw).Kind != fabric.Switch {
		return 0, 0, 0, vls, fmt.Errorf("switch GUID %s is not in the fabric", g)
	}
	n := f.Node(sw).Ports
	in, err1 := strconv.Atoi(fs[1])
	out, err2 := strconv.Atoi(fs[2])
	if err1 != nil || err2 != nil || in < 0 || in > n || out < 0 || out > n {
		return 0, 0, 0, vls, fmt.Errorf("ports %q %q: %s has ports 0..%d", clip(fs[1]), clip(fs[2]), f.Node(sw).Name, n)
	}
	for i, b := range fs[3:] {
		v, err := strconv.ParseUint(strings.TrimPrefix(b, "0x"), 16, 8)
		if err != nil || !strings.HasPrefix(b, "0x") || len(b) != 4 {
			return 0, 0, 0, vls, fmt.Errorf("SL2VL byte %q: want 0x and two hex digits (VLs of SLs %d and %d)", clip(b), 2*i, 2*i+1)
		}
		vls[2*i], vls[2*i+1] = uint8(v>>4), uint8(v&15)
	}
	return sw, in, out, vls, nil
}

// dumpSection follows the sections of OpenSM's opensm-sl2vl.dump: a
// header "Switch 0x<GUID>, base LID <n>, "<description>"" (or "Channel
// Adapter …", "Router …") and rows "<in> <out> : <VL of SL 0> … <VL of SL
// 15>". Lines of the -d layout pass through to parseSL2VLLine.
type dumpSection struct {
	sw      fabric.NodeID
	started bool // a header was read
	skip    bool // the section is not a switch's (an HCA's egress, which no credit loop involves)
}

// parse reads one line; ok is false for a line that holds no switch row.
func (d *dumpSection) parse(line string, f *fabric.Fabric) (sw fabric.NodeID, in, out int, vls [16]uint8, ok bool, err error) {
	switch {
	case strings.HasPrefix(line, "Switch 0x"):
		g, err := parseGUID(strings.TrimSuffix(strings.Fields(line)[1], ","))
		if err != nil {
			return 0, 0, 0, vls, false, err
		}
		id, found := f.NodeByGUID(g)
		if !found || f.Node(id).Kind != fabric.Switch {
			return 0, 0, 0, vls, false, fmt.Errorf("switch GUID %s is not in the fabric (is the dump from another fabric?)", g)
		}
		d.sw, d.started, d.skip = id, true, false
		return 0, 0, 0, vls, false, nil
	case strings.HasPrefix(line, "Channel Adapter 0x") || strings.HasPrefix(line, "Router 0x"):
		d.started, d.skip = true, true
		return 0, 0, 0, vls, false, nil
	case !strings.Contains(line, ":"):
		sw, in, out, vls, err := parseSL2VLLine(line, f)
		return sw, in, out, vls, err == nil, err
	case !d.started:
		return 0, 0, 0, vls, false, errors.New("a row of OpenSM's SL2VL dump before any \"Switch 0x…\" header")
	case d.skip:
		return 0, 0, 0, vls, false, nil
	}
	in, out, vls, err = parseDumpRow(line, f.Node(d.sw))
	return d.sw, in, out, vls, err == nil, err
}

// parseDumpRow reads "<in> <out> : <16 VLs>" of switch n.
func parseDumpRow(line string, n fabric.Node) (in, out int, vls [16]uint8, err error) {
	ports, tab, _ := strings.Cut(line, ":")
	pf, vf := strings.Fields(ports), strings.Fields(tab)
	if len(pf) != 2 || len(vf) != 16 {
		return 0, 0, vls, fmt.Errorf("want \"<in port> <out port> :\" and 16 VLs (OpenSM's SL2VL dump), got %d and %d fields", len(pf), len(vf))
	}
	in, err1 := strconv.Atoi(pf[0])
	out, err2 := strconv.Atoi(pf[1])
	if err1 != nil || err2 != nil || in < 0 || in > n.Ports || out < 0 || out > n.Ports {
		return 0, 0, vls, fmt.Errorf("ports %q %q: %s has ports 0..%d", clip(pf[0]), clip(pf[1]), n.Name, n.Ports)
	}
	for sl, v := range vf {
		x, err := strconv.ParseUint(v, 10, 8)
		if err != nil || x > 15 {
			return 0, 0, vls, fmt.Errorf("VL %q of SL %d: want 0 to 15", clip(v), sl)
		}
		vls[sl] = uint8(x)
	}
	return in, out, vls, nil
}
