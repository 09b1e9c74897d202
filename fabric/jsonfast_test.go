package fabric

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// shimJSON writes f as the OpenSM plugin's shim does: one line, no
// spaces, names as "description (0xGUID)", every port's LID and LMC.
func shimJSON(f *Fabric) string {
	var b strings.Builder
	name := func(id NodeID) string {
		n := f.Node(id)
		return fmt.Sprintf("%q", fmt.Sprintf("%s (%s)", n.Name, n.GUID))
	}
	b.WriteString(`{"format":"slimroute-fabric/1","nodes":[`)
	for i := range f.NumNodes() {
		n := f.Node(NodeID(i))
		port := 1
		if n.Kind == Switch {
			port = 0
		}
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":%s,"kind":"%s","guid":"%s","ports":%d,"port_attrs":[{"port":%d,"guid":"%s","lid":%d,"lmc":%d}]}`,
			name(NodeID(i)), n.Kind, n.GUID, n.Ports, port, n.GUID, 1+i*4, 2)
	}
	b.WriteString(`],"links":[`)
	for i, l := range f.Links() {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"a":{"node":%s,"port":%d},"b":{"node":%s,"port":%d}}`, name(l.A.Node), l.A.Port, name(l.B.Node), l.B.Port)
	}
	b.WriteString(`]}`)
	return b.String()
}

// normalised returns in with empty slices for nil ones, as decoding an
// empty JSON array gives: the two readers may differ only there.
func normalised(in jsonFabric) jsonFabric {
	if in.Nodes == nil {
		in.Nodes = []jsonNode{}
	}
	if in.Links == nil {
		in.Links = []jsonLink{}
	}
	for i := range in.Nodes {
		if in.Nodes[i].Attrs == nil {
			in.Nodes[i].Attrs = []jsonPortAttr{}
		}
	}
	return in
}

// Whatever the fast reader accepts, encoding/json reads the same: the same
// fields, and the same line for each node and link. Seeds: the golden
// files, the shim's layout, and inputs at the edges of the fast reader's
// subset (each on one side of it).
func FuzzJSONFastReadsAsGeneral(f *testing.F) {
	addSeeds(f, "golden/*.json")
	ring := shimJSON(ringFabric(f, 5))
	f.Add([]byte(ring))
	for _, edit := range [][2]string{
		{`"lid":1,`, `"lid":-0,`}, {`"lmc":2`, `"lmc":256`}, {`"ports":8`, `"ports":08`}, {`"ports":8`, `"ports":8.0`},
		{`"ports":8`, `"Ports":8`}, {`"ports":8`, `"ports":8,"ports":9`}, {`"ports":8`, `"ports":null`},
		{`"kind":"switch"`, `"kind":"sw\u0069tch"`}, {`sw0`, "sw\xff0"}, {`sw0`, "sw\u00e90"}, {`sw0`, "sw\t0"},
		{`"ports":8`, `"ports":1000000000`}, {`]}`, `]} x`}, {`,"links"`, "\n,\r\n\t\"links\""},
	} {
		f.Add([]byte(strings.Replace(ring, edit[0], edit[1], 1)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, fn, fl, ok := decodeJSONFast(data)
		if !ok {
			return
		}
		slow, sn, sl, err := decodeJSON(data, "fuzz.json")
		if err != nil {
			t.Fatalf("the fast reader accepts what encoding/json refuses (%v):\n%q", err, data)
		}
		if !reflect.DeepEqual(normalised(fast), normalised(slow)) {
			t.Fatalf("the readers differ:\nfast %+v\nslow %+v\n%q", fast, slow, data)
		}
		if !slicesEqual(fn, sn) || !slicesEqual(fl, sl) {
			t.Fatalf("element lines differ: fast %v %v, slow %v %v\n%q", fn, fl, sn, sl, data)
		}
	})
}

func slicesEqual(a, b []int) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

// The fast reader takes the shim's layout and WriteJSON's indented one,
// and leaves to encoding/json what it must not guess at.
func TestJSONFastTakesWhatItShould(t *testing.T) {
	f := ringFabric(t, 5)
	var indented bytes.Buffer
	if err := WriteJSON(&indented, f); err != nil {
		t.Fatal(err)
	}
	shim := shimJSON(f)
	for _, c := range []struct {
		name, text string
		fast       bool
	}{
		{"the shim's layout", shim, true},
		{"WriteJSON's layout", indented.String(), true},
		{"an escaped character", strings.Replace(shim, `"switch"`, `"sw\u0069tch"`, 1), false},
		{"a key in other case", strings.Replace(shim, `"ports"`, `"Ports"`, 1), false},
		{"a key given twice", strings.Replace(shim, `"ports":8`, `"ports":8,"ports":8`, 1), false},
		{"a negative LID", strings.Replace(shim, `"lid":1,`, `"lid":-0,`, 1), false},
		{"invalid UTF-8", strings.Replace(shim, "sw0", "sw\xff0", 1), false},
		{"data after the object", shim + " {}", false},
	} {
		_, _, _, ok := decodeJSONFast([]byte(c.text))
		if ok != c.fast {
			t.Errorf("%s: fast reader took it: %v, want %v", c.name, ok, c.fast)
		}
		if _, err := ReadJSON(strings.NewReader(c.text), c.name); c.fast && err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
