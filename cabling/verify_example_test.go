package cabling_test

import (
	"fmt"

	"slimroute/cabling"
	"slimroute/fabric"
	"slimroute/slimfly"
)

// The issue's first example: on the q=5 Slim Fly, the plugs in port 7 of
// sw-0-0-0 and port 7 of sw-0-0-1 were exchanged, and a host's cable was
// left out. Verify names both problems and the steps that put them right.
func ExampleVerify() {
	plan, _ := slimfly.Build(slimfly.Params{Q: 5})
	a, _ := plan.NodeByName("sw-0-0-0")
	b, _ := plan.NodeByName("sw-0-0-1")
	h, _ := plan.NodeByName("hca-1-2-3-2")
	var links []fabric.Link
	for _, l := range plan.Links() {
		for _, e := range []*fabric.PortRef{&l.A, &l.B} {
			switch *e {
			case fabric.PortRef{Node: a, Port: 7}:
				e.Node = b
			case fabric.PortRef{Node: b, Port: 7}:
				e.Node = a
			}
		}
		if l.A.Node != h && l.B.Node != h {
			links = append(links, l)
		}
	}
	cabled, _ := fabric.New(plan.Nodes(), links)
	found, _ := cabled.Without([]fabric.NodeID{h}, nil) // an unplugged host is not discovered

	r := cabling.Verify(plan, found)
	fmt.Print(r.Summary())
	for _, f := range r.Findings {
		fmt.Printf("[%s] %s\n", f.Kind, f.Instruction)
		for _, x := range f.Actions {
			fmt.Printf("  %s %s:%d %s:%d\n", x.Op, x.A.Node, x.A.Port, x.B.Node, x.B.Port)
		}
	}
	fmt.Println("clean:", r.Clean())
	// Output:
	// 372 of 375 planned cables as planned; 2 findings
	// 249 planned nodes identified: 249 by node description; 1 not found: hca-1-2-3-2
	// [exchange] rack 1, sw-0-0-0 port 7 and sw-0-0-1 port 7: exchange the two plugs (sw-0-0-0 port 7 then goes to sw-1-0-0 port 5, sw-0-0-1 port 7 to sw-1-0-1 port 5)
	//   exchange sw-0-0-0:7 sw-0-0-1:7
	// [missing-hca] rack 3, hca-1-2-3-2: not found (its cable is out, or the host is down); rack 3, hca-1-2-3-2 port 1: connect a cable to sw-1-2-3 port 2
	//   connect hca-1-2-3-2:1 sw-1-2-3:2
	// clean: false
}
