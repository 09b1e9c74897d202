package fabric

import (
	"slices"
	"unicode/utf8"
)

// Reading a JSON fabric fast. The OpenSM plugin reads the subnet as
// slimroute JSON inside OpenSM's lock on every heavy sweep, and
// encoding/json (with the key and line checks around it) took 20 ms of the
// plugin's 90 on Slim Fly q = 7. decodeJSONFast reads the fields of the
// schema straight from the bytes, and only the JSON that reads the same
// both ways: keys as the schema spells them, each once; strings without
// escapes; integers in range; no null. Anything else — an error to
// report, or a rarity such as an escaped character — goes to the general
// reader, which says where it is wrong (FuzzJSONFastReadsAsGeneral holds
// the two to each other).

// fastJSON is a cursor over JSON bytes that counts lines.
type fastJSON struct {
	data []byte
	i    int
	line int
}

// decodeJSONFast decodes data into a jsonFabric with the line each element
// of "nodes" and "links" starts on, as decoding with encoding/json and
// elementLines would; ok false when data is not in the subset it reads.
func decodeJSONFast(data []byte) (in jsonFabric, nodeLines, linkLines []int, ok bool) {
	p := &fastJSON{data: data, line: 1}
	ok = p.fields(topKeys, func(i int) bool {
		switch i {
		case 0:
			s, ok := p.str()
			in.Format = s
			return ok
		case 1:
			return p.array(func() bool {
				nodeLines = append(nodeLines, p.line)
				in.Nodes = append(in.Nodes, jsonNode{})
				return p.node(&in.Nodes[len(in.Nodes)-1])
			})
		default:
			return p.array(func() bool {
				linkLines = append(linkLines, p.line)
				in.Links = append(in.Links, jsonLink{})
				return p.link(&in.Links[len(in.Links)-1])
			})
		}
	})
	p.space()
	return in, nodeLines, linkLines, ok && p.i == len(data)
}

// The keys of the schema's objects, in the order of their fields.
var (
	topKeys  = []string{"format", "nodes", "links"}
	nodeKeys = []string{"name", "kind", "guid", "ports", "rack", "u", "port_attrs"}
	attrKeys = []string{"port", "guid", "lid", "lmc"}
	linkKeys = []string{"a", "b", "width", "speed"}
	endKeys  = []string{"node", "port"}
)

func (p *fastJSON) node(n *jsonNode) bool {
	return p.fields(nodeKeys, func(i int) (ok bool) {
		switch i {
		case 0:
			n.Name, ok = p.str()
		case 1:
			n.Kind, ok = p.str()
		case 2:
			n.GUID, ok = p.str()
		case 3:
			n.Ports, ok = p.integer()
		case 4:
			n.Rack, ok = p.integer()
		case 5:
			n.U, ok = p.integer()
		default:
			ok = p.array(func() bool {
				n.Attrs = append(n.Attrs, jsonPortAttr{})
				return p.portAttr(&n.Attrs[len(n.Attrs)-1])
			})
		}
		return ok
	})
}

func (p *fastJSON) portAttr(a *jsonPortAttr) bool {
	return p.fields(attrKeys, func(i int) (ok bool) {
		var v int
		switch i {
		case 0:
			a.Port, ok = p.integer()
		case 1:
			a.GUID, ok = p.str()
		case 2:
			v, ok = p.unsigned()
			ok = ok && v <= 0xffff
			a.LID = uint16(v)
		default:
			v, ok = p.unsigned()
			ok = ok && v <= 0xff
			a.LMC = uint8(v)
		}
		return ok
	})
}

func (p *fastJSON) link(l *jsonLink) bool {
	return p.fields(linkKeys, func(i int) (ok bool) {
		switch i {
		case 0:
			ok = p.end(&l.A)
		case 1:
			ok = p.end(&l.B)
		case 2:
			l.Width, ok = p.str()
		default:
			l.Speed, ok = p.str()
		}
		return ok
	})
}

func (p *fastJSON) end(e *jsonEnd) bool {
	return p.fields(endKeys, func(i int) (ok bool) {
		if i == 0 {
			e.Node, ok = p.str()
		} else {
			e.Port, ok = p.integer()
		}
		return ok
	})
}

// fields reads an object whose keys are among keys, each at most once,
// calling member with the key's index, the cursor on its value.
func (p *fastJSON) fields(keys []string, member func(i int) bool) bool {
	seen := 0
	return p.object(func(key string) bool {
		i := slices.Index(keys, key)
		if i < 0 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		return member(i)
	})
}

// object reads {"key": value, …}, calling member with each key, the
// cursor on its value.
func (p *fastJSON) object(member func(key string) bool) bool {
	if !p.take('{') {
		return false
	}
	if p.take('}') {
		return true
	}
	for {
		key, ok := p.str()
		if !ok || !p.take(':') || !member(key) {
			return false
		}
		if p.take('}') {
			return true
		}
		if !p.take(',') {
			return false
		}
	}
}

// array reads [value, …], calling elem with the cursor on each value.
func (p *fastJSON) array(elem func() bool) bool {
	if !p.take('[') {
		return false
	}
	if p.take(']') {
		return true
	}
	for {
		p.space()
		if !elem() {
			return false
		}
		if p.take(']') {
			return true
		}
		if !p.take(',') {
			return false
		}
	}
}

// take skips white space and reads byte c.
func (p *fastJSON) take(c byte) bool {
	p.space()
	if p.i < len(p.data) && p.data[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *fastJSON) space() {
	for ; p.i < len(p.data); p.i++ {
		switch p.data[p.i] {
		case '\n':
			p.line++
		case ' ', '\t', '\r':
		default:
			return
		}
	}
}

// str reads a string without escapes or control characters, in valid
// UTF-8 (which encoding/json keeps as it is).
func (p *fastJSON) str() (string, bool) {
	if !p.take('"') {
		return "", false
	}
	start, ascii := p.i, true
	for ; p.i < len(p.data); p.i++ {
		switch c := p.data[p.i]; {
		case c == '"':
			s := p.data[start:p.i]
			p.i++
			return string(s), ascii || utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return "", false
		case c >= 0x80:
			ascii = false
		}
	}
	return "", false
}

// integer reads an integer as JSON writes it (no leading zeros, no
// fraction or exponent) of at most 9 digits.
func (p *fastJSON) integer() (int, bool) {
	p.space()
	neg := p.i < len(p.data) && p.data[p.i] == '-'
	if neg {
		p.i++
	}
	start, v := p.i, 0
	for ; p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9'; p.i++ {
		v = 10*v + int(p.data[p.i]-'0')
	}
	n := p.i - start
	if n == 0 || n > 9 || n > 1 && p.data[start] == '0' {
		return 0, false
	}
	if p.i < len(p.data) {
		if c := p.data[p.i]; c == '.' || c == 'e' || c == 'E' {
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	return v, true
}

// unsigned reads an integer without a sign, as integer does.
func (p *fastJSON) unsigned() (int, bool) {
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '-' {
		return 0, false
	}
	return p.integer()
}
