package fabric

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every reader is fuzzed for two properties: it never panics, and whatever
// it accepts survives a write and a second read unchanged. The seed corpus
// is every file in testdata/ (real ibnetdiscover dumps, net files, maps)
// plus the crashers and interesting inputs kept in testdata/fuzz/.

func addSeeds(f *testing.F, patterns ...string) {
	for _, pat := range patterns {
		files, _ := filepath.Glob(filepath.Join("testdata", pat))
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

func roundTrip(t *testing.T, f *Fabric, write func(*bytes.Buffer, *Fabric) error, read func(*bytes.Buffer) (*Fabric, error)) {
	var b bytes.Buffer
	if err := write(&b, f); err != nil {
		return // some valid fabrics cannot be expressed in a format (names with quotes, no GUIDs)
	}
	text := b.String()
	g, err := read(&b)
	if err != nil {
		t.Fatalf("own output rejected: %v\n%s", err, text)
	}
	if a, b := strings.Join(describe(f), "\n"), strings.Join(describe(g), "\n"); a != b {
		t.Fatalf("round trip changed the fabric:\n%s\n---\n%s", a, b)
	}
}

func FuzzReadIBSimNet(f *testing.F) {
	addSeeds(f, "*.net", "golden/*.net")
	f.Add([]byte("switchguid=0x10\nSwitch 2 \"a\" # \"desc a\" lid 1\n[1] \"b\"[2] w=2 s=4\n\ncaguid+5\nHca 2 \"b\"\n[2] \"a\"[1]\n"))
	f.Add([]byte("Switch -12 \"a\"\n[1] \"b\"[1]\n\nHca 1e9 \"b\"\n[1] \"a\"[1]\n")) // counts once read from their digits
	f.Fuzz(func(t *testing.T, data []byte) {
		fab, err := ReadIBSimNet(bytes.NewReader(data), "fuzz.net")
		if err != nil {
			return
		}
		roundTrip(t, fab, func(b *bytes.Buffer, f *Fabric) error { return WriteIBSimNet(b, f) },
			func(b *bytes.Buffer) (*Fabric, error) { return ReadIBSimNet(b, "again.net") })
	})
}

func FuzzReadIBNetDiscover(f *testing.F) {
	addSeeds(f, "ibnd-*.txt", "golden/*.ibnetdiscover")
	f.Fuzz(func(t *testing.T, data []byte) {
		fab, err := ReadIBNetDiscover(bytes.NewReader(data), "fuzz.txt")
		if err != nil {
			return
		}
		roundTrip(t, fab, func(b *bytes.Buffer, f *Fabric) error { return WriteIBNetDiscover(b, f) },
			func(b *bytes.Buffer) (*Fabric, error) { return ReadIBNetDiscover(b, "again.txt") })
	})
}

func FuzzReadNodeNameMap(f *testing.F) {
	addSeeds(f, "*.node-name-map", "golden/*.node-name-map")
	f.Add([]byte("# c\n0x1 \"a b\" # trailing\n\n2 \"x\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadNodeNameMap(bytes.NewReader(data), "fuzz.map")
		if err != nil {
			return
		}
		for g, name := range m.Names {
			if name == "" || strings.Contains(name, "\"") {
				t.Fatalf("accepted name %q for %s", name, g)
			}
		}
	})
}

func FuzzReadJSON(f *testing.F) {
	addSeeds(f, "golden/*.json")
	f.Add([]byte(jsonWithPorts(2, MaxPorts+1))) // once a panic in New
	f.Add([]byte(jsonWithPorts(1<<30, 1)))      // once an out-of-memory
	f.Add([]byte(`{"format":"slimroute-fabric/1","nodes":[],"links":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fab, err := ReadJSON(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		roundTrip(t, fab, func(b *bytes.Buffer, f *Fabric) error { return WriteJSON(b, f) },
			func(b *bytes.Buffer) (*Fabric, error) { return ReadJSON(b, "again.json") })
	})
}
