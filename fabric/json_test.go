package fabric

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// jsonWithPorts is a JSON fabric of one switch and one HCA, cabled port 1
// to port 1, whose switch and HCA have the given port counts.
func jsonWithPorts(switchPorts, hcaPorts int) string {
	return fmt.Sprintf(`{"format":"slimroute-fabric/1","nodes":[`+
		`{"name":"s","kind":"switch","guid":"0x100","ports":%d},`+
		`{"name":"h","kind":"hca","guid":"0x200","ports":%d}],`+
		`"links":[{"a":{"node":"s","port":1},"b":{"node":"h","port":1}}]}`, switchPorts, hcaPorts)
}

// TestJSONPortCountOutOfRangeIsRefusedBeforeAllocating gives a switch or an
// HCA every kind of port count outside 1..254 (with a cable on port 1):
// the reader returns a *ParseError naming the file, the node and the
// range, never panics, and allocates next to nothing however large the
// count.
func TestJSONPortCountOutOfRangeIsRefusedBeforeAllocating(t *testing.T) {
	for _, bad := range []int{0, -1, MaxPorts + 1, 256, 1000, 100_000_000, 1 << 40} {
		for _, c := range []struct {
			node string
			in   string
		}{
			{"s", jsonWithPorts(bad, 1)},
			{"h", jsonWithPorts(2, bad)},
		} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := ReadJSON(strings.NewReader(c.in), "p.json")
			runtime.ReadMemStats(&after)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "p.json" {
				t.Fatalf("ports %d on %q: error %v, want a *ParseError in p.json", bad, c.node, err)
			}
			for _, want := range []string{fmt.Sprintf("(%q)", c.node), fmt.Sprintf("ports %d", bad), "1..254"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("ports %d on %q: %q does not say %q", bad, c.node, err, want)
				}
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
				t.Errorf("ports %d on %q: %d bytes allocated to refuse it", bad, c.node, grew)
			}
		}
	}
	if _, err := ReadJSON(strings.NewReader(jsonWithPorts(MaxPorts, MaxPorts)), "p.json"); err != nil {
		t.Fatalf("254 ports: %v", err)
	}
}

// TestNewRefusesPortCountsOutOfRangeWithoutPanicking builds fabrics whose
// nodes have port counts outside 1..254 and a cable on port 1: New reports
// the count and does not index past the ports it allocated.
func TestNewRefusesPortCountsOutOfRangeWithoutPanicking(t *testing.T) {
	for _, bad := range []int{-1, 0, 255, 1 << 30} {
		nodes := []Node{{Kind: Switch, Name: "s", GUID: 0x100, Ports: 2}, {Kind: HCA, Name: "h", GUID: 0x200, Ports: bad}}
		_, err := New(nodes, []Link{{A: PortRef{0, 1}, B: PortRef{1, 1}}})
		if err == nil || !strings.Contains(err.Error(), "1 to 254") {
			t.Fatalf("%d ports: error %v", bad, err)
		}
	}
}

// TestFabricWithoutSwitchIsRefused reads fabrics with no switch in every
// format that can hold one (an empty JSON fabric, HCA records only): the
// readers refuse them, naming the file, since nothing can route them and
// no format can write them back readably.
func TestFabricWithoutSwitchIsRefused(t *testing.T) {
	cases := []struct {
		format, in string
	}{
		{"json", `{"format":"slimroute-fabric/1","nodes":[],"links":[]}`},
		{"json", `{"format":"slimroute-fabric/1","nodes":[{"name":"h","kind":"hca","ports":1}],"links":[]}`},
		{"net", "Hca 1 \"h\"\n"},
		{"ibnd", "caguid=0x10\nCa\t1 \"H-0000000000000010\"\t\t# \"h\"\n"},
	}
	for _, c := range cases {
		var err error
		switch c.format {
		case "json":
			_, err = ReadJSON(strings.NewReader(c.in), "in.txt")
		case "net":
			_, err = ReadIBSimNet(strings.NewReader(c.in), "in.txt")
		case "ibnd":
			_, err = ReadIBNetDiscover(strings.NewReader(c.in), "in.txt")
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != "in.txt" || !strings.Contains(err.Error(), "no switch") {
			t.Errorf("%s %q: error %v, want a *ParseError in in.txt saying \"no switch\"", c.format, c.in, err)
		}
	}
}

// Every problem found in a JSON fabric is reported with the file's name
// (and the element's line where the reader finds it: the port cabled
// twice), not only the first: New still reports the GUID used twice.
func TestEveryValidationErrorOfAJSONFabricNamesTheFile(t *testing.T) {
	in := `{"format":"slimroute-fabric/1","nodes":[
{"name":"s","kind":"switch","guid":"0x100","ports":4},
{"name":"h","kind":"hca","guid":"0x100","ports":1},
{"name":"g","kind":"hca","guid":"0x300","ports":1}],
"links":[{"a":{"node":"s","port":1},"b":{"node":"h","port":1}},{"a":{"node":"s","port":1},"b":{"node":"g","port":1}}]}`
	_, err := ReadJSON(strings.NewReader(in), "two.json")
	if err == nil {
		t.Fatal("accepted")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) < 2 {
		t.Fatalf("want several problems, got %q", err)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "two.json: invalid fabric: ") && !strings.HasPrefix(l, "two.json:5: links[1]") {
			t.Errorf("line %q does not name the file (and the link's line)", l)
		}
	}
}
