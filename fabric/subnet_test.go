package fabric_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"slimroute/fabric"
)

// TestFabricsLargerThanASubnetAreRefused draws fabrics around one subnet's
// LID count — a chain of switches with HCAs on their spare ports, some
// HCAs with an uncabled second port, some with no cable at all — and
// expects New to accept exactly those whose switches and cabled HCA ports
// fit in fabric.MaxLIDs, and to refuse the others, saying how many LIDs
// they need.
func TestFabricsLargerThanASubnetAreRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 0))
	for i := 0; i < 12; i++ {
		need := fabric.MaxLIDs - 2 + i%4 + []int{0, 0, 0, 0, -rng.IntN(500), rng.IntN(500)}[i%6]
		nodes, links := subnetCase(rng, need)
		_, err := fabric.New(nodes, links)
		switch fits := need <= fabric.MaxLIDs; {
		case fits && err != nil:
			t.Fatalf("%d LIDs: refused: %v", need, err)
		case !fits && (err == nil || !strings.Contains(err.Error(), fmt.Sprintf("needs %d LIDs", need))):
			t.Fatalf("%d LIDs: %v", need, err)
		}
	}
}

// subnetCase builds nodes and links that need exactly need LIDs.
func subnetCase(rng *rand.Rand, need int) ([]fabric.Node, []fabric.Link) {
	const per = fabric.MaxPorts - 2 // HCA ports a switch of the chain takes
	S := (need + per) / (per + 1)
	var nodes []fabric.Node
	var links []fabric.Link
	for s := 0; s < S; s++ {
		nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: fmt.Sprintf("s%d", s), GUID: fabric.GUID(s+1) << 16, Ports: fabric.MaxPorts})
		if s > 0 {
			links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(s - 1), Port: 2}, B: fabric.PortRef{Node: fabric.NodeID(s), Port: 1}})
		}
	}
	for h := 0; h < need-S; h++ {
		id := fabric.NodeID(len(nodes))
		nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: fmt.Sprintf("h%d", h), GUID: fabric.GUID(1)<<40 | fabric.GUID(h)<<8, Ports: 1 + rng.IntN(2)})
		links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(h / per), Port: 3 + h%per}, B: fabric.PortRef{Node: id, Port: 1}})
	}
	for h := rng.IntN(50); h > 0; h-- { // uncabled: no LID
		nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: fmt.Sprintf("u%d", h), GUID: fabric.GUID(1)<<48 | fabric.GUID(h)<<8, Ports: 1})
	}
	return nodes, links
}
