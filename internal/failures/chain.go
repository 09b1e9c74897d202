package failures

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"slimroute/fabric"
)

// Step is one state of a chain of failures: the fabric as it is after the
// change, and what changed.
type Step struct {
	Fabric *fabric.Fabric
	// Change names what failed or came back ("cable S1/3–S7/5 fails",
	// "switch S4 back").
	Change string
	// Back says the step plugged something back in.
	Back bool
}

// Chain draws from seed a chain of failures of f and their end: cables
// failing one at a time until share of the switch-to-switch cables
// (at least one) are gone, then switches switches one at a time, then
// everything plugged back, one cable or switch at a time in a random
// order. Every state keeps the switches connected (a draw that would split
// them is skipped); the last state is f itself. A switch's HCAs go and
// come back with it.
func Chain(f *fabric.Fabric, share float64, switches int, seed uint64) ([]Step, error) {
	rng := rand.New(rand.NewPCG(seed, 0xc4a1))
	inter := InterSwitch(f)
	cables := max(1, int(share*float64(len(inter))))
	var gone chainState
	var steps []Step
	try := func(c chainState, change string, back bool) (bool, error) {
		g, err := f.Without(c.nodes, c.links)
		if err != nil {
			return false, err
		}
		if len(g.SwitchView().Components()) != 1 {
			return false, nil
		}
		gone = c
		steps = append(steps, Step{Fabric: g, Change: change, Back: back})
		return true, nil
	}
	for _, i := range rng.Perm(len(inter)) {
		if len(gone.links) == cables {
			break
		}
		if _, err := try(gone.with(-1, inter[i]), fmt.Sprintf("cable %s fails", linkName(f, inter[i])), false); err != nil {
			return nil, err
		}
	}
	sw := f.IDsOf(fabric.Switch)
	for _, i := range rng.Perm(len(sw)) {
		if len(gone.nodes) == switches {
			break
		}
		if _, err := try(gone.with(sw[i], -1), fmt.Sprintf("switch %s fails", f.Name(sw[i])), false); err != nil {
			return nil, err
		}
	}
	if len(gone.links) < cables || len(gone.nodes) < switches {
		return nil, fmt.Errorf("only %d cables and %d switches of f can fail one after another with the switches connected, not %d and %d", len(gone.links), len(gone.nodes), cables, switches)
	}
	// plug back in a random order; a cable and a switch count alike
	back := make([]string, 0, len(gone.links)+len(gone.nodes))
	for range gone.links {
		back = append(back, "cable")
	}
	for range gone.nodes {
		back = append(back, "switch")
	}
	rng.Shuffle(len(back), func(i, j int) { back[i], back[j] = back[j], back[i] })
	for len(back) > 0 {
		// the first item of the order whose return keeps the switches
		// connected (a cable back always does; a switch back whose cables
		// all lead to gone switches would not)
		for i, kind := range back {
			c, change := gone.back(f, kind, rng)
			ok, err := try(c, change, true)
			if err != nil {
				return nil, err
			}
			if ok {
				back = slices.Delete(back, i, i+1)
				break
			}
			if i == len(back)-1 {
				return nil, fmt.Errorf("no plug-back keeps the switches connected") // cannot happen: f is connected
			}
		}
	}
	return steps, nil
}

// chainState is what is gone: switches (node IDs of the full fabric) and
// cables (indices into its links), in the order they failed.
type chainState struct {
	nodes []fabric.NodeID
	links []int
}

func (c chainState) with(node fabric.NodeID, link int) chainState {
	out := chainState{nodes: slices.Clone(c.nodes), links: slices.Clone(c.links)}
	if node >= 0 {
		out.nodes = append(out.nodes, node)
	}
	if link >= 0 {
		out.links = append(out.links, link)
	}
	return out
}

// back returns the state with a random gone item of kind ("cable",
// "switch") plugged back, and its name.
func (c chainState) back(f *fabric.Fabric, kind string, rng *rand.Rand) (chainState, string) {
	out := chainState{nodes: slices.Clone(c.nodes), links: slices.Clone(c.links)}
	if kind == "cable" {
		i := rng.IntN(len(out.links))
		l := out.links[i]
		out.links = slices.Delete(out.links, i, i+1)
		return out, fmt.Sprintf("cable %s back", linkName(f, l))
	}
	i := rng.IntN(len(out.nodes))
	n := out.nodes[i]
	out.nodes = slices.Delete(out.nodes, i, i+1)
	return out, fmt.Sprintf("switch %s back", f.Name(n))
}

func linkName(f *fabric.Fabric, i int) string {
	l := f.Link(i)
	return fmt.Sprintf("%s/%d–%s/%d", f.Name(l.A.Node), l.A.Port, f.Name(l.B.Node), l.B.Port)
}
