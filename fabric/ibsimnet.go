package fabric

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The ibsim net format (ibsim's net-examples and its parser, sim_net.c):
//
//	switchguid=0x0002c90000000000        (optional: pins the next switch's GUID)
//	Switch 36 "sw-0-0-0"                  (kind, port count, node id)
//	[1] "hca-0-0-0-1"[1]                  (local port, remote id, remote port)
//	[5] "sw-0-0-1"[5] w=2 s=4             (optional enabled width/speed masks)
//	                                      (a blank line ends the record)
//	caguid=0x0002c90000100000
//	Hca 1 "hca-0-0-0-1"
//	[1] "sw-0-0-0"[1]
//
// Every link is listed from both ends. The node id doubles as the node
// description unless the header carries one after '#'. ibsim numbers GUIDs
// from per-kind counters: a switch takes one GUID, an HCA with P ports takes
// P+1 (node GUID, then one per port); a guid line resets the counter.

// ibsim's default GUID counters (sim_net.c).
const (
	ibsimSwitchGUIDBase GUID = 0x200000
	ibsimHCAGUIDBase    GUID = 0x100000
)

// ibsim's enabled-width and enabled-speed bit masks (PortInfo encoding).
var ibsimWidthBits = map[Width]int{Width1x: 1, Width4x: 2, Width8x: 4, Width12x: 8}
var ibsimSpeedBits = map[Speed]int{SDR: 1, DDR: 2, QDR: 4}

// WriteIBSimNet writes f as an ibsim net file. Node names become ibsim node
// ids (and so node descriptions) and every GUID is pinned, so that what
// ibsim simulates carries the same names and GUIDs as f. ibsim simulates
// speeds up to QDR only; faster link speeds are left to its default.
// Switches come first: ibsim attaches the first node to the SM.
func WriteIBSimNet(w io.Writer, f *Fabric) error {
	for i := range f.nodes {
		if err := checkIBSimName(f.nodes[i].Name); err != nil {
			return err
		}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# ibsim net file written by slimroute: %d switches, %d HCAs, %d links\n",
		len(f.IDsOf(Switch)), len(f.IDsOf(HCA)), len(f.links))
	fmt.Fprintf(bw, "# run: ibsim -n -s <this file>\n")
	for _, kind := range []Kind{Switch, HCA} {
		for _, id := range f.IDsOf(kind) {
			n := &f.nodes[id]
			bw.WriteString("\n")
			if n.GUID != 0 {
				key := "switchguid"
				if kind == HCA {
					key = "caguid"
				}
				fmt.Fprintf(bw, "%s=%s\n", key, n.GUID)
			}
			head := "Switch"
			if kind == HCA {
				head = "Hca"
			}
			fmt.Fprintf(bw, "%s %d \"%s\"\n", head, n.Ports, n.Name)
			for p := 1; p <= n.Ports; p++ {
				li, ok := f.LinkAt(PortRef{id, p})
				if !ok {
					continue
				}
				l := f.links[li]
				peer, _ := f.Peer(PortRef{id, p})
				fmt.Fprintf(bw, "[%d] \"%s\"[%d]", p, f.nodes[peer.Node].Name, peer.Port)
				if b, ok := ibsimWidthBits[l.Width]; ok {
					fmt.Fprintf(bw, " w=%d", b)
				}
				if b, ok := ibsimSpeedBits[l.Speed]; ok {
					fmt.Fprintf(bw, " s=%d", b)
				}
				bw.WriteString("\n")
			}
		}
	}
	return bw.Flush()
}

func checkIBSimName(name string) error {
	if strings.ContainsAny(name, "\"#@\n") {
		return fmt.Errorf("node name %q cannot be written to an ibsim net file: ibsim reserves the characters \" # @ and newline", name)
	}
	if len(name) > 63 {
		return fmt.Errorf("node name %q is too long for ibsim (at most 63 bytes)", name)
	}
	return nil
}

// ReadIBSimNet reads an ibsim net file. file names the input in errors.
// GUIDs are assigned the way ibsim assigns them, so the result names the
// same GUIDs a simulation of the file shows.
func ReadIBSimNet(r io.Reader, file string) (*Fabric, error) {
	lines, err := readLines(r, file, "ibsim net file")
	if err != nil {
		return nil, err
	}
	p := &netParser{
		lines:    lines,
		errs:     &errorList{file: file},
		ids:      map[string]NodeID{},
		nextGUID: map[Kind]GUID{Switch: ibsimSwitchGUIDBase, HCA: ibsimHCAGUIDBase},
		baseGUID: map[Kind]GUID{Switch: ibsimSwitchGUIDBase, HCA: ibsimHCAGUIDBase},
		owners:   map[GUID]int{},
		cur:      -1,
		badPorts: map[portKey]bool{},
	}
	for i, line := range lines {
		p.line(i+1, line)
	}
	if len(p.nodes) == 0 && len(p.errs.errs) == 0 {
		p.errs.add(0, "no Switch or Hca records found; is this an ibsim net file?")
	} else if len(p.nodes) > 0 {
		requireSwitch(p.nodes, p.errs)
	}
	links := pairHalves(p.halves, p.badPorts, p.ids, func(k string) string { return k }, p.errs)
	if err := p.errs.err(); err != nil {
		return nil, err
	}
	f, err := New(p.nodes, links)
	return f, wrapValidation(file, err)
}

// netParser is the state of ReadIBSimNet between lines: the nodes and cable
// ends read so far, ibsim's GUID counters and link-rate defaults, and the
// node whose port lines are being read.
type netParser struct {
	lines  []string
	errs   *errorList
	nodes  []Node
	halves []halfLink
	ids    map[string]NodeID // node id (the quoted name in the header) → node

	// GUIDs: ibsim numbers switches and HCAs from a base per kind that
	// switchguid=/caguid= lines move; owners finds GUIDs handed out twice.
	nextGUID, baseGUID map[Kind]GUID
	owners             map[GUID]int

	defWidth Width // width=/speed= defaults for ports without w=/s=
	defSpeed Speed

	cur     NodeID // node whose port lines are being read, or -1
	curID   string
	refused bool // inside the record of a header refused

	badPorts map[portKey]bool // ports whose line was refused: their cable's other end is not one-sided
}

// line reads line number ln: a port or comment line inside a node record,
// or a record-level line, which ends the record.
func (p *netParser) line(ln int, line string) {
	if p.cur >= 0 && strings.HasPrefix(line, "#") {
		return
	}
	if p.cur >= 0 && strings.HasPrefix(line, "[") {
		p.port(ln, line)
		return
	}
	if p.refused && strings.HasPrefix(line, "[") {
		return // the port lines of a refused header: its error says it all
	}
	p.cur, p.refused = -1, false
	t := strings.TrimSpace(line)
	switch {
	case t == "" || strings.HasPrefix(t, "#"):
	case strings.HasPrefix(line, "Switch"), strings.HasPrefix(line, "Hca"), strings.HasPrefix(line, "Ca"):
		p.header(ln, line, t)
	case strings.HasPrefix(line, "Rt"):
		p.errs.add(ln, "router nodes are not supported; slimroute models switches and HCAs")
	case strings.HasPrefix(line, "switchguid"), strings.HasPrefix(line, "hcaguids"), strings.HasPrefix(line, "caguid"):
		p.guidBase(ln, line, t)
	case strings.HasPrefix(line, "width"), strings.HasPrefix(line, "speed"):
		p.rateDefault(ln, line, t)
	case strings.HasPrefix(line, "devid"), strings.HasPrefix(line, "pdebug"):
		// Device ids and parser debugging do not change the topology.
	case strings.HasPrefix(line, "include"), strings.HasPrefix(line, "module"), strings.HasPrefix(line, "do"), strings.HasPrefix(line, "@"):
		p.errs.add(ln, "%q: includes, modules, aliases and console commands are not supported; flatten the net file first", t)
	case strings.HasPrefix(line, "["):
		p.errs.add(ln, "port line outside a node record; a blank or other line ended the record before it")
	default:
		p.errs.add(ln, "unrecognised line %q: want a Switch/Hca record, a switchguid=/caguid= line, a comment or a blank line", Clip(t, 60))
	}
}

// port reads a port line of the current node: one end of a cable, with the
// defaults for the rates it does not give.
func (p *netParser) port(ln int, line string) {
	h, ok := parseIBSimPort(line, ln, p.curID, &p.nodes[p.cur], p.errs)
	if !ok {
		if h.localPort > 0 {
			p.badPorts[portKey{h.local, h.localPort}] = true
		}
		return
	}
	if h.width == 0 {
		h.width = p.defWidth
	}
	if h.speed == 0 {
		h.speed = p.defSpeed
	}
	p.halves = append(p.halves, h)
}

// header reads a Switch/Hca/Ca line, starts its node record and gives the
// node the next GUID of its kind, as ibsim does.
func (p *netParser) header(ln int, line, t string) {
	kind, skip := HCA, 3
	if strings.HasPrefix(line, "Switch") {
		kind, skip = Switch, 6
	} else if strings.HasPrefix(line, "Ca") {
		skip = 2
	}
	ports, tok, okp := headerPorts(line[skip:])
	id, rest, okq := quoted(line)
	if !okp || !okq {
		p.errs.add(ln, "bad node header %q: %swant %s <ports 1..%d> \"<node id>\"", Clip(t, 60), portCountProblem(okp, tok), line[:skip], MaxPorts)
		p.refused = true
		return
	}
	if _, dup := p.ids[id]; dup {
		p.errs.add(ln, "node id %q is defined twice; node ids must be unique", id)
		return
	}
	name := id
	if h := strings.IndexByte(rest, '#'); h >= 0 {
		if d := ibsimDesc(rest[h+1:]); d != "" {
			name = d
		}
	}
	g := p.nextGUID[kind]
	if prev, dup := p.owners[g]; dup {
		p.errs.add(ln, "node %q gets GUID %s, already given to %q at line %d; pin distinct GUIDs with switchguid=/caguid= lines", id, g, p.nodes[prev].Name, findLine(p.lines, p.nodes[prev].Name))
	}
	p.owners[g] = len(p.nodes)
	if kind == Switch {
		p.nextGUID[kind] = g + 1
	} else {
		p.nextGUID[kind] = g + GUID(ports) + 1 // an HCA's ports take the GUIDs after its own
	}
	p.cur = NodeID(len(p.nodes))
	p.curID = id
	p.ids[id] = p.cur
	p.nodes = append(p.nodes, Node{Kind: kind, Name: name, GUID: g, Ports: ports})
}

// guidBase reads switchguid=, caguid= (set the base and next GUID of a
// kind) and caguid+ (next GUID at an offset from the base).
func (p *netParser) guidBase(ln int, line, t string) {
	kind := HCA
	if strings.HasPrefix(line, "switchguid") {
		kind = Switch
	}
	k := strings.IndexAny(line, "=+")
	var v uint64
	err := errors.New("missing value")
	if k >= 0 {
		if f := strings.Fields(line[k+1:]); len(f) > 0 {
			v, err = parseUint(f[0], 64)
		}
	}
	if err == nil && v == 0 && line[k] == '=' {
		err = errors.New("GUID 0 is reserved")
	}
	if err != nil {
		p.errs.add(ln, "bad GUID assignment %q: want switchguid=0x<hex>, caguid=0x<hex> or caguid+<offset>", Clip(t, 60))
		return
	}
	if line[k] == '+' {
		p.nextGUID[kind] = p.baseGUID[kind] + GUID(v)
	} else {
		p.baseGUID[kind], p.nextGUID[kind] = GUID(v), GUID(v)
	}
}

// rateDefault reads width=<mask> or speed=<mask>, the rate of the port
// lines after it that do not give their own.
func (p *netParser) rateDefault(ln int, line, t string) {
	k := strings.IndexByte(line, '=')
	var v uint64
	var err error
	if k >= 0 {
		v, err = parseUint(line[k+1:], 8)
	}
	if k < 0 || err != nil {
		p.errs.add(ln, "bad default %q: want width=<mask> or speed=<mask>", t)
		return
	}
	if strings.HasPrefix(line, "width") {
		p.defWidth = widthFromIBSimMask(int(v))
	} else {
		p.defSpeed = speedFromIBSimMask(int(v))
	}
}

func findLine(lines []string, name string) int {
	q := fmt.Sprintf("%q", name)
	for i, l := range lines {
		if (strings.HasPrefix(l, "Switch") || strings.HasPrefix(l, "Hca") || strings.HasPrefix(l, "Ca")) && strings.Contains(l, q) {
			return i + 1
		}
	}
	return 0
}

// ibsimDesc extracts the node description after '#' in a header line: a
// quoted string, or the text up to " lid "/" base port "/… as ibsim does.
func ibsimDesc(s string) string {
	s = strings.TrimLeft(s, " \t")
	if strings.HasPrefix(s, "\"") {
		if d, _, ok := quoted(s); ok {
			return d
		}
		return ""
	}
	for _, stop := range []string{" enhanced port ", " base port ", " lid ", " lmc "} {
		if k := strings.Index(s, stop); k >= 0 {
			s = s[:k]
		}
	}
	return strings.TrimSpace(s)
}

func parseIBSimPort(line string, ln int, nodeID string, n *Node, errs *errorList) (halfLink, bool) {
	p, rest, ok := bracketNum(line)
	if !ok {
		errs.add(ln, "bad port line %q: want [<port>] \"<remote node id>\"[<remote port>]", Clip(line, 60))
		return halfLink{}, false
	}
	if p < 1 || p > MaxPorts {
		errs.add(ln, "port %d of %q: port numbers are 1..%d; fix the port number", p, nodeID, MaxPorts)
		return halfLink{}, false
	}
	if p > n.Ports {
		errs.add(ln, "port %d of %q: the node has ports 1..%d; raise the port count in its header or fix the port number", p, nodeID, n.Ports)
		return halfLink{}, false
	}
	own := halfLink{local: nodeID, localPort: p, line: ln} // what a refusal names
	rest = strings.TrimLeft(rest, " \t")
	quotedFirst := strings.HasPrefix(rest, `"`)
	remote, rest, ok := quoted(rest)
	if !quotedFirst || !ok || remote == "" {
		errs.add(ln, "port %d of %q: want the remote node id in double quotes right after [%d]", p, nodeID, p)
		return own, false
	}
	rp := 1 // ibsim's default when no remote port is given
	if strings.HasPrefix(rest, "[") {
		v, r, ok := bracketNum(rest)
		if !ok || v < 1 || v > MaxPorts {
			errs.add(ln, "port %d of %q: bad remote port; want [1..%d] after the remote node id", p, nodeID, MaxPorts)
			return own, false
		}
		rp, rest = v, r
	}
	if rest != "" && !strings.ContainsRune(" \t#", rune(rest[0])) {
		errs.add(ln, "port %d of %q: %q after the remote node id; want [<remote port>], then w=/s= options or a # comment", p, nodeID, Clip(rest, 20))
		return own, false
	}
	h := halfLink{local: nodeID, localPort: p, remote: remote, remotePort: rp, line: ln}
	if k := strings.IndexByte(rest, '#'); k >= 0 {
		rest = rest[:k] // a comment (ibnetdiscover's lid, lmc, description)
	}
	seen := map[byte]bool{}
	for _, tok := range strings.Fields(rest) {
		v, err := parseUint(tok[min(2, len(tok)):], 8)
		switch {
		case len(tok) < 2 || tok[1] != '=' || seen[tok[0]]:
		case tok[0] == 'w' && err == nil && v >= 1 && v <= 15:
			h.width = widthFromIBSimMask(int(v))
			seen['w'] = true
			continue
		case tok[0] == 's' && err == nil && v >= 1 && v <= 7:
			h.speed = speedFromIBSimMask(int(v))
			seen['s'] = true
			continue
		}
		// the cable itself is read: its other end is not reported as
		// listed on one side only
		errs.add(ln, "port %d of %q: bad port option %q; ibsim takes w=<1..15> and s=<1..7>, each once", p, nodeID, Clip(tok, 20))
		break
	}
	return h, true
}

// widthFromIBSimMask returns the widest width enabled in an ibsim mask, the
// width two such ports train to.
func widthFromIBSimMask(m int) Width {
	switch {
	case m&8 != 0:
		return Width12x
	case m&4 != 0:
		return Width8x
	case m&2 != 0:
		return Width4x
	case m&1 != 0:
		return Width1x
	}
	return 0
}

func speedFromIBSimMask(m int) Speed {
	switch {
	case m&4 != 0:
		return QDR
	case m&2 != 0:
		return DDR
	case m&1 != 0:
		return SDR
	}
	return 0
}

// IBSimLimits returns ibsim's -S/-N/-P options (switches, nodes, ports)
// sized for f with some headroom, never below ibsim's defaults (256, 2048,
// 13312). ibsim refuses a net file beyond them ("no more switches").
func IBSimLimits(f *Fabric) []string {
	var sw, nodes, ports int
	for _, n := range f.Nodes() {
		nodes++
		ports += n.Ports + 1
		if n.Kind == Switch {
			sw++
		}
	}
	return []string{
		"-S", fmt.Sprint(max(256, sw+16)),
		"-N", fmt.Sprint(max(2048, nodes+16)),
		"-P", fmt.Sprint(max(13312, ports+64)),
	}
}
