package fabric

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// NodeNameMap maps node GUIDs to names, as the node-name-map files of
// ibnetdiscover, OpenSM and the other diagnostics do. One line per node:
//
//	# comment
//	0x248a070300f8f3a0 "sw-0-0-0"
type NodeNameMap map[GUID]string

// ReadNodeNameMap reads a node-name-map file.
func ReadNodeNameMap(r io.Reader, file string) (NodeNameMap, error) {
	lines, err := readLines(r, file)
	if err != nil {
		return nil, err
	}
	errs := &errorList{file: file}
	m := NodeNameMap{}
	seen := map[GUID]int{}
	for i, line := range lines {
		ln := i + 1
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		fields := strings.Fields(t)
		g, err := ParseGUID(fields[0])
		if err != nil {
			errs.add(ln, "%v; want 0x<guid> \"<name>\"", err)
			continue
		}
		name, rest, ok := quoted(t[len(fields[0]):])
		if !ok {
			errs.add(ln, "GUID %s: missing name in double quotes; want 0x<guid> \"<name>\"", g)
			continue
		}
		if r := strings.TrimSpace(rest); r != "" && !strings.HasPrefix(r, "#") {
			errs.add(ln, "GUID %s: unexpected text %q after the name", g, truncate(r, 40))
			continue
		}
		if name == "" {
			errs.add(ln, "GUID %s: empty name", g)
			continue
		}
		if prev, dup := seen[g]; dup {
			errs.add(ln, "GUID %s is mapped twice (first at line %d)", g, prev)
			continue
		}
		seen[g] = ln
		m[g] = name
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return m, nil
}

// WriteNodeNameMap writes the names of all nodes of f that have a GUID,
// switches first, in node order.
func WriteNodeNameMap(w io.Writer, f *Fabric) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# node-name-map written by slimroute: node GUID \"node description\"\n")
	for _, kind := range []Kind{Switch, HCA} {
		for _, id := range f.IDsOf(kind) {
			n := f.Node(id)
			if n.GUID == 0 {
				continue
			}
			if strings.ContainsAny(n.Name, "\"\n") {
				return fmt.Errorf("node name %q cannot be written to a node-name-map: it contains a double quote or newline", n.Name)
			}
			fmt.Fprintf(bw, "%s \"%s\"\n", n.GUID, n.Name)
		}
	}
	return bw.Flush()
}

// NodeNameMapOf returns the names of f's nodes keyed by GUID.
func NodeNameMapOf(f *Fabric) NodeNameMap {
	m := NodeNameMap{}
	for i := range f.nodes {
		if g := f.nodes[i].GUID; g != 0 {
			m[g] = f.nodes[i].Name
		}
	}
	return m
}

// Renamed returns a copy of f in which every node whose GUID is in m carries
// the name m gives it. It fails if the new names are not unique.
func (f *Fabric) Renamed(m NodeNameMap) (*Fabric, error) {
	nodes := make([]Node, len(f.nodes))
	copy(nodes, f.nodes)
	for i := range nodes {
		if name, ok := m[nodes[i].GUID]; ok && nodes[i].GUID != 0 {
			nodes[i].Name = name
		}
	}
	g, err := New(nodes, f.links)
	if err != nil {
		return nil, fmt.Errorf("applying node-name-map: %w", err)
	}
	return g, nil
}
