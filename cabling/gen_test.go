package cabling

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"regexp"
	"slimroute/fabric"
	"strconv"
)

// genCase is one generated machine room: a fabric whose switches and hosts
// stand in racks (some placed at units as a spec would, some not, a few not
// racked at all), and a geometry.
type genCase struct {
	f *fabric.Fabric
	g Geometry
}

// genRoom builds a random fabric of 1–40 switches in 1–40 racks with hosts
// and random switch-to-switch cables, and a random geometry. Some names
// carry characters that HTML, SVG and CSV must escape.
func genRoom(t testing.TB, rng *rand.Rand) genCase {
	t.Helper()
	racks := 1 + rng.IntN(40)
	units := 8 + rng.IntN(53)
	specUnits := rng.IntN(3) == 0
	odd := rng.IntN(4) == 0
	var nodes []fabric.Node
	var links []fabric.Link
	next := map[int]int{} // node → next free port
	stacked := map[int]int{}
	nsw := 1 + rng.IntN(40)
	for i := 0; i < nsw; i++ {
		rack := 1 + rng.IntN(racks)
		if rng.IntN(12) == 0 {
			rack = 0
		}
		name := fmt.Sprintf("sw-%d", i)
		if odd && i%3 == 0 {
			name = fmt.Sprintf(`sw <%d> & "q",x`, i)
		}
		n := fabric.Node{Kind: fabric.Switch, Name: name, Ports: 4 + rng.IntN(37), Place: fabric.Placement{Rack: rack}}
		if specUnits && rack > 0 && stacked[rack] < units {
			n.Place.U = units - stacked[rack]
			stacked[rack]++
		}
		nodes = append(nodes, n)
		next[i] = 1
	}
	for i := 0; i < nsw; i++ {
		hosts := rng.IntN(min(nodes[i].Ports/2, 20) + 1)
		for h := 1; h <= hosts; h++ {
			host := fabric.Node{Kind: fabric.HCA, Name: fmt.Sprintf("hca-%d-%d", i, h), Ports: 1, Place: nodes[i].Place}
			host.Place.U = 0
			if rng.IntN(20) == 0 {
				host.Place.U = 1 + rng.IntN(units) // placed by hand, as in a JSON fabric
			}
			nodes = append(nodes, host)
			links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(i), Port: next[i]}, B: fabric.PortRef{Node: fabric.NodeID(len(nodes) - 1), Port: 1}})
			next[i]++
		}
	}
	for try := 0; try < 3*nsw; try++ {
		a, b := rng.IntN(nsw), rng.IntN(nsw)
		if a == b || next[a] > nodes[a].Ports || next[b] > nodes[b].Ports {
			continue
		}
		links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(a), Port: next[a]}, B: fabric.PortRef{Node: fabric.NodeID(b), Port: next[b]}})
		next[a]++
		next[b]++
	}
	f, err := fabric.New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	g := Geometry{
		RackPitch:   0.3 + 1.2*rng.Float64(),
		RacksPerRow: rng.IntN(12),
		RowPitch:    4 * rng.Float64(),
		UnitHeight:  0.04445,
		RackUnits:   units,
		Slack:       2 * rng.Float64(),
		CopperMax:   1 + 6*rng.Float64(),
	}
	return genCase{f, g}
}

// adviceUnits is the rack height a refused plan asks for.
var adviceUnits = regexp.MustCompile(`set --rack-units (\d+)`)

// genPlans yields n seeded cases and their plans; a case whose racks are
// too short for its nodes takes the height the refusal advises.
func genPlans(t *testing.T, n int, check func(t *testing.T, c genCase, p *Plan)) {
	for seed := range n {
		rng := rand.New(rand.NewPCG(uint64(seed), 12))
		c := genRoom(t, rng)
		p, err := MakePlan(c.f, c.g)
		if m := adviceUnits.FindStringSubmatch(fmt.Sprint(err)); m != nil {
			// racks too short for their nodes: the advised height must do
			c.g.RackUnits, _ = strconv.Atoi(m[1])
			p, err = MakePlan(c.f, c.g)
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) { check(t, c, p) })
		if t.Failed() {
			t.Fatalf("seed %d failed (run -run '%s/%d$' to repeat)", seed, t.Name(), seed)
		}
	}
}

// TestTooShortRacksAreRefusedWithTheHeightTheyNeed: of 100 drawn rooms,
// those whose racks cannot hold their nodes are refused with a height; at
// that height the plan is made, at one unit less it is still refused, and
// every node stands in a unit of its rack.
func TestTooShortRacksAreRefusedWithTheHeightTheyNeed(t *testing.T) {
	refused := 0
	for seed := range 100 {
		c := genRoom(t, rand.New(rand.NewPCG(uint64(seed), 12)))
		_, err := MakePlan(c.f, c.g)
		m := adviceUnits.FindStringSubmatch(fmt.Sprint(err))
		if m == nil {
			continue
		}
		refused++
		c.g.RackUnits, _ = strconv.Atoi(m[1])
		p, err := MakePlan(c.f, c.g)
		if err != nil {
			t.Fatalf("seed %d: advised %s, which fails: %v", seed, m[0], err)
		}
		for _, n := range p.Fabric.Nodes() {
			if n.Place.Rack > 0 && (n.Place.U < 1 || n.Place.U > c.g.RackUnits) {
				t.Fatalf("seed %d: %s in unit %d of %d", seed, n.Name, n.Place.U, c.g.RackUnits)
			}
		}
		c.g.RackUnits--
		if _, err := MakePlan(c.f, c.g); err == nil {
			t.Fatalf("seed %d: advised %s, but %d units do", seed, m[0], c.g.RackUnits)
		}
	}
	if refused < 5 {
		t.Fatalf("only %d of 100 rooms overflow their racks: the generator misses the case", refused)
	}
}
