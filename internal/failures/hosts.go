package failures

import (
	"math/rand/v2"

	"slimroute/fabric"
)

// LateHosts draws, from seed, 1 to most HCAs of f that are down when it is
// first routed and the first back of them (at least one) that are up when
// it is routed again: f without all of them, and f without those still
// down.
func LateHosts(f *fabric.Fabric, most int, seed uint64) (before, after *fabric.Fabric, back []fabric.NodeID, err error) {
	rng := rand.New(rand.NewPCG(seed, 0x4057))
	hcas := f.IDsOf(fabric.HCA)
	rng.Shuffle(len(hcas), func(i, j int) { hcas[i], hcas[j] = hcas[j], hcas[i] })
	gone := hcas[:min(len(hcas), 1+rng.IntN(max(most, 1)))]
	back = gone[:1+rng.IntN(len(gone))]
	if before, err = f.Without(gone, nil); err != nil {
		return nil, nil, nil, err
	}
	if after, err = f.Without(gone[len(back):], nil); err != nil {
		return nil, nil, nil, err
	}
	return before, after, back, nil
}

// SwapHosts returns f with the cables of HCAs a and b (their port 1)
// swapped: each recabled to the other's switch port.
func SwapHosts(f *fabric.Fabric, a, b fabric.NodeID) (*fabric.Fabric, error) {
	pa, _ := f.Peer(fabric.PortRef{Node: a, Port: 1})
	pb, _ := f.Peer(fabric.PortRef{Node: b, Port: 1})
	links := f.Links()
	for i, l := range links {
		switch {
		case l.A == pa || l.B == pa:
			links[i] = fabric.Link{A: fabric.PortRef{Node: b, Port: 1}, B: pa}
		case l.A == pb || l.B == pb:
			links[i] = fabric.Link{A: fabric.PortRef{Node: a, Port: 1}, B: pb}
		}
	}
	return fabric.New(f.Nodes(), links)
}
