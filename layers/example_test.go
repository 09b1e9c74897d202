package layers_test

import (
	"fmt"

	"slimroute/fabric"
	"slimroute/layers"
	"slimroute/slimfly"
)

// Route the q=5 Slim Fly in four layers and check what Compute promises
// rather than print its tables: every layer is a loop-free in-tree toward
// each destination, layer 0 is minimal, and the later layers keep to 2..3
// hops except where the topology has no such path.
//
// The numbers follow from the design: 2q² = 50 switches with 4 endpoints
// each; a layer routes every switch to every endpoint on another switch,
// 50 × (200 − 4) = 9800 pairs. The q=5 Slim Fly is the Hoffman–Singleton
// graph (girth 5): two adjacent switches have no 2-hop path (a triangle)
// or 3-hop path (a 4-cycle) between them, so their 50 × 7 × 4 = 1400 pairs
// fall back to a path outside the bounds in each of layers 1..3.
func ExampleCompute() {
	f, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := layers.Compute(f, layers.Options{Layers: 4, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	S := r.NumSwitches()
	fmt.Printf("%d switches, %d endpoints, %d layers, bounds %s\n", S, r.NumEndpoints(), r.NumLayers(), r.Bounds)
	dist := hopDistances(f, r)
	for k := 0; k < r.NumLayers(); k++ {
		// broken: a pair whose route ends nowhere or loops
		pairs, broken, minimal, inBounds, adjacentOutside := 0, 0, 0, 0, 0
		for d, dest := range r.Dests()[:r.NumEndpoints()] {
			for s := 0; s < S; s++ {
				if s == dest.Switch || r.Hosts(s) == 0 {
					continue
				}
				pairs++
				path, err := r.Path(k, s, d)
				if err != nil {
					broken++
					continue
				}
				hops := len(path) - 1
				if hops == dist[s][dest.Switch] {
					minimal++
				}
				switch {
				case hops >= r.Bounds.Min && hops <= r.Bounds.Max:
					inBounds++
				case dist[s][dest.Switch] == 1:
					adjacentOutside++
				}
			}
		}
		if k == 0 {
			fmt.Printf("layer 0: %d pairs, %d broken, minimal: %t\n", pairs, broken, minimal == pairs)
			continue
		}
		fmt.Printf("layer %d: %d pairs, %d broken, in bounds: %d, outside only between adjacent switches: %t (%d)\n",
			k, pairs, broken, inBounds, inBounds+adjacentOutside == pairs, adjacentOutside)
	}
	// Output:
	// 50 switches, 200 endpoints, 4 layers, bounds 2 to 3 hops
	// layer 0: 9800 pairs, 0 broken, minimal: true
	// layer 1: 9800 pairs, 0 broken, in bounds: 8400, outside only between adjacent switches: true (1400)
	// layer 2: 9800 pairs, 0 broken, in bounds: 8400, outside only between adjacent switches: true (1400)
	// layer 3: 9800 pairs, 0 broken, in bounds: 8400, outside only between adjacent switches: true (1400)
}

// hopDistances returns the switch-to-switch hop counts, indexed by r's
// switch indices.
func hopDistances(f *fabric.Fabric, r *layers.Routing) [][]int {
	v := f.SwitchView()
	S := r.NumSwitches()
	dist, queue := make([]int, S), make([]int, S)
	out := make([][]int, S)
	for s := range out {
		v.Distances(v.Index[r.SwitchID(s)], dist, queue)
		out[s] = make([]int, S)
		for t := range out[s] {
			out[s][t] = dist[v.Index[r.SwitchID(t)]]
		}
	}
	return out
}
