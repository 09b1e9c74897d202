package lft

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"slimroute/fabric"
)

// Shrunk reads the files route wrote (WriteOpenSMLFTs, WritePathSL,
// WriteSL2VL) back onto a fabric that lost switches since: it drops, as it
// reads, the lines of switches the fabric lacks (their tables) and the LFT
// entries of LIDs whose port it lacks or holds uncabled (a gone switch's
// own LID, its HCAs), as the OpenSM plugin does when it carries its last
// routing over (package repair: a node matched by GUID, or gone). Dropped
// lines read as blank lines, which every reader skips, so an error still
// names the file's line. Read the LFTs first, then the path SLs and SL2VL
// tables onto them.
type Shrunk struct{ g *goneFilter }

// NewShrunk returns a Shrunk for fabric f.
func NewShrunk(f *fabric.Fabric) *Shrunk { return &Shrunk{newGoneFilter(f)} }

// ReadOpenSMLFTs reads an LFT listing as the function ReadOpenSMLFTs
// does; a switch of the fabric the listing holds no table for is a
// *NewSwitchError.
func (s *Shrunk) ReadOpenSMLFTs(r io.Reader, file string) (*Tables, error) {
	return newSwitch(opensmListing.read(r, file, s.g.f, s.g.lftLine))
}

// ReadPathSL reads path SLs onto t, the tables the LFTs gave: those of
// the LIDs t dropped are cut off.
func (s *Shrunk) ReadPathSL(r io.Reader, file string, t *Tables) (*Tables, error) {
	s.g.lastSLs = t.LIDs().Top()
	return readPathSL(r, file, t, s.g.pathSLLine)
}

// ReadSL2VL reads SL2VL tables onto t.
func (s *Shrunk) ReadSL2VL(r io.Reader, file string, t *Tables) (*Tables, error) {
	return readSL2VL(r, file, t, s.g.switchLine)
}

// newSwitch passes a reader's result on, a listing's missing table (the
// reader got to the end, and the fabric has a switch the file holds no
// table for) as a *NewSwitchError. Any other error is the reader's: a
// line it could not read is no sign of a new switch, however few tables
// came before it.
func newSwitch(t *Tables, err error) (*Tables, error) {
	var missing *noTableError
	if errors.As(err, &missing) {
		return nil, &NewSwitchError{Name: missing.name, GUID: missing.guid}
	}
	return t, err
}

// NewSwitchError says that the fabric has a switch the files hold no
// table for — a new switch, or files cut short exactly between two
// tables: a repair only takes switches and cables away, so the routing is
// to be computed in full.
type NewSwitchError struct {
	Name string
	GUID fabric.GUID
}

func (e *NewSwitchError) Error() string {
	return fmt.Sprintf("switch %s (%s) is new, or the previous tables were cut short: they hold no table for it, and a repair only takes switches and cables away", e.Name, e.GUID)
}

// GoneSwitches lists the switches whose tables were dropped, as "name
// (GUID)", in GUID order.
func (s *Shrunk) GoneSwitches() []string { return s.g.goneSwitches() }

// GoneLIDs counts the LIDs dropped with their ports.
func (s *Shrunk) GoneLIDs() int { return len(s.g.lids) }

// goneFilter filters the lines for Shrunk. It knows of the layouts no
// more than where a line names its switch: after " guid 0x" in an LFT
// block's header, as the first field of path-SL and SL2VL lines, and the
// owner's port after "portguid 0x" in an LFT entry.
type goneFilter struct {
	f       *fabric.Fabric
	ports   map[fabric.GUID]bool // the LID-holding ports of f (switches, cabled HCA ports), by port GUID
	gone    map[fabric.GUID]string
	lids    map[LID]bool // LIDs dropped with their ports
	owner   []uint8      // per LID: ownerKept, ownerGone or 0 (not seen yet)
	skip    bool         // inside the LFT block of a gone switch
	lastSLs LID          // the top LID the LFTs kept: path SLs past it are dropped
}

// A LID's owner is kept (a port f holds) or gone.
const (
	ownerKept = 1 + iota
	ownerGone
)

func newGoneFilter(f *fabric.Fabric) *goneFilter {
	g := &goneFilter{f: f, ports: map[fabric.GUID]bool{}, gone: map[fabric.GUID]string{}, lids: map[LID]bool{}, owner: make([]uint8, MaxUnicastLID+1)}
	for i := range f.NumNodes() {
		id := fabric.NodeID(i)
		if f.Kind(id) == fabric.Switch {
			g.ports[f.GUID(id)] = true
			continue
		}
		for p := 1; p <= f.Ports(id); p++ {
			if _, cabled := f.Peer(fabric.PortRef{Node: id, Port: p}); cabled {
				g.ports[f.PortGUID(fabric.PortRef{Node: id, Port: p})] = true
			}
		}
	}
	return g
}

// isGone says whether the LFT block of switch guid was dropped.
func (g *goneFilter) isGone(guid fabric.GUID) bool {
	_, gone := g.gone[guid]
	return gone
}

// isSwitch says whether f has a switch with node GUID guid.
func (g *goneFilter) isSwitch(guid fabric.GUID) bool {
	id, ok := g.f.NodeByGUID(guid)
	return ok && g.f.Kind(id) == fabric.Switch
}

// lftLine filters a line of an LFT listing.
func (g *goneFilter) lftLine(line []byte) []byte {
	trimmed := line
	for len(trimmed) > 0 && (trimmed[0] == ' ' || trimmed[0] == '\t') {
		trimmed = trimmed[1:]
	}
	if bytes.HasPrefix(trimmed, []byte("Unicast lids")) {
		g.header(line)
	}
	if g.skip {
		return nil
	}
	lid, ok := entryLID(trimmed)
	if !ok {
		return line
	}
	// a LID's owner is the same in every table: look it up once
	switch g.owner[lid] {
	case ownerKept:
		return line
	case ownerGone:
		return nil
	}
	i := bytes.Index(line, []byte("portguid 0x"))
	if i < 0 {
		return line // names no owner; another entry will
	}
	guid, ok := guidAt(line[i+len("portguid "):])
	if !ok || g.ports[guid] {
		g.owner[lid] = ownerKept
		return line
	}
	g.owner[lid] = ownerGone
	g.lids[lid] = true
	return nil
}

// header notes the switch an LFT block's header names, and whether f
// lacks it.
func (g *goneFilter) header(line []byte) {
	i := bytes.Index(line, []byte(" guid 0x"))
	if i < 0 {
		return
	}
	guid, ok := guidAt(line[i+len(" guid "):])
	g.skip = ok && !g.isSwitch(guid)
	if g.skip {
		g.gone[guid] = headerName(line)
	}
}

// entryLID reads the LID "0x<hex>" an LFT entry starts with.
func entryLID(line []byte) (LID, bool) {
	if !bytes.HasPrefix(line, []byte("0x")) {
		return 0, false
	}
	end := 2
	for end < len(line) && end < 8 && isHex(line[end]) {
		end++
	}
	lid, ok := hexValue(line[2:end])
	return LID(lid), ok && lid > 0 && lid <= uint64(MaxUnicastLID)
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// switchLine filters an SL2VL (or path-SL) line: one whose first field is
// the GUID of a switch whose LFT block was dropped (read the LFTs first)
// is dropped. Any other line goes to the reader, which judges it: a line
// it cannot read is not taken for a gone switch's.
func (g *goneFilter) switchLine(line []byte) []byte {
	if len(g.gone) == 0 {
		return line // no switch is gone: every line is kept
	}
	fs := bytes.Fields(line)
	if len(fs) == 0 {
		return line
	}
	if guid, err := fabric.ParseGUID(string(fs[0])); err == nil && g.isGone(guid) {
		return nil
	}
	return line
}

// pathSLLine filters a path-SL line "<switch GUID> 0x<first DLID> <SLs>"
// as switchLine does, and cuts its SLs off after DLID lastSLs: the LIDs
// past it went with their ports.
func (g *goneFilter) pathSLLine(line []byte) []byte {
	line = g.switchLine(line)
	fs := bytes.Fields(line)
	if len(fs) != 3 || !bytes.HasPrefix(fs[0], []byte("0x")) {
		return line
	}
	first, err := strconv.ParseUint(string(fs[1]), 0, 16)
	if n := int(g.lastSLs) - int(first) + 1; err == nil && n > 0 && n < len(fs[2]) {
		return line[:bytes.LastIndex(line, fs[2])+n]
	}
	return line
}

// guidAt parses the GUID "0x…" at the start of b.
func guidAt(b []byte) (fabric.GUID, bool) {
	end := bytes.IndexFunc(b, func(r rune) bool { return r > 0x7f || !(r == 'x' || isHex(byte(r))) })
	if end < 0 {
		end = len(b)
	}
	guid, err := fabric.ParseGUID(string(b[:end]))
	return guid, err == nil
}

// headerName is the switch name in an LFT header's "('name')", or "".
func headerName(line []byte) string {
	i, j := bytes.Index(line, []byte("('")), bytes.LastIndex(line, []byte("')"))
	if i < 0 || j < i+2 {
		return ""
	}
	return string(line[i+2 : j])
}

// goneSwitches lists the switches whose tables were dropped, as "name
// (GUID)", in GUID order.
func (g *goneFilter) goneSwitches() []string {
	var guids []fabric.GUID
	for guid := range g.gone {
		guids = append(guids, guid)
	}
	slices.Sort(guids)
	var out []string
	for _, guid := range guids {
		out = append(out, fmt.Sprintf("%s (%s)", g.gone[guid], guid))
	}
	return out
}
