package fabric

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// ibnetdiscover's topology output (infiniband-diags), as seen from
// ibnetdiscover 44 on ibsim and in dumps of real fabrics:
//
//	vendid=0x2c9
//	devid=0xcf08
//	sysimgguid=0x248a070300f8f3a0
//	switchguid=0x248a070300f8f3a0(248a070300f8f3a0)
//	Switch	36 "S-248a070300f8f3a0"		# "sw-0-0-0" enhanced port 0 lid 12 lmc 0
//	[1]	"H-0c42a10300b2c7d0"[1](c42a10300b2c7d1) 		# "node01 mlx5_0" lid 40 4xEDR
//	[9]	"S-248a070300f8f3c0"[9]		# "sw-0-0-1" lid 13 4xEDR
//
//	caguid=0x0c42a10300b2c7d0
//	Ca	2 "H-0c42a10300b2c7d0"		# "node01 mlx5_0"
//	[1](c42a10300b2c7d1) 	"S-248a070300f8f3a0"[1]		# lid 40 lmc 0 "sw-0-0-0" lid 12 4xEDR
//
// Variants handled: -g (a "Non-Chassis Nodes"/"Chassis" grouping, comments
// after switchguid, "[ext N]" external port numbers), --full (s=/w=/v=
// fields after the rate), --node-name-map (mapped descriptions in the
// comments), multi-port HCAs, LIDs and LMC in the comments. The node
// description in a record's header comment becomes the node's Name; where
// several nodes share a description (factory defaults), each such Name gets
// its GUID appended so names stay unique.

// ReadIBNetDiscover reads ibnetdiscover topology output.
func ReadIBNetDiscover(r io.Reader, file string) (*Fabric, error) {
	lines, err := readLines(r, file, "ibnetdiscover topology")
	if err != nil {
		return nil, err
	}
	errs := &errorList{file: file}
	var (
		nodes    []Node
		descs    []string
		halves   []halfLink
		keys     []string
		ids      = map[string]NodeID{}
		pendGUID GUID // from a switchguid=/caguid= line before the header
		cur      = NodeID(-1)
		refused  bool // inside the record of a header refused
	)
	for i, line := range lines {
		ln := i + 1
		t := strings.TrimSpace(line)
		if cur >= 0 && strings.HasPrefix(t, "[") {
			n := &nodes[cur]
			h, attr, ok := parseIBNDPort(t, ln, keys[cur], descs[cur], n, errs)
			if !ok {
				continue
			}
			if n.Kind == HCA && (attr != PortAttr{}) {
				if n.Attrs == nil {
					n.Attrs = map[int]PortAttr{}
				}
				n.Attrs[h.localPort] = attr
			}
			halves = append(halves, h)
			continue
		}
		if refused && strings.HasPrefix(t, "[") {
			continue // the port lines of a refused header: its error says it all
		}
		cur, refused = -1, false
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
		case strings.HasPrefix(t, "DR path "):
			// the progress lines of ibnetdiscover -s, before the topology
		case listLine.MatchString(t):
			errs.add(ln, "%q is a line of ibnetdiscover's node list (-l, -H, -S, --Router_list), not of its topology: run ibnetdiscover without those options", Clip(t, 60))
			return nil, errs.err() // every line is one: the first says it all
		case strings.HasPrefix(t, "vendid="), strings.HasPrefix(t, "devid="), strings.HasPrefix(t, "Non-Chassis Nodes"), strings.HasPrefix(t, "Chassis"):
		case strings.HasPrefix(t, "sysimgguid="):
			g, err := ParseGUID(firstToken(t[len("sysimgguid="):]))
			if err != nil {
				errs.add(ln, "bad sysimgguid: %v", err)
				continue
			}
			_ = g // the system image GUID is not modelled, only checked
		case strings.HasPrefix(t, "switchguid="), strings.HasPrefix(t, "caguid="):
			v := t[strings.IndexByte(t, '=')+1:]
			g, err := ParseGUID(firstToken(v))
			if err != nil {
				errs.add(ln, "bad node GUID: %v", err)
				continue
			}
			pendGUID = g
		case strings.HasPrefix(t, "rtguid="), strings.HasPrefix(t, "Rt"):
			errs.add(ln, "router nodes are not supported; slimroute models switches and HCAs")
		case strings.HasPrefix(t, "Switch"), strings.HasPrefix(t, "Ca"):
			kind, skip := HCA, 2
			if strings.HasPrefix(t, "Switch") {
				kind, skip = Switch, 6
			}
			ports, tok, okp := headerPorts(t[skip:])
			key, rest, okq := quoted(t)
			if !okp || !okq || key == "" {
				errs.add(ln, "bad node header %q: %swant %s <ports 1..%d> \"<node id>\" # \"<description>\"", Clip(t, 60), portCountProblem(okp, tok), t[:skip], MaxPorts)
				pendGUID, refused = 0, true
				continue
			}
			if _, dup := ids[key]; dup {
				errs.add(ln, "node %q appears twice; is this two dumps concatenated?", key)
				pendGUID, refused = 0, true // its port lines: this error says it all
				continue
			}
			g := pendGUID
			if g == 0 {
				g = guidFromIBNDKey(key)
			}
			n := Node{Kind: kind, GUID: g, Ports: ports}
			desc := key
			if h := strings.IndexByte(rest, '#'); h >= 0 {
				c := rest[h+1:]
				if d, after, ok := quoted(c); ok {
					desc = d
					c = after
				}
				if kind == Switch {
					lid, lmc, okl, err := lidLMC(c)
					if err != nil {
						errs.add(ln, "switch %q: %v", desc, err)
					}
					if okl {
						n.Attrs = map[int]PortAttr{0: {GUID: g, LID: lid, LMC: lmc}}
					}
				}
			}
			pendGUID = 0
			cur = NodeID(len(nodes))
			ids[key] = cur
			keys = append(keys, key)
			descs = append(descs, desc)
			nodes = append(nodes, n)
		case strings.HasPrefix(t, "["):
			errs.add(ln, "port line outside a node record")
		default:
			errs.add(ln, "unrecognised line %q: want a Switch/Ca record, a vendid=/devid=/sysimgguid=/switchguid=/caguid= line, a comment or a blank line", Clip(t, 60))
		}
	}
	if len(nodes) == 0 && len(errs.errs) == 0 {
		errs.add(0, "no Switch or Ca records found; is this ibnetdiscover output?")
	} else if len(nodes) > 0 {
		requireSwitch(nodes, errs)
	}
	return assemble(file, nodes, descs, ids, halves, errs, missingRecords)
}

// missingRecords reports port lines that lead to nodes without a record
// as one problem when there are many: the sign of a dump cut short (by
// head, or copied while ibnetdiscover was still writing), which would
// otherwise bury the reader under one message per cable. It returns the
// halves left for pairing.
func missingRecords(halves []halfLink, ids map[string]NodeID, names func(string) string, errs *errorList) []halfLink {
	var kept, lost []halfLink
	for _, h := range halves {
		if _, ok := ids[h.remote]; ok {
			kept = append(kept, h)
		} else {
			lost = append(lost, h)
		}
	}
	if len(lost) <= 3 {
		return halves // pairHalves names each
	}
	h := lost[0]
	errs.add(h.line, "%d port lines, the first here (port %d of %q), lead to nodes the file has no record of, such as %q: is the file cut short? ibnetdiscover writes a record for every node it reaches",
		len(lost), h.localPort, names(h.local), h.remote)
	return kept
}

// uniqueNames sets each node's Name to its description, appending the GUID
// to descriptions shared by several nodes.
func uniqueNames(nodes []Node, descs []string) {
	count := map[string]int{}
	for _, d := range descs {
		count[d]++
	}
	for i, d := range descs {
		if count[d] > 1 {
			d = fmt.Sprintf("%s (%s)", d, nodes[i].GUID)
		}
		nodes[i].Name = d
	}
}

func firstToken(s string) string {
	s = strings.TrimSpace(s)
	if k := strings.IndexAny(s, "( \t#"); k >= 0 {
		return s[:k]
	}
	return s
}

// guidFromIBNDKey recovers the GUID from ids such as "S-248a070300f8f3a0".
func guidFromIBNDKey(key string) GUID {
	if len(key) > 2 && key[1] == '-' {
		if g, err := ParseGUID(key[2:]); err == nil {
			return g
		}
	}
	return 0
}

// lidLMC finds "lid N" and "lmc M" in a comment. A value that is not a
// LID (16 bits) or an LMC (0..7) is an error: the fabric's LIDs would
// otherwise be other than the file says.
func lidLMC(s string) (lid uint16, lmc uint8, found bool, err error) {
	f := strings.Fields(s)
	for i := 0; i+1 < len(f); i++ {
		switch f[i] {
		case "lid":
			if found {
				continue // a later "lid" is the remote port's
			}
			v, err := parseUint(f[i+1], 16)
			if err != nil {
				return 0, 0, false, fmt.Errorf("lid %q: want a LID of 0..65535", Clip(f[i+1], 20))
			}
			lid, found = uint16(v), true
		case "lmc":
			v, err := parseUint(f[i+1], 8)
			if err != nil || v > 7 {
				return 0, 0, false, fmt.Errorf("lmc %q: LMC is 0..7", Clip(f[i+1], 20))
			}
			return lid, uint8(v), found, nil
		}
	}
	return lid, lmc, found, nil
}

// parseIBNDPort reads a port line of the record of node key (described as
// desc: n.Name is set only after the whole file is read).
func parseIBNDPort(t string, ln int, key, desc string, n *Node, errs *errorList) (halfLink, PortAttr, bool) {
	var attr PortAttr
	p, rest, ok := bracketNum(t)
	if !ok {
		errs.add(ln, "bad port line %q: want [<port>] \"<remote id>\"[<remote port>]", Clip(t, 60))
		return halfLink{}, attr, false
	}
	if p < 1 || p > n.Ports {
		errs.add(ln, "port %d of %q: the node has ports 1..%d", p, desc, n.Ports)
		return halfLink{}, attr, false
	}
	rest = strings.TrimLeft(rest, " \t")
	if strings.HasPrefix(rest, "[ext") { // -g: external (front panel) port number
		if k := strings.IndexByte(rest, ']'); k >= 0 {
			rest = rest[k+1:]
		}
	}
	rest = strings.TrimLeft(rest, " \t")
	if strings.HasPrefix(rest, "(") { // CA record: the local port GUID
		k := strings.IndexByte(rest, ')')
		if k < 0 {
			errs.add(ln, "port %d of %q: unclosed '(' around the port GUID", p, desc)
			return halfLink{}, attr, false
		}
		g, err := ParseGUID(rest[1:k])
		if err != nil {
			errs.add(ln, "port %d of %q: %v", p, desc, err)
			return halfLink{}, attr, false
		}
		attr.GUID = g
		rest = rest[k+1:]
	}
	remote, rest, ok := quoted(rest)
	if before, _, _ := strings.Cut(t, "#"); !strings.Contains(before, `"`) {
		ok = false // the quoted text is the comment's, not a remote id
	}
	if !ok || remote == "" {
		errs.add(ln, "port %d of %q: missing remote node id in double quotes", p, desc)
		return halfLink{}, attr, false
	}
	rp, rest, ok := bracketNum(rest)
	if !ok || rp < 1 || rp > MaxPorts {
		errs.add(ln, "port %d of %q: missing or bad remote port; want [1..%d] right after %q", p, desc, MaxPorts, remote)
		return halfLink{}, attr, false
	}
	h := halfLink{local: key, localPort: p, remote: remote, remotePort: rp, line: ln}
	if k := strings.IndexByte(rest, '#'); k >= 0 {
		c := rest[k+1:]
		if n.Kind == HCA {
			// "# lid 40 lmc 0 "remote desc" lid 12 4xEDR": the first lid/lmc
			// are this port's own.
			head := c
			if q := strings.IndexByte(c, '"'); q >= 0 {
				head = c[:q]
			}
			lid, lmc, ok, err := lidLMC(head)
			if err != nil {
				// the cable is fine: keep it, so that its other end is
				// not reported as listed on one side only
				errs.add(ln, "port %d of %q: %v", p, desc, err)
			}
			if ok {
				attr.LID, attr.LMC = lid, lmc
			}
		}
		if _, after, ok := quoted(c); ok {
			c = after
		}
		for _, tok := range strings.Fields(c) {
			if w, s, err := ParseRate(tok); err == nil {
				h.width, h.speed = w, s
				break
			}
		}
	}
	return h, attr, true
}

// WriteIBNetDiscover writes f in ibnetdiscover's topology format: the
// "expected" view of a planned fabric, for comparison with what
// ibnetdiscover later reports, and readable by ibsim. Node ids are built
// from GUIDs, so every node needs one. LIDs are written where known.
func WriteIBNetDiscover(w io.Writer, f *Fabric) error {
	for i := range f.nodes {
		n := &f.nodes[i]
		if n.GUID == 0 {
			return fmt.Errorf("node %q has no GUID; the ibnetdiscover format names nodes by GUID", n.Name)
		}
		if strings.ContainsAny(n.Name, "\"\n") {
			return fmt.Errorf("node name %q cannot be written in ibnetdiscover format: it contains a double quote or newline", n.Name)
		}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "#\n# Topology file: expected topology written by slimroute\n#\n")
	key := func(id NodeID) string {
		n := &f.nodes[id]
		if n.Kind == Switch {
			return fmt.Sprintf("S-%016x", uint64(n.GUID))
		}
		return fmt.Sprintf("H-%016x", uint64(n.GUID))
	}
	lidOf := func(p PortRef) uint16 {
		n := &f.nodes[p.Node]
		if n.Kind == Switch {
			return n.Attrs[0].LID
		}
		return n.Attrs[p.Port].LID
	}
	for _, kind := range []Kind{Switch, HCA} {
		for _, id := range f.IDsOf(kind) {
			n := &f.nodes[id]
			fmt.Fprintf(bw, "\nvendid=0x0\ndevid=0x0\nsysimgguid=%s\n", n.GUID)
			if kind == Switch {
				a := n.Attrs[0]
				fmt.Fprintf(bw, "switchguid=%s(%x)\n", n.GUID, uint64(n.GUID))
				fmt.Fprintf(bw, "Switch\t%d \"%s\"\t\t# \"%s\" base port 0 lid %d lmc %d\n", n.Ports, key(id), n.Name, a.LID, a.LMC)
			} else {
				fmt.Fprintf(bw, "caguid=%s\n", n.GUID)
				fmt.Fprintf(bw, "Ca\t%d \"%s\"\t\t# \"%s\"\n", n.Ports, key(id), n.Name)
			}
			for p := 1; p <= n.Ports; p++ {
				here := PortRef{id, p}
				li, ok := f.LinkAt(here)
				if !ok {
					continue
				}
				l := f.links[li]
				peer, _ := f.Peer(here)
				pn := &f.nodes[peer.Node]
				rate := Rate(l.Width, l.Speed)
				if rate != "" {
					rate = " " + rate
				}
				if kind == Switch {
					remoteGUID := ""
					if pn.Kind == HCA {
						remoteGUID = fmt.Sprintf("(%x) ", uint64(pn.PortGUID(peer.Port)))
					}
					fmt.Fprintf(bw, "[%d]\t\"%s\"[%d]%s\t\t# \"%s\" lid %d%s\n", p, key(peer.Node), peer.Port, remoteGUID, pn.Name, lidOf(peer), rate)
				} else {
					a := n.Attrs[p]
					fmt.Fprintf(bw, "[%d](%x) \t\"%s\"[%d]\t\t# lid %d lmc %d \"%s\" lid %d%s\n", p, uint64(n.PortGUID(p)), key(peer.Node), peer.Port, a.LID, a.LMC, pn.Name, lidOf(peer), rate)
				}
			}
		}
	}
	return bw.Flush()
}

// sortedPorts returns the keys of a port map in order.
func sortedPorts[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Ints(out)
	return out
}

// listLine matches a line of ibnetdiscover -l/-H/-S: "Switch : 0x… ports
// 36 …" or "Ca : 0x… ports 1 …".
var listLine = regexp.MustCompile(`^(Switch|Ca|Router)\s*:\s*0x[0-9a-fA-F]+\s+ports\s+\d+`)
