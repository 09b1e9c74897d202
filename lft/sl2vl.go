package lft

import (
	"bufio"
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
			ri, ro := real(in), real(out)
			for sl := uint8(0); sl < 16; sl += 2 {
				line = append(line, ' ', '0', 'x', hexDigit(int(t.SL2VL(sw, ri, ro, sl))), hexDigit(int(t.SL2VL(sw, ri, ro, sl+1))))
			}
			bw.Write(append(line, '\n'))
		}
	}
}

// ReadSL2VL reads SL-to-VL tables in the -d layout WriteSL2VL writes (and
// ibdmchk reads) and returns t with them; entries the file does not list
// are VL 0. A file read back from switches (smpquery sl2vl per port pair)
// in this layout is judged like our own.
func ReadSL2VL(r io.Reader, file string, t *Tables) (*Tables, error) {
	f := t.f
	full := map[fabric.NodeID][]uint8{} // per switch: [(in*(n+1)+out)*16+sl]
	sc := bufio.NewScanner(r)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sw, in, out, vls, err := parseSL2VLLine(line, f)
		if err != nil {
			return nil, &fabric.ParseError{File: file, Line: ln, Msg: err.Error()}
		}
		n := f.Node(sw).Ports
		tab, ok := full[sw]
		if !ok {
			tab = make([]uint8, (n+1)*(n+1)*16)
			full[sw] = tab
		}
		copy(tab[(in*(n+1)+out)*16:], vls[:])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	b := t.rebuild()
	b.t.vlIn = make([][]uint8, len(t.switches))
	b.t.vl = make([][][]uint8, len(t.switches))
	for s, sw := range t.switches {
		n := f.Node(sw).Ports
		b.t.vlIn[s] = make([]uint8, n+1)
		b.t.vl[s] = [][]uint8{make([]uint8, (n+1)*16)}
		tab, ok := full[sw]
		for in := 0; ok && in <= n; in++ {
			if err := b.SetSL2VL(sw, in, tab[in*(n+1)*16:(in+1)*(n+1)*16]); err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
		}
	}
	return b.Tables(), nil
}

// parseSL2VLLine reads "<switch GUID> <in> <out> 0xVV ×8".
func parseSL2VLLine(line string, f *fabric.Fabric) (fabric.NodeID, int, int, [16]uint8, error) {
	var vls [16]uint8
	fs := strings.Fields(line)
	if len(fs) != 11 {
		return 0, 0, 0, vls, fmt.Errorf("want \"<switch GUID> <in port> <out port>\" and 8 bytes 0xVV, got %d fields", len(fs))
	}
	g, err := fabric.ParseGUID(fs[0])
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
		return 0, 0, 0, vls, fmt.Errorf("ports %q %q: %s has ports 0..%d", fs[1], fs[2], f.Node(sw).Name, n)
	}
	for i, b := range fs[3:] {
		v, err := strconv.ParseUint(strings.TrimPrefix(b, "0x"), 16, 8)
		if err != nil || !strings.HasPrefix(b, "0x") || len(b) != 4 {
			return 0, 0, 0, vls, fmt.Errorf("SL2VL byte %q: want 0x and two hex digits (VLs of SLs %d and %d)", b, 2*i, 2*i+1)
		}
		vls[2*i], vls[2*i+1] = uint8(v>>4), uint8(v&15)
	}
	return sw, in, out, vls, nil
}
