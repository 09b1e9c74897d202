package fabric_test

import (
	"fmt"
	"os"
	"strings"

	"slimroute/fabric"
)

func ExampleReadIBSimNet() {
	net := `Switch 4 "leaf"
[1] "node01"[1]
[3] "spine"[1]

Switch 4 "spine"
[1] "leaf"[3]

Hca 1 "node01"
[1] "leaf"[1]
`
	f, err := fabric.ReadIBSimNet(strings.NewReader(net), "example.net")
	if err != nil {
		panic(err)
	}
	leaf, _ := f.NodeByName("leaf")
	peer, _ := f.Peer(fabric.PortRef{Node: leaf, Port: 3})
	fmt.Println(f.PortString(peer), f.Node(leaf).GUID)
	fabric.WriteNodeNameMap(os.Stdout, f)
	// Output:
	// "spine"[1] 0x0000000000200000
	// # node-name-map written by slimroute: node GUID "node description"
	// 0x0000000000200000 "leaf"
	// 0x0000000000200001 "spine"
	// 0x0000000000100000 "node01"
}
