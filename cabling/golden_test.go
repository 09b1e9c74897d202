package cabling

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"slimroute/fabric"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/golden from the writers' output")

// smallRoom is a fabric small enough to read its sheets in a review: two
// racks of switches with hosts, one host on a hand-set unit, and a switch
// whose name HTML and CSV must escape.
func smallRoom(t *testing.T) *fabric.Fabric {
	t.Helper()
	sw := func(name string, rack int) fabric.Node {
		return fabric.Node{Kind: fabric.Switch, Name: name, Ports: 8, Place: fabric.Placement{Rack: rack}}
	}
	host := func(name string, rack, u int) fabric.Node {
		return fabric.Node{Kind: fabric.HCA, Name: name, Ports: 1, Place: fabric.Placement{Rack: rack, U: u}}
	}
	nodes := []fabric.Node{sw("leaf-1", 1), sw("leaf-2", 1), sw(`spine "A" & <B>`, 2),
		host("node-1", 1, 0), host("node-2", 1, 0), host("node-10", 1, 20), host("node-3", 2, 0)}
	link := func(a, pa, b, pb int) fabric.Link {
		return fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(a), Port: pa}, B: fabric.PortRef{Node: fabric.NodeID(b), Port: pb}}
	}
	f, err := fabric.New(nodes, []fabric.Link{
		link(0, 1, 3, 1), link(0, 2, 4, 1), link(1, 1, 5, 1), link(2, 1, 6, 1),
		link(0, 7, 2, 7), link(0, 8, 2, 8), link(1, 7, 2, 6), link(0, 6, 1, 6),
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSheetsMatchGolden compares every file the plan writes for smallRoom
// with testdata/golden (go test ./cabling -run Golden -update rewrites
// them; review the diff).
func TestSheetsMatchGolden(t *testing.T) {
	p, err := MakePlan(smallRoom(t), DefaultGeometry())
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]func(io.Writer) error{
		"cables.csv":            func(w io.Writer) error { return WriteCSV(w, p) },
		"racks.html":            func(w io.Writer) error { return WriteHTML(w, p) },
		"racks.svg":             func(w io.Writer) error { return WriteSVG(w, p) },
		"labels.csv":            func(w io.Writer) error { return WriteLabelsCSV(w, p) },
		"labels.html":           func(w io.Writer) error { return WriteLabelsHTML(w, p) },
		"netbox-devices.csv":    func(w io.Writer) error { return WriteNetBoxDevices(w, p, "hall 2") },
		"netbox-interfaces.csv": func(w io.Writer) error { return WriteNetBoxInterfaces(w, p) },
		"netbox-cables.csv":     func(w io.Writer) error { return WriteNetBoxCables(w, p) },
	} {
		var got bytes.Buffer
		if err := w(&got); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "golden", name)
		if *updateGolden {
			if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./cabling -run Golden -update to write it)", err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s differs from %s; if the change is meant, rerun with -update and review the diff", name, path)
		}
	}
}
