package fabric

import (
	"io"
	"regexp"
	"strconv"
	"strings"
)

// OpenSM's subnet list (opensm-subnet.lst, which OpenSM writes into its
// dump directory after every sweep): a line per cabled port of every
// node, that port's end and its peer's, then the link's state —
//
//	{ SW-SM Ports:24 SystemGUID:… NodeGUID:… PortGUID:… VenID:… DevID:… Rev:… {sw-0-0-0} LID:0001 PN:01 } { CA Ports:01 … {node017 mlx5_0} LID:0064 PN:01 } PHY=4x LOG=ACT SPD=2.5
//
// "SW", "CA" or "Rt" is the node's type, "-SM" marks the master SM's
// node, Ports its port count, the braces its description, LID the base
// LID of the port (a switch's port 0), PN the port number, all numbers in
// hex. Each cable is listed from both ends.

// endRE matches one end of a line; the description runs to the last "} LID:"
// before the end's closing brace.
var endRE = `\{ (SW|CA|Rt|\*\*)(-SM)? Ports:([0-9A-Fa-f]+) SystemGUID:[0-9A-Fa-f]+ NodeGUID:([0-9A-Fa-f]+) PortGUID:([0-9A-Fa-f]+) VenID:[0-9A-Fa-f]+ DevID:[0-9A-Fa-f]+ Rev:[0-9A-Fa-f]+ \{(.*?)\} LID:([0-9A-Fa-f]+) PN:([0-9A-Fa-f]+) \}`

var subnetLine = regexp.MustCompile(`^` + endRE + ` ` + endRE + `(.*)$`)

// subnetEnd is one end of a subnet-list line.
type subnetEnd struct {
	kind      string
	ports     int
	node, prt GUID
	desc      string
	lid, pn   int
}

// ReadOpenSMSubnet reads OpenSM's opensm-subnet.lst. Nodes take their
// descriptions as names (with the GUID appended where several share one),
// their GUIDs, port counts and the base LIDs listed; a router is an error.
func ReadOpenSMSubnet(r io.Reader, file string) (*Fabric, error) {
	lines, err := readLines(r, file, "OpenSM subnet list")
	if err != nil {
		return nil, err
	}
	errs := &errorList{file: file}
	ids := map[string]NodeID{}
	var nodes []Node
	var descs []string
	var halves []halfLink
	for i, line := range lines {
		ln := i + 1
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		m := subnetLine.FindStringSubmatch(t)
		if m == nil {
			errs.add(ln, "unrecognised line %q: want \"{ <port> } { <peer port> } PHY=… LOG=… SPD=…\" as OpenSM writes opensm-subnet.lst", Clip(t, 60))
			continue
		}
		var keys [2]string
		var pns [2]int
		ok := true
		for k, g := range [][]string{m[1:9], m[9:17]} {
			e, problem := parseSubnetEnd(g)
			if problem != "" {
				errs.add(ln, "%s", problem)
				ok = false
				break
			}
			keys[k], pns[k] = e.node.String(), e.pn
			if !addSubnetNode(e, ids, &nodes, &descs, ln, errs) {
				ok = false
			}
		}
		if ok {
			halves = append(halves, halfLink{local: keys[0], localPort: pns[0], remote: keys[1], remotePort: pns[1], line: ln})
		}
	}
	if len(nodes) == 0 && len(errs.errs) == 0 {
		errs.add(0, "no links found; is this OpenSM's opensm-subnet.lst?")
	} else if len(nodes) > 0 {
		requireSwitch(nodes, errs)
	}
	return assemble(file, nodes, descs, ids, halves, errs, nil)
}

// parseSubnetEnd reads the groups of one end's match; problem says what is
// wrong with it.
func parseSubnetEnd(g []string) (subnetEnd, string) {
	e := subnetEnd{kind: g[0], desc: g[5]}
	if e.kind != "SW" && e.kind != "CA" {
		return e, "router nodes are not supported; slimroute models switches and HCAs"
	}
	ports, err1 := strconv.ParseUint(g[2], 16, 16)
	node, err2 := strconv.ParseUint(g[3], 16, 64)
	prt, err3 := strconv.ParseUint(g[4], 16, 64)
	lid, err4 := strconv.ParseUint(g[6], 16, 16)
	pn, err5 := strconv.ParseUint(g[7], 16, 16)
	switch {
	case err1 != nil || ports < 1 || ports > MaxPorts:
		return e, "Ports:" + g[2] + ": want 1 to " + strconv.Itoa(MaxPorts) + " ports, in hex"
	case err2 != nil || err3 != nil || node == 0:
		return e, "NodeGUID:" + g[3] + " PortGUID:" + g[4] + ": want 64-bit hex GUIDs, the node's not 0"
	case err4 != nil || err5 != nil || pn < 1 || pn > ports:
		return e, "LID:" + g[6] + " PN:" + g[7] + ": want a hex LID and a port 1.." + strconv.FormatUint(ports, 10)
	}
	e.ports, e.node, e.prt, e.lid, e.pn = int(ports), GUID(node), GUID(prt), int(lid), int(pn)
	return e, ""
}

// addSubnetNode adds e's node the first time it is met, and checks it
// against what earlier lines said of it; false after an error.
func addSubnetNode(e subnetEnd, ids map[string]NodeID, nodes *[]Node, descs *[]string, ln int, errs *errorList) bool {
	kind := HCA
	if e.kind == "SW" {
		kind = Switch
	}
	key := e.node.String()
	id, known := ids[key]
	if !known {
		id = NodeID(len(*nodes))
		ids[key] = id
		*nodes = append(*nodes, Node{Kind: kind, GUID: e.node, Ports: e.ports, Attrs: map[int]PortAttr{}})
		*descs = append(*descs, e.desc)
	}
	n := &(*nodes)[id]
	if n.Kind != kind || n.Ports != e.ports || (*descs)[id] != e.desc {
		errs.add(ln, "node %s is listed as %s with %d ports {%s}, earlier as another kind, port count or description", key, e.kind, e.ports, e.desc)
		return false
	}
	if e.lid == 0 {
		return true
	}
	port := e.pn
	if kind == Switch {
		port = 0 // a switch's LID is its port 0's
	}
	n.Attrs[port] = PortAttr{GUID: e.prt, LID: uint16(e.lid)}
	return true
}
