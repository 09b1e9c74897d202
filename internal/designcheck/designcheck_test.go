package designcheck

import (
	"strings"
	"testing"

	"slimroute/fabric"
)

// HCAs must be single-port and cabled to a switch, whatever the design.
func TestRejectsBadHCAs(t *testing.T) {
	sw := fabric.Node{Kind: fabric.Switch, Name: "hx-sw-0", Ports: 2}
	cable := []fabric.Link{{A: fabric.PortRef{Node: 0, Port: 1}, B: fabric.PortRef{Node: 1, Port: 1}}}
	for _, c := range []struct {
		hca   fabric.Node
		links []fabric.Link
		want  string
	}{
		{fabric.Node{Kind: fabric.HCA, Name: "hx-hca-0-1", Ports: 2}, cable, `HCA "hx-hca-0-1": 2 ports, want 1 (single-port HCAs)`},
		{fabric.Node{Kind: fabric.HCA, Name: "hx-hca-0-1", Ports: 1}, nil, `HCA "hx-hca-0-1": port 1 not cabled, want it cabled to a switch`},
		{fabric.Node{Kind: fabric.HCA, Name: "hx-hca-0-1", Ports: 1}, cable, ""},
	} {
		f, err := fabric.New([]fabric.Node{sw, c.hca}, c.links)
		if err != nil {
			t.Fatal(err)
		}
		err = HyperX(f, []int{1}, 1, 1)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
