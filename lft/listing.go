package lft

import (
	"bytes"
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
func (l listing) classify(line []byte) (lineKind, error) {
	switch {
	case len(line) == 0 || bytes.HasSuffix(line, []byte("lids dumped")):
		return skipLine, nil
	case bytes.HasPrefix(line, []byte("Unicast lids")):
		return headerLine, nil
	case bytes.HasPrefix(line, []byte("0x")):
		return entryLine, nil
	}
	for _, p := range l.skip {
		if bytes.HasPrefix(line, []byte(p)) {
			return skipLine, nil
		}
	}
	return 0, fmt.Errorf("unrecognised line %q", clip(string(line)))
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

// lftEntry is one table entry as read: LID, egress port and the port GUID
// of the LID's owner (0: the entry names none).
type lftEntry struct {
	lid  LID
	port uint8
	guid fabric.GUID
}

// read reads a listing — headers ("Unicast lids … guid 0x<switch GUID>
// …"), entries ("0x<LID> <port> … portguid 0x<GUID>…"), lines to skip —
// and builds the tables. It takes time linear in the file and keeps 3
// bytes per entry until the tables are built (q = 11: 2.2 million
// entries, 156 MB).
// keep filters the lines (scanLineBytes; nil: none is dropped).
func (l listing) read(r io.Reader, file string, f *fabric.Fabric, keep func([]byte) []byte) (*Tables, error) {
	rd := &listingReader{l: l, file: file, f: f, seen: make([]bool, f.NumNodes()), listed: make([]listedAt, MaxUnicastLID+1),
		owners: lidOwners{first: make([]fabric.GUID, MaxUnicastLID+1)}, known: make([]knownTail, MaxUnicastLID+1)}
	if err := scanLineBytes(r, file, keep, rd.line); err != nil {
		return nil, err
	}
	for _, id := range f.IDsOf(fabric.Switch) {
		if !rd.seen[id] {
			return nil, &noTableError{file, f.Node(id).Name, f.Node(id).GUID}
		}
	}
	return rd.tables()
}

// listingReader is the state of reading a listing: the tables read so
// far, in file order, and what the next line is checked against.
type listingReader struct {
	l      listing
	file   string
	f      *fabric.Fabric
	seen   []bool        // per node: its table was read
	blocks []listedTable // in file order; the last is the current one
	listed []listedAt    // per LID: where the current table lists it (line 0: not yet)
	owners lidOwners
	known  []knownTail // per LID: its first entry's text after the port, read by fastEntry
}

// knownTail is the text after the port of a LID's first entry, and the
// owner it names.
type knownTail struct {
	tail []byte
	guid fabric.GUID
}

// parse reads an entry of a switch with ports 1..ports as parseEntry
// does, without allocating for an entry as the writers write it ("0x0004
// 001 # … portguid 0x…: …"). An entry whose text after the port is that
// of its LID's first entry names the same owner, which is not read again:
// every table lists a LID with the same text.
func (rd *listingReader) parse(line []byte, ports int) (lftEntry, error) {
	e, ok := fastPrefix(line)
	if !ok || int(e.port) > ports {
		return parseEntry(string(line), ports)
	}
	if k := &rd.known[e.lid]; k.tail != nil && bytes.Equal(line[entryPrefix:], k.tail) {
		e.guid = k.guid
		return e, nil
	}
	if e, ok = fastEntry(line); !ok {
		return parseEntry(string(line), ports)
	}
	if k := &rd.known[e.lid]; k.tail == nil {
		*k = knownTail{bytes.Clone(line[entryPrefix:]), e.guid}
	}
	return e, nil
}

// listedTable is one switch's table as read, entries in file order.
type listedTable struct {
	sw    fabric.NodeID
	lids  []LID
	ports []uint8
}

// line reads line ln (trimmed).
func (rd *listingReader) line(ln int, line []byte) error {
	kind, err := rd.l.classify(line)
	if err != nil {
		return parseError(rd.file, ln, "%v", err)
	}
	switch kind {
	case headerLine:
		return rd.header(ln, line)
	case entryLine:
		return rd.entry(ln, line)
	}
	return nil
}

// header starts the table of the switch a header line names.
func (rd *listingReader) header(ln int, line []byte) error {
	f := rd.f
	sw, err := headerSwitch(string(line), f)
	if err != nil {
		return parseError(rd.file, ln, "%v", err)
	}
	if rd.seen[sw] {
		return parseError(rd.file, ln, "switch %s has two tables", f.Node(sw).GUID)
	}
	rd.seen[sw] = true
	size := 0
	if n := len(rd.blocks); n > 0 {
		for _, lid := range rd.blocks[n-1].lids {
			rd.listed[lid] = listedAt{}
		}
		size = len(rd.blocks[n-1].lids) // tables are alike in size: grow once
	}
	rd.blocks = append(rd.blocks, listedTable{sw: sw, lids: make([]LID, 0, size), ports: make([]uint8, 0, size)})
	return nil
}

// entry adds an entry line to the current table.
func (rd *listingReader) entry(ln int, line []byte) error {
	n := len(rd.blocks)
	if n == 0 {
		return parseError(rd.file, ln, "LFT entry before any \"Unicast lids … guid\" header")
	}
	cur := &rd.blocks[n-1]
	e, err := rd.parse(line, rd.f.Ports(cur.sw))
	if err != nil {
		return parseError(rd.file, ln, "%v", err)
	}
	if bytes.HasSuffix(line, []byte(unknownOwner)) {
		return nil // no port holds the LID: no destination, nothing to route
	}
	if first := rd.listed[e.lid]; first.line > 0 {
		return parseError(rd.file, ln, "%s lists LID 0x%04x twice: port %d at line %d, port %d here; a switch forwards a LID to one port: keep one of the lines", rd.f.Name(cur.sw), e.lid, first.port, first.line, e.port)
	}
	rd.listed[e.lid] = listedAt{ln, e.port}
	cur.lids, cur.ports = append(cur.lids, e.lid), append(cur.ports, e.port)
	rd.owners.add(e)
	return nil
}

// lidOwners collects the distinct (LID, owner's port GUID) pairs the
// entries name, in the order they first appear: every table names the
// same owners, and the LID plan needs each pair once.
type lidOwners struct {
	first []fabric.GUID     // per LID: the first GUID named, 0 if none yet
	more  map[lftEntry]bool // the pairs of LIDs named with another GUID first
	pairs []lftEntry        // port left 0
}

// add notes the pair an entry names, if it names one.
func (o *lidOwners) add(e lftEntry) {
	if e.guid == 0 {
		return // its LID's owner is named by another entry, or by none
	}
	switch o.first[e.lid] {
	case e.guid:
		return
	case 0:
		o.first[e.lid] = e.guid
	default:
		k := lftEntry{lid: e.lid, guid: e.guid}
		if o.more[k] {
			return
		}
		if o.more == nil {
			o.more = map[lftEntry]bool{}
		}
		o.more[k] = true
	}
	o.pairs = append(o.pairs, lftEntry{lid: e.lid, guid: e.guid})
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

// entryPrefix is the length of an entry's LID and port as the writers
// write them: "0x0004 001".
const entryPrefix = len("0x0004 001")

// fastPrefix reads "0x<4 hex digits> <3 digits>" and a blank or the end,
// as parseEntry reads the LID and port; false for a line of any other
// shape.
func fastPrefix(line []byte) (lftEntry, bool) {
	if len(line) < entryPrefix || line[0] != '0' || line[1] != 'x' || line[6] != ' ' || (len(line) > entryPrefix && line[entryPrefix] != ' ') {
		return lftEntry{}, false
	}
	lid, ok1 := hexValue(line[2:6])
	port, ok2 := decimalValue(line[7:entryPrefix])
	if !ok1 || !ok2 || lid == 0 || lid > uint64(MaxUnicastLID) || port > 255 {
		return lftEntry{}, false
	}
	return lftEntry{lid: LID(lid), port: uint8(port)}, true
}

// fastEntry reads fastPrefix, then after the first "portguid" " 0x<1-16
// hex digits>" and any ':' or ')' up to a blank or the end, as parseEntry
// would; false for a line of any other shape.
func fastEntry(line []byte) (lftEntry, bool) {
	e, ok := fastPrefix(line)
	if !ok {
		return lftEntry{}, false
	}
	i := bytes.Index(line, []byte("portguid"))
	if i < 0 {
		return e, true
	}
	rest := line[i+len("portguid"):]
	if len(rest) < 4 || rest[0] != ' ' || rest[1] != '0' || rest[2] != 'x' {
		return lftEntry{}, false
	}
	digits := 3
	for digits < len(rest) && isHex(rest[digits]) {
		digits++
	}
	end := digits
	for end < len(rest) && (rest[end] == ':' || rest[end] == ')') {
		end++
	}
	if digits == 3 || digits > 3+16 || (end < len(rest) && rest[end] != ' ') {
		return lftEntry{}, false
	}
	g, _ := hexValue(rest[3:digits])
	e.guid = fabric.GUID(g)
	return e, true
}

// hexValue reads 1 to 16 hex digits.
func hexValue(b []byte) (uint64, bool) {
	if len(b) > 16 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		d, ok := hexDigitValue(c)
		if !ok {
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return v, len(b) > 0
}

// hexDigitValue reads a hex digit, of either case.
func hexDigitValue(c byte) (uint8, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decimalValue reads 1 to 3 decimal digits (a port).
func decimalValue(b []byte) (uint64, bool) {
	if len(b) > 3 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, len(b) > 0
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

// tables derives the LID plan from the owners the entries name and fills
// the tables.
func (rd *listingReader) tables() (*Tables, error) {
	f, file := rd.f, rd.file
	byGUID := portsByGUID(f)
	span := map[fabric.PortRef][2]LID{}
	for _, e := range rd.owners.pairs {
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
	for _, blk := range rd.blocks {
		lft := b.LFT(blk.sw)
		for i, lid := range blk.lids {
			if _, _, ok := lids.Owner(lid); !ok {
				return nil, fmt.Errorf("%s: no entry names the port GUID of LID 0x%04x (%s has an entry for it), so its port is unknown", file, lid, f.Node(blk.sw).Name)
			}
			lft[lid] = blk.ports[i]
		}
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
