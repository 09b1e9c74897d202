// Package failures draws failed cables and switches for tests and
// benchmarks: a seeded generator of damaged fabrics that stay connected.
package failures

import (
	"fmt"
	"math/rand/v2"

	"slimroute/fabric"
)

// InterSwitch lists the indices (into f.Links) of the switch-to-switch
// cables of f.
func InterSwitch(f *fabric.Fabric) []int {
	var out []int
	for i := range f.NumLinks() {
		if l := f.Link(i); f.Kind(l.A.Node) == fabric.Switch && f.Kind(l.B.Node) == fabric.Switch {
			out = append(out, i)
		}
	}
	return out
}

// Draw removes from f, drawn from seed, cables random switch-to-switch
// cables and switches random switches, drawing again (up to 100 times)
// while the switches that remain would be split: a split fabric is refused
// by name, which other tests cover.
func Draw(f *fabric.Fabric, cables, switches int, seed uint64) (*fabric.Fabric, error) {
	rng := rand.New(rand.NewPCG(seed, 0xfa11))
	inter := InterSwitch(f)
	sw := f.IDsOf(fabric.Switch)
	if cables > len(inter) || switches > len(sw) {
		return nil, fmt.Errorf("%d cables and %d switches to fail, but the fabric has %d and %d", cables, switches, len(inter), len(sw))
	}
	for try := 0; try < 100; try++ {
		var links []int
		for _, i := range rng.Perm(len(inter))[:cables] {
			links = append(links, inter[i])
		}
		var nodes []fabric.NodeID
		for _, i := range rng.Perm(len(sw))[:switches] {
			nodes = append(nodes, sw[i])
		}
		g, err := f.Without(nodes, links)
		if err != nil {
			return nil, err
		}
		if len(g.SwitchView().Components()) == 1 {
			return g, nil
		}
	}
	return nil, fmt.Errorf("no draw of %d cables and %d switches keeps the switches connected", cables, switches)
}
