package lft

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"slimroute/fabric"
)

// Dump holds forwarding tables as listed in text: per switch GUID, the
// egress port of every listed LID.
type Dump map[fabric.GUID]map[LID]uint8

// ReadDump reads forwarding tables in any of the layouts OpenSM and the
// diagnostics use: opensm-lfts.dump (and slimroute's opensm-lfts.txt), or
// the output of ibroute. Blocks start with a line containing
// "guid 0x<switch GUID>"; entries are "0x<LID> <port>" (ibroute puts " :"
// after the port).
func ReadDump(r io.Reader, file string) (Dump, error) {
	d := Dump{}
	var cur map[LID]uint8
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		t := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(t, "Unicast lids"):
			i := strings.Index(t, " guid 0x")
			if i < 0 {
				return nil, &fabric.ParseError{File: file, Line: ln, Msg: "table header without \"guid 0x…\""}
			}
			g, err := fabric.ParseGUID(strings.Fields(t[i+6:])[0])
			if err != nil {
				return nil, &fabric.ParseError{File: file, Line: ln, Msg: err.Error()}
			}
			if _, dup := d[g]; dup {
				return nil, &fabric.ParseError{File: file, Line: ln, Msg: fmt.Sprintf("switch %s listed twice", g)}
			}
			cur = map[LID]uint8{}
			d[g] = cur
		case strings.HasPrefix(t, "0x"):
			if cur == nil {
				return nil, &fabric.ParseError{File: file, Line: ln, Msg: "entry before any \"Unicast lids … guid\" header"}
			}
			f := strings.Fields(t)
			if len(f) < 2 {
				return nil, &fabric.ParseError{File: file, Line: ln, Msg: "want \"0x<lid> <port>\""}
			}
			lid, err1 := strconv.ParseUint(f[0][2:], 16, 16)
			port, err2 := strconv.ParseUint(f[1], 10, 8)
			if err1 != nil || err2 != nil {
				return nil, &fabric.ParseError{File: file, Line: ln, Msg: fmt.Sprintf("want \"0x<lid> <port>\", got %q", t)}
			}
			cur[LID(lid)] = uint8(port)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return d, nil
}

// Diff compares the tables with t for every switch and every LID t routes,
// and returns up to max differences, each as a sentence.
func (d Dump) Diff(t *Tables, max int) []string {
	var out []string
	f := t.Fabric
	for _, sw := range t.sortedSwitches() {
		n := f.Node(sw)
		got, ok := d[n.GUID]
		if !ok {
			out = append(out, fmt.Sprintf("%s (%s): no table", n.Name, n.GUID))
			continue
		}
		lft := t.LFT(sw)
		for lid := 1; lid < len(lft); lid++ {
			want := lft[lid]
			g, listed := got[LID(lid)]
			if want == Drop && !listed {
				continue
			}
			if !listed || g != want {
				gs := "none"
				if listed {
					gs = fmt.Sprint(g)
				}
				out = append(out, fmt.Sprintf("%s LID 0x%04x: port %s, want %d", n.Name, lid, gs, want))
			}
			if len(out) >= max {
				return out
			}
		}
	}
	return out
}
