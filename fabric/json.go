package fabric

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"slimroute/internal/parseerr"
)

// jsonFormat is the value of the "format" field of slimroute's JSON fabric
// files; it changes when the schema does.
const jsonFormat = "slimroute-fabric/1"

type jsonFabric struct {
	Format string     `json:"format"`
	Nodes  []jsonNode `json:"nodes"`
	Links  []jsonLink `json:"links"`
}

type jsonNode struct {
	Name  string         `json:"name"`
	Kind  string         `json:"kind"`
	GUID  string         `json:"guid,omitempty"`
	Ports int            `json:"ports"`
	Rack  int            `json:"rack,omitempty"`
	U     int            `json:"u,omitempty"`
	Attrs []jsonPortAttr `json:"port_attrs,omitempty"`
}

type jsonPortAttr struct {
	Port int    `json:"port"`
	GUID string `json:"guid,omitempty"`
	LID  uint16 `json:"lid,omitempty"`
	LMC  uint8  `json:"lmc,omitempty"`
}

type jsonEnd struct {
	Node string `json:"node"`
	Port int    `json:"port"`
}

type jsonLink struct {
	A     jsonEnd `json:"a"`
	B     jsonEnd `json:"b"`
	Width string  `json:"width,omitempty"`
	Speed string  `json:"speed,omitempty"`
}

// WriteJSON writes f as JSON; links name nodes by name. The output is
// indented and deterministic.
func WriteJSON(w io.Writer, f *Fabric) error {
	out := jsonFabric{Format: jsonFormat, Nodes: []jsonNode{}, Links: []jsonLink{}}
	for i := range f.nodes {
		n := &f.nodes[i]
		jn := jsonNode{Name: n.Name, Kind: n.Kind.String(), Ports: n.Ports, Rack: n.Place.Rack, U: n.Place.U}
		if n.GUID != 0 {
			jn.GUID = n.GUID.String()
		}
		for _, p := range sortedPorts(n.Attrs) {
			a := n.Attrs[p]
			ja := jsonPortAttr{Port: p, LID: a.LID, LMC: a.LMC}
			if a.GUID != 0 {
				ja.GUID = a.GUID.String()
			}
			jn.Attrs = append(jn.Attrs, ja)
		}
		out.Nodes = append(out.Nodes, jn)
	}
	for _, l := range f.links {
		out.Links = append(out.Links, jsonLink{
			A:     jsonEnd{f.nodes[l.A.Node].Name, l.A.Port},
			B:     jsonEnd{f.nodes[l.B.Node].Name, l.B.Port},
			Width: l.Width.String(),
			Speed: speedString(l.Speed),
		})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func speedString(s Speed) string {
	if s == 0 {
		return ""
	}
	return s.String()
}

// ReadJSON reads a fabric written by WriteJSON. Unknown fields are errors.
func ReadJSON(r io.Reader, file string) (*Fabric, error) {
	data, err := io.ReadAll(parseerr.Capped(r, file, maxDescription, "JSON fabric"))
	if pe := (*ParseError)(nil); errors.As(err, &pe) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a byte order mark some editors write
	in, nodeLines, linkLines, ok := decodeJSONFast(data)
	if !ok {
		var err error
		if in, nodeLines, linkLines, err = decodeJSON(data, file); err != nil {
			return nil, err
		}
	}
	errs := &errorList{file: file}
	if in.Format != jsonFormat {
		errs.add(0, "format is %q; want %q", in.Format, jsonFormat)
		return nil, errs.err()
	}
	nodes := make([]Node, 0, len(in.Nodes))
	ids := map[string]NodeID{}
	for i, jn := range in.Nodes {
		line := lineOf(nodeLines, i)
		n := Node{Name: jn.Name, Ports: jn.Ports, Place: Placement{Rack: jn.Rack, U: jn.U}}
		switch jn.Kind {
		case "switch":
			n.Kind = Switch
		case "hca":
			n.Kind = HCA
		default:
			errs.add(line, "nodes[%d] (%q): kind %q; want \"switch\" or \"hca\"", i, jn.Name, jn.Kind)
		}
		if jn.Rack < 0 || jn.Rack > MaxRack || jn.U < 0 || jn.U > MaxRackUnits {
			errs.add(line, "nodes[%d] (%q): rack %d, u %d; want a rack of 1..%d and a unit of 1..%d (0 or left out: not placed)", i, jn.Name, jn.Rack, jn.U, MaxRack, MaxRackUnits)
		}
		if jn.Ports < 1 || jn.Ports > MaxPorts {
			errs.add(line, "nodes[%d] (%q): ports %d; a node has ports 1..%d (port numbers are 8 bit, 255 is reserved)", i, jn.Name, jn.Ports, MaxPorts)
		}
		if jn.GUID != "" {
			g, err := parseJSONGUID(jn.GUID)
			if err != nil {
				errs.add(line, "nodes[%d] (%q): %v", i, jn.Name, err)
			}
			n.GUID = g
		}
		for k, ja := range jn.Attrs {
			if n.Attrs == nil {
				n.Attrs = map[int]PortAttr{}
			}
			if _, dup := n.Attrs[ja.Port]; dup {
				errs.add(line, "nodes[%d] (%q): port_attrs[%d]: port %d listed twice", i, jn.Name, k, ja.Port)
			}
			a := PortAttr{LID: ja.LID, LMC: ja.LMC}
			if ja.GUID != "" {
				g, err := parseJSONGUID(ja.GUID)
				if err != nil {
					errs.add(line, "nodes[%d] (%q): port_attrs[%d]: %v", i, jn.Name, k, err)
				}
				a.GUID = g
			}
			if a.LMC > 7 {
				errs.add(line, "nodes[%d] (%q): port_attrs[%d]: lmc %d; LMC is 0..7", i, jn.Name, k, a.LMC)
			}
			n.Attrs[ja.Port] = a
		}
		if prev, dup := ids[jn.Name]; !dup {
			ids[jn.Name] = NodeID(i)
		} else if jn.Name != "" {
			errs.add(line, "nodes[%d]: name %q already used by nodes[%d] (line %d); node names must be unique: rename one of them", i, jn.Name, prev, lineOf(nodeLines, int(prev)))
		}
		nodes = append(nodes, n)
	}
	requireSwitch(nodes, errs)
	nodeErrs := len(errs.errs)
	links := make([]Link, 0, len(in.Links))
	cabled := map[PortRef]int{} // port -> the link that uses it
	for i, jl := range in.Links {
		line := lineOf(linkLines, i)
		l := Link{}
		ok := true
		for k, e := range [2]jsonEnd{jl.A, jl.B} {
			id, found := ids[e.Node]
			if !found {
				errs.add(line, "links[%d].%c: unknown node %q", i, "ab"[k], e.Node)
				ok = false
			}
			if k == 0 {
				l.A = PortRef{id, e.Port}
			} else {
				l.B = PortRef{id, e.Port}
			}
		}
		if jl.Width != "" {
			w, err := ParseWidth(jl.Width)
			if err != nil {
				errs.add(line, "links[%d]: %v", i, err)
			}
			l.Width = w
		}
		if jl.Speed != "" {
			s, err := ParseSpeed(jl.Speed)
			if err != nil {
				errs.add(line, "links[%d]: %v", i, err)
			}
			l.Speed = s
		}
		if ok && checkJSONLink(errs, line, i, l, nodes, cabled, linkLines) {
			links = append(links, l)
		}
	}
	if nodeErrs > 0 {
		return nil, errs.err()
	}
	// the links found wrong are left out: New reports the rest
	f, err := New(nodes, links)
	if listed := errs.err(); listed != nil {
		return nil, errors.Join(listed, wrapValidation(file, err))
	}
	return f, wrapValidation(file, err)
}

// decodeJSON decodes data with encoding/json, strictly: unknown fields,
// data after the object and keys given twice are errors. It returns the
// line each element of "nodes" and "links" starts on.
func decodeJSON(data []byte, file string) (in jsonFabric, nodeLines, linkLines []int, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, nil, nil, jsonError(file, data, dec, err)
	}
	if dec.More() {
		return in, nil, nil, &ParseError{File: file, Line: lineAt(data, dec.InputOffset()), Msg: "unexpected data after the fabric object"}
	}
	if off, key := duplicateKey(data); key != "" {
		// encoding/json keeps the last of them: refuse rather than guess
		return in, nil, nil, &ParseError{File: file, Line: lineAt(data, off), Msg: fmt.Sprintf("key %q given twice in one object; keep one", key)}
	}
	nodeLines, linkLines = elementLines(data)
	return in, nodeLines, linkLines, nil
}

// checkJSONLink reports, at the link's line, the cabling errors a user
// makes editing the file: a port the node does not have, a cable from a
// port to itself, a port two links use. It reports whether l is sound.
func checkJSONLink(errs *errorList, line, i int, l Link, nodes []Node, cabled map[PortRef]int, linkLines []int) bool {
	ok := true
	for k, e := range [2]PortRef{l.A, l.B} {
		n := nodes[e.Node]
		if n.Ports >= 1 && n.Ports <= MaxPorts && (e.Port < 1 || e.Port > n.Ports) {
			errs.add(line, "links[%d].%c: port %d of %q, which has ports 1..%d", i, "ab"[k], e.Port, n.Name, n.Ports)
			ok = false
		}
	}
	if !ok {
		return false
	}
	if l.A == l.B {
		errs.add(line, "links[%d]: cables port %d of %q to itself", i, l.A.Port, nodes[l.A.Node].Name)
		return false
	}
	for k, e := range [2]PortRef{l.A, l.B} {
		if prev, used := cabled[e]; used {
			errs.add(line, "links[%d].%c: port %d of %q is already cabled by links[%d] (line %d); a port takes one cable", i, "ab"[k], e.Port, nodes[e.Node].Name, prev, lineOf(linkLines, prev))
			ok = false
			continue
		}
		cabled[e] = i
	}
	return ok
}

// elementLines returns the line on which each element of the top-level
// "nodes" and "links" arrays of a JSON fabric starts; an array it cannot
// read is left nil (its errors then name no line).
func elementLines(data []byte) (nodes, links []int) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil
	}
	line, seen := 1, int64(0) // the line of offset seen
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nodes, links
		}
		key, _ := t.(string)
		if key != "nodes" && key != "links" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nodes, links
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nodes, links
		}
		var lines []int
		for dec.More() {
			off := dec.InputOffset()
			for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
				off++
			}
			line += bytes.Count(data[seen:off], []byte("\n")) // counted on from the last element, not from the start
			seen = off
			lines = append(lines, line)
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nodes, links
			}
		}
		if _, err := dec.Token(); err != nil { // ']'
			return nodes, links
		}
		if key == "nodes" {
			nodes = lines
		} else {
			links = lines
		}
	}
	return nodes, links
}

// lineOf returns lines[i], 0 (no line) past its end.
func lineOf(lines []int, i int) int {
	if i < len(lines) {
		return lines[i]
	}
	return 0
}

func jsonError(file string, data []byte, dec *json.Decoder, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &ParseError{File: file, Line: lineAt(data, syn.Offset), Msg: "JSON syntax: " + syn.Error()}
	case errors.As(err, &typ):
		return &ParseError{File: file, Line: lineAt(data, typ.Offset), Msg: fmt.Sprintf("field %q: want a %s, not a JSON %s", typ.Field, typ.Type, typ.Value)}
	case errors.Is(err, io.EOF):
		return &ParseError{File: file, Msg: "empty input; want a JSON fabric object"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &ParseError{File: file, Line: lineAt(data, int64(len(data))), Msg: "input ends inside the JSON object"}
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return &ParseError{File: file, Line: lineAt(data, dec.InputOffset()), Msg: strings.TrimPrefix(err.Error(), "json: ") + "; check the spelling against the schema in docs/formats.md"}
	}
	return &ParseError{File: file, Msg: err.Error()}
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// parseJSONGUID parses a GUID as WriteJSON writes it: 0x and hex digits.
// Without the 0x a number like "49152" would read as hex 0x49152 though
// it may have been meant in decimal.
func parseJSONGUID(s string) (GUID, error) {
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return 0, fmt.Errorf("invalid GUID %q: want 0x and up to 16 hex digits", s)
	}
	return ParseGUID(s)
}

// duplicateKey returns the offset just past the first key that an object
// of data (valid JSON) gives twice, and the key; "" when none does. It
// scans the bytes (json.Decoder's tokens took as long as the decoding
// itself); keys are compared as written, escapes not decoded.
func duplicateKey(data []byte) (int64, string) {
	type level struct {
		keys   [][]byte // the keys of an object so far; nil for an array
		object bool
		key    bool // in an object, the next string is a key
	}
	var stack []level
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{':
			stack = append(stack, level{object: true, key: true})
		case '[':
			stack = append(stack, level{})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].key = true
			}
		case '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].key && j < len(data) {
				k := data[i+1 : j]
				for _, seen := range stack[n-1].keys {
					if bytes.Equal(seen, k) {
						return int64(j + 1), string(k)
					}
				}
				stack[n-1].keys = append(stack[n-1].keys, k)
				stack[n-1].key = false
			}
			i = j
		}
	}
	return 0, ""
}
