package verify_test

import (
	"fmt"
	"strings"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/verify"
)

// Judge the tables of a ring of three switches, each with one HCA, in
// which every switch sends the other HCAs' traffic clockwise on VL 0: the
// three channels wait on each other, a credit loop.
func ExampleCheck() {
	var nodes []fabric.Node
	var links []fabric.Link
	for i := 0; i < 3; i++ {
		nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: fmt.Sprintf("s%d", i), GUID: fabric.GUID(0x100 + i), Ports: 3})
	}
	for i := 0; i < 3; i++ {
		// port 2 of switch i to port 3 of switch i+1; the HCA on port 1
		links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(i), Port: 2}, B: fabric.PortRef{Node: fabric.NodeID((i + 1) % 3), Port: 3}})
		nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: fmt.Sprintf("h%d", i), GUID: fabric.GUID(0x1000 + 16*i), Ports: 1})
		links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(i), Port: 1}, B: fabric.PortRef{Node: fabric.NodeID(3 + i), Port: 1}})
	}
	f, err := fabric.New(nodes, links)
	if err != nil {
		panic(err)
	}
	// LIDs: switches 1..3, HCAs 4..6. Every switch delivers its own HCA's
	// LID on port 1, its own LID on port 0, and sends the rest on port 2.
	var dump strings.Builder
	for s := 0; s < 3; s++ {
		fmt.Fprintf(&dump, "Unicast lids [0-6] of switch Lid %d guid 0x%016x ('s%d'):\n", s+1, 0x100+s, s)
		for lid := 1; lid <= 6; lid++ {
			port := 2
			switch {
			case lid == s+1:
				port = 0
			case lid == s+4:
				port = 1
			}
			owner := fmt.Sprintf("Switch portguid 0x%016x: 's%d'", 0x100+(lid-1)%3, (lid-1)%3)
			if lid > 3 {
				owner = fmt.Sprintf("Channel Adapter portguid %s: 'h%d'", f.Node(fabric.NodeID(lid-1)).PortGUID(1), lid-4)
			}
			fmt.Fprintf(&dump, "0x%04x %03d # %s\n", lid, port, owner)
		}
	}
	t, err := lft.ReadOpenSMLFTs(strings.NewReader(dump.String()), "ring.lfts", f)
	if err != nil {
		panic(err)
	}
	rep, err := verify.Check(t, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println("acyclic:", rep.Acyclic())
	fmt.Println(rep.CycleString())
	// Output:
	// acyclic: false
	// s0[2] VL0 -> s1[2] VL0 -> s2[2] VL0 -> s0[2] VL0
}
