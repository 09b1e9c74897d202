package fabric_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/internal/disguise"
	"slimroute/slimfly"
)

// subnetList writes f as OpenSM 3.3 writes opensm-subnet.lst
// (osm_dump.c, dump_topology_node): for every node, a line per cabled
// port with that port's end and its peer's, every number in hex, LIDs
// from lid (a switch's on its port 0); lines in the order rng gives.
func subnetList(f *fabric.Fabric, lid func(fabric.PortRef) int, rng *rand.Rand) string {
	end := func(p fabric.PortRef) string {
		n := f.Node(p.Node)
		kind, lp := "CA", p
		if n.Kind == fabric.Switch {
			kind, lp = "SW", fabric.PortRef{Node: p.Node}
		}
		return fmt.Sprintf("{ %s Ports:%02X SystemGUID:%016x NodeGUID:%016x PortGUID:%016x VenID:000000 DevID:0000 Rev:000000A1 {%s} LID:%04X PN:%02X }",
			kind, n.Ports, uint64(n.GUID), uint64(n.GUID), uint64(f.PortGUID(p)), n.Name, lid(lp), p.Port)
	}
	var lines []string
	for i := range f.NumNodes() {
		for p := 1; p <= f.Node(fabric.NodeID(i)).Ports; p++ {
			at := fabric.PortRef{Node: fabric.NodeID(i), Port: p}
			if peer, ok := f.Peer(at); ok {
				lines = append(lines, end(at)+" "+end(peer)+" PHY=4x LOG=ACT SPD=2.5\n")
			}
		}
	}
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return strings.Join(lines, "")
}

// TestReadOpenSMSubnet reads OpenSM's subnet list of Slim Flies and Clos
// fabrics, as built and disguised (factory names shared by every switch,
// other GUIDs and ports), lines in random orders: the same nodes (GUID,
// kind, ports, the description as name or with the GUID appended where
// shared, the listed LIDs) and the same cables; Sniff knows the format.
// A router, a line cut short, a cable listed from one end only and a node
// that changes its port count are errors naming the line.
func TestReadOpenSMSubnet(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 9))
	var fabrics []*fabric.Fabric
	for _, q := range []int{3, 5} {
		f, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		fabrics = append(fabrics, f)
	}
	for _, p := range []clos.Params{{Radix: 8}, {Levels: 3, Radix: 8}} {
		f, err := clos.Build(p)
		if err != nil {
			t.Fatal(err)
		}
		fabrics = append(fabrics, f)
	}
	for _, f := range slices.Clone(fabrics) {
		d, err := disguise.Fabric(f, rng)
		if err != nil {
			t.Fatal(err)
		}
		fabrics = append(fabrics, d)
	}
	for i, f := range fabrics {
		lid := func(p fabric.PortRef) int { return 1 + int(p.Node)*7 + p.Port }
		text := subnetList(f, lid, rng)
		if got := fabric.Sniff([]byte(text)); got != fabric.FormatOpenSMSubnet {
			t.Fatalf("fabric %d: sniffed as %q", i, got)
		}
		g, err := fabric.Read(strings.NewReader(text), "opensm-subnet.lst", fabric.FormatOpenSMSubnet)
		if err != nil {
			t.Fatalf("fabric %d: %v", i, err)
		}
		if g.NumNodes() != f.NumNodes() || g.NumLinks() != f.NumLinks() {
			t.Fatalf("fabric %d: %d nodes and %d cables, want %d and %d", i, g.NumNodes(), g.NumLinks(), f.NumNodes(), f.NumLinks())
		}
		for n := range f.NumNodes() {
			want := f.Node(fabric.NodeID(n))
			id, ok := g.NodeByGUID(want.GUID)
			if !ok {
				t.Fatalf("fabric %d: node %s missing", i, want.Name)
			}
			got := g.Node(id)
			if got.Kind != want.Kind || got.Ports != want.Ports || (got.Name != want.Name && got.Name != want.Name+" ("+want.GUID.String()+")") {
				t.Fatalf("fabric %d: node %+v, want %+v", i, got, want)
			}
			for p := 0; p <= want.Ports; p++ {
				at := fabric.PortRef{Node: fabric.NodeID(n), Port: p}
				peer, cabled := f.Peer(at)
				gp, gcabled := g.Peer(fabric.PortRef{Node: id, Port: p})
				if cabled != gcabled || cabled && (g.GUID(gp.Node) != f.GUID(peer.Node) || gp.Port != peer.Port) {
					t.Fatalf("fabric %d: %s port %d cabled to %v, want %v", i, want.Name, p, gp, peer)
				}
				if a, ok := got.Attrs[p]; ok && int(a.LID) != lid(at) {
					t.Fatalf("fabric %d: %s port %d LID %d, want %d", i, want.Name, p, a.LID, lid(at))
				}
			}
		}
	}
	good := strings.SplitAfter(subnetList(fabrics[0], func(fabric.PortRef) int { return 1 }, rng), "\n")
	for _, c := range []struct {
		name, text, want string
	}{
		{"a router", strings.Replace(good[0], "{ SW", "{ Rt", 1) + strings.Join(good[1:], ""), "opensm-subnet.lst:1: router nodes are not supported"},
		{"a line cut short", good[0][:len(good[0])/2] + "\n" + strings.Join(good[1:], ""), "opensm-subnet.lst:1: unrecognised line"},
		{"a cable from one end", strings.Join(good[1:], ""), "is listed on one side only"},
		{"a port count changed", regexp.MustCompile(`Ports:[0-9A-F]+`).ReplaceAllString(good[0], "Ports:3F") + strings.Join(good[1:], ""), "earlier as another kind, port count or description"},
	} {
		_, err := fabric.Read(strings.NewReader(c.text), "opensm-subnet.lst", fabric.FormatOpenSMSubnet)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
