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
//
// File and Lines say where each name was read, so that a name Renamed
// refuses is reported at its line; both are empty for a map not read from
// a file.
type NodeNameMap struct {
	Names map[GUID]string
	File  string
	Lines map[GUID]int
}

// ReadNodeNameMap reads a node-name-map file.
func ReadNodeNameMap(r io.Reader, file string) (NodeNameMap, error) {
	lines, err := readLines(r, file, "node-name-map")
	if err != nil {
		return NodeNameMap{}, err
	}
	errs := &errorList{file: file}
	m := NodeNameMap{Names: map[GUID]string{}, File: file, Lines: map[GUID]int{}}
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
			errs.add(ln, "GUID %s: unexpected text %q after the name", g, Clip(r, 40))
			continue
		}
		if name == "" {
			errs.add(ln, "GUID %s: empty name", g)
			continue
		}
		if prev, dup := m.Lines[g]; dup {
			errs.add(ln, "GUID %s is mapped twice (first at line %d)", g, prev)
			continue
		}
		m.Lines[g] = ln
		m.Names[g] = name
	}
	if err := errs.err(); err != nil {
		return NodeNameMap{}, err
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
	m := NodeNameMap{Names: map[GUID]string{}}
	for i := range f.nodes {
		if g := f.nodes[i].GUID; g != 0 {
			m.Names[g] = f.nodes[i].Name
		}
	}
	return m
}

// Renamed returns a copy of f in which every node whose GUID is in m carries
// the name m gives it. It fails if the new names are not unique, naming
// the map's line and both nodes.
func (f *Fabric) Renamed(m NodeNameMap) (*Fabric, error) {
	nodes := make([]Node, len(f.nodes))
	copy(nodes, f.nodes)
	byName := map[string]int{}
	for i := range nodes {
		if name, ok := m.Names[nodes[i].GUID]; ok && nodes[i].GUID != 0 {
			nodes[i].Name = name
		}
		if j, dup := byName[nodes[i].Name]; dup {
			return nil, m.clash(f.nodes[j], f.nodes[i], nodes[i].Name)
		}
		byName[nodes[i].Name] = i
	}
	g, err := New(nodes, f.links)
	if err != nil {
		return nil, fmt.Errorf("applying node-name-map: %w", err)
	}
	return g, nil
}

// clash reports that the map gives nodes a and b (as discovered) the same
// name, at the map's line that renames one of them, naming both nodes.
func (m NodeNameMap) clash(a, b Node, name string) error {
	mapped := func(n Node) bool { _, ok := m.Names[n.GUID]; return ok && n.GUID != 0 }
	renamed := func(n Node) bool { return mapped(n) && m.Names[n.GUID] != n.Name }
	// b is the node at whose line the clash is reported: one the map
	// renames, better one whose name it changes
	if !mapped(b) || (renamed(a) && !renamed(b)) {
		a, b = b, a
	}
	other := fmt.Sprintf("%s %s (its discovered name)", a.Kind, a.GUID)
	if mapped(a) {
		other = fmt.Sprintf("%s %s (mapped at line %d)", a.Kind, a.GUID, m.Lines[a.GUID])
	}
	msg := fmt.Sprintf("GUID %s (%s, discovered as %q) is mapped to %q, the name of %s too: node names must be unique; give one of the two another name in the map", b.GUID, b.Kind, b.Name, name, other)
	if m.File == "" {
		return fmt.Errorf("node-name-map: %s", msg)
	}
	return &ParseError{File: m.File, Line: m.Lines[b.GUID], Msg: msg}
}
