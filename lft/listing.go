package lft

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"slimroute/fabric"
)

// listing is a text layout of forwarding tables shared by OpenSM's LFT
// dump and ibroute's output: per switch a header naming it, one line per
// routed LID with its egress port and the port GUID of its owner, and a
// footer with the count.
type listing struct {
	header string   // format of a block's header: top LID, switch LID, GUID, name
	tail   string   // format of an entry's text after the port: owner kind, port GUID, name
	sep    byte     // after the port: ' ' for none, or a separator written " :"
	footer string   // format of a block's footer: the count of entries
	skip   []string // prefixes of lines to skip, besides blank lines and the footer
}

// write writes t in the layout, one block per switch in GUID order; up to
// workers goroutines format the blocks, and the bytes are the same for
// every value.
func (l listing) write(w io.Writer, t *Tables, workers int) error {
	tails := entryTails(t, func(kind, guid, name string) string {
		return fmt.Sprintf(l.tail, kind, guid, name)
	})
	return writeBlocks(w, workers, t.SortedSwitches(), func(buf []byte, sw fabric.NodeID) []byte {
		own, _ := t.lids.Of(fabric.PortRef{Node: sw})
		buf = fmt.Appendf(buf, l.header, t.lids.top, own.Base, t.f.GUID(sw), t.f.Name(sw))
		buf, count := appendEntries(buf, t.lft[t.swIndex[sw]], tails, l.sep)
		return fmt.Appendf(buf, l.footer, count)
	})
}

// classify sorts a (trimmed) line into a header, an entry or a line to
// skip.
func (l listing) classify(line string) (lineKind, error) {
	switch {
	case line == "" || strings.HasSuffix(line, "lids dumped"):
		return skipLine, nil
	case strings.HasPrefix(line, "Unicast lids"):
		return headerLine, nil
	case strings.HasPrefix(line, "0x"):
		return entryLine, nil
	}
	for _, p := range l.skip {
		if strings.HasPrefix(line, p) {
			return skipLine, nil
		}
	}
	return 0, fmt.Errorf("unrecognised line %q", clip(line))
}

// entryTails formats, once per LID, the text after an entry's port: it
// names the LID's owner and depends on the LID only. "" for a LID no port
// holds.
func entryTails(t *Tables, format func(kind, guid, name string) string) []string {
	tails := make([]string, int(t.lids.top)+1)
	for lid := 1; lid < len(tails); lid++ {
		owner, _, ok := t.lids.Owner(LID(lid))
		if !ok {
			continue
		}
		kind := "Channel Adapter"
		if t.f.Kind(owner.Port.Node) == fabric.Switch {
			kind = "Switch"
		}
		tails[lid] = format(kind, t.f.PortGUID(owner.Port).String(), t.f.Name(owner.Port.Node))
	}
	return tails
}

// appendEntries appends "0x<lid> <port><sep><tail>" for every routed LID
// of a table and counts them.
func appendEntries(buf []byte, lft []uint8, tails []string, sep byte) ([]byte, int) {
	count := 0
	for lid := 1; lid < len(lft); lid++ {
		port := lft[lid]
		if port == Drop || tails[lid] == "" {
			continue
		}
		buf = append(buf, '0', 'x', hexDigit(lid>>12), hexDigit(lid>>8), hexDigit(lid>>4), hexDigit(lid), ' ')
		if port >= 100 {
			buf = strconv.AppendUint(buf, uint64(port), 10)
		} else {
			buf = append(buf, '0', byte('0'+port/10), byte('0'+port%10))
		}
		if sep != ' ' {
			buf = append(buf, ' ', sep)
		}
		buf = append(buf, tails[lid]...)
		count++
	}
	return buf, count
}

type lineKind int

const (
	skipLine lineKind = iota
	headerLine
	entryLine
)

// lftEntry is one table entry as read: switch, LID, egress port and the
// port GUID of the LID's owner.
type lftEntry struct {
	sw   fabric.NodeID
	lid  LID
	port uint8
	guid fabric.GUID
}

// read reads a listing — headers ("Unicast lids … guid 0x<switch GUID>
// …"), entries ("0x<LID> <port> … portguid 0x<GUID>…"), lines to skip —
// and builds the tables.
func (l listing) read(r io.Reader, file string, f *fabric.Fabric) (*Tables, error) {
	var entries []lftEntry
	cur := fabric.NodeID(-1)
	seen := map[fabric.NodeID]bool{}
	listed := map[LID]listedAt{} // the current switch's entries so far
	err := scanLines(r, file, func(ln int, line string) error {
		kind, err := l.classify(line)
		if err != nil {
			return parseError(file, ln, "%v", err)
		}
		switch kind {
		case headerLine:
			sw, err := headerSwitch(line, f)
			if err != nil {
				return parseError(file, ln, "%v", err)
			}
			if seen[sw] {
				return parseError(file, ln, "switch %s has two tables", f.Node(sw).GUID)
			}
			seen[sw], cur = true, sw
			clear(listed)
		case entryLine:
			if cur < 0 {
				return parseError(file, ln, "LFT entry before any \"Unicast lids … guid\" header")
			}
			e, err := parseEntry(line, f.Ports(cur))
			if err != nil {
				return parseError(file, ln, "%v", err)
			}
			if strings.HasSuffix(line, unknownOwner) {
				return nil // no port holds the LID: no destination, nothing to route
			}
			if first, dup := listed[e.lid]; dup {
				return parseError(file, ln, "%s lists LID 0x%04x twice: port %d at line %d, port %d here; a switch forwards a LID to one port: keep one of the lines", f.Name(cur), e.lid, first.port, first.line, e.port)
			}
			listed[e.lid] = listedAt{ln, e.port}
			e.sw = cur
			entries = append(entries, e)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, id := range f.IDsOf(fabric.Switch) {
		if !seen[id] {
			return nil, &noTableError{file, f.Node(id).Name, f.Node(id).GUID}
		}
	}
	return tablesOf(file, f, entries)
}

// listedAt is where a switch's table listed a LID, and the port.
type listedAt struct {
	line int
	port uint8
}

// noTableError says that a listing, read to its end, holds no table for a
// switch of the fabric.
type noTableError struct {
	file, name string
	guid       fabric.GUID
}

func (e *noTableError) Error() string {
	return fmt.Sprintf("%s: no table for switch %s (%s)", e.file, e.name, e.guid)
}

// unknownOwner ends an entry of OpenSM's dump for a LID that no port
// holds (a switch may keep a route to a LID whose port has left): there is
// no destination behind it, and the reader skips it.
const unknownOwner = "# unknown node and type"

// headerSwitch finds the switch a table header names by its GUID.
func headerSwitch(line string, f *fabric.Fabric) (fabric.NodeID, error) {
	i := strings.Index(line, " guid 0x")
	if i < 0 {
		return 0, fmt.Errorf("table header without \"guid 0x…\"")
	}
	g, err := parseGUID(strings.Fields(line[i+6:])[0])
	if err != nil {
		return 0, err
	}
	id, ok := f.NodeByGUID(g)
	if !ok || f.Node(id).Kind != fabric.Switch {
		return 0, fmt.Errorf("switch GUID %s is not in the fabric; are the tables and the fabric from the same subnet?", g)
	}
	return id, nil
}

// parseEntry reads "0x<LID> <port> … portguid 0x<GUID>…" of a switch with
// ports 1..ports. An entry that names no port GUID (ibroute prints none
// for a destination it could not query) gets GUID 0: its LID must be named
// by another entry.
func parseEntry(line string, ports int) (lftEntry, error) {
	fs := strings.Fields(line)
	if len(fs) < 2 {
		return lftEntry{}, fmt.Errorf("want \"0x<lid> <port>\", got %q", clip(line))
	}
	lid, err1 := strconv.ParseUint(fs[0][2:], 16, 16)
	port, err2 := strconv.Atoi(fs[1])
	if err1 != nil || err2 != nil || lid == 0 || lid > uint64(MaxUnicastLID) {
		return lftEntry{}, fmt.Errorf("want \"0x<lid> <port>\" with a unicast LID, got %q", clip(line))
	}
	if port < 0 || port > ports {
		return lftEntry{}, fmt.Errorf("port %d: the switch has ports 1..%d", port, ports)
	}
	i := strings.Index(line, "portguid")
	if i < 0 {
		return lftEntry{lid: LID(lid), port: uint8(port)}, nil
	}
	after := strings.Fields(line[i+len("portguid"):])
	if len(after) == 0 || !strings.HasPrefix(after[0], "0x") {
		return lftEntry{}, fmt.Errorf("portguid without a GUID (0x and 16 hex digits) in %q", clip(line))
	}
	g, err := parseGUID(strings.TrimRight(after[0], ":)"))
	if err != nil {
		return lftEntry{}, err
	}
	return lftEntry{lid: LID(lid), port: uint8(port), guid: g}, nil
}

// tablesOf derives the LID plan from the entries' port GUIDs and fills the
// tables.
func tablesOf(file string, f *fabric.Fabric, entries []lftEntry) (*Tables, error) {
	byGUID := portsByGUID(f)
	span := map[fabric.PortRef][2]LID{}
	for _, e := range entries {
		if e.guid == 0 {
			continue
		}
		p, ok := byGUID[e.guid]
		if !ok {
			return nil, fmt.Errorf("%s: LID 0x%04x belongs to port GUID %s, which is not in the fabric; are the tables and the fabric from the same subnet?", file, e.lid, e.guid)
		}
		s, ok := span[p]
		if !ok {
			s = [2]LID{e.lid, e.lid}
		}
		span[p] = [2]LID{min(s[0], e.lid), max(s[1], e.lid)}
	}
	lids, err := lidsFromSpans(f, span)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	b := NewBuilder(f, lids)
	for _, e := range entries {
		if _, _, ok := lids.Owner(e.lid); !ok {
			return nil, fmt.Errorf("%s: no entry names the port GUID of LID 0x%04x (%s has an entry for it), so its port is unknown", file, e.lid, f.Node(e.sw).Name)
		}
		b.LFT(e.sw)[e.lid] = e.port
	}
	return b.Tables(), nil
}

// portsByGUID maps the port GUIDs of f's LID-holding ports (switch port
// 0s and HCA ports) to the ports.
func portsByGUID(f *fabric.Fabric) map[fabric.GUID]fabric.PortRef {
	m := map[fabric.GUID]fabric.PortRef{}
	for i := range f.NumNodes() {
		id := fabric.NodeID(i)
		if f.Kind(id) == fabric.Switch {
			m[f.GUID(id)] = fabric.PortRef{Node: id}
			continue
		}
		for p := 1; p <= f.Ports(id); p++ {
			m[f.PortGUID(fabric.PortRef{Node: id, Port: p})] = fabric.PortRef{Node: id, Port: p}
		}
	}
	return m
}
