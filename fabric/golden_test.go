package fabric

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it under
// -update. Review the diff of rewritten files before committing them.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the golden file; run go test -update and review the diff\n--- got:\n%s", name, got)
	}
}

func TestWritersMatchGoldenFiles(t *testing.T) {
	f := mustRead(t, "testdata/ibnd-small-fulllids.txt", readIBND)
	for name, write := range map[string]func(*bytes.Buffer, *Fabric) error{
		"small.net":           func(b *bytes.Buffer, f *Fabric) error { return WriteIBSimNet(b, f) },
		"small.ibnetdiscover": func(b *bytes.Buffer, f *Fabric) error { return WriteIBNetDiscover(b, f) },
		"small.json":          func(b *bytes.Buffer, f *Fabric) error { return WriteJSON(b, f) },
		"small.dot":           func(b *bytes.Buffer, f *Fabric) error { return WriteDOT(b, f) },
		"small.node-name-map": func(b *bytes.Buffer, f *Fabric) error { return WriteNodeNameMap(b, f) },
	} {
		var b bytes.Buffer
		if err := write(&b, f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		golden(t, name, b.Bytes())
	}
}
