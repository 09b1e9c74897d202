package cabling

import (
	"fmt"
	"sort"
	"strings"

	"slimroute/fabric"
)

// maxRackUnits bounds rack heights (fabric.MaxRackUnits).
const maxRackUnits = fabric.MaxRackUnits

// layout gives every node that stands in a rack but has no rack unit a
// default one, so that the sheets, labels and cable lengths can say where
// it goes: in each rack, switches are stacked from the top down into the
// free units, hosts (HCAs) fill the free units from the bottom up. When a
// rack has fewer free units than hosts, hosts share units evenly (several
// servers per chassis), ⌈hosts / free units⌉ to a unit. Positions the
// fabric already has (a spec's [racks] units) are kept. A rack's height is
// units, or its highest placed unit if that is higher; a rack taller than
// units is an error saying how many units it needs. It returns the placed
// fabric and a sentence saying what it did.
func layout(f *fabric.Fabric, units int) (*fabric.Fabric, string, error) {
	nodes := append([]fabric.Node(nil), f.Nodes()...)
	racks := map[int][]int{} // rack → indices of its nodes
	for i, n := range nodes {
		if n.Place.Rack < 0 || n.Place.U < 0 || n.Place.U > maxRackUnits {
			return nil, "", fmt.Errorf("node %s: rack %d, unit %d: want a rack ≥ 1 (0: not racked) and a unit in 1..%d (0: default layout)", n.Name, n.Place.Rack, n.Place.U, maxRackUnits)
		}
		if n.Place.Rack > 0 {
			racks[n.Place.Rack] = append(racks[n.Place.Rack], i)
		}
	}
	rs := make([]int, 0, len(racks))
	for r := range racks {
		rs = append(rs, r)
	}
	sort.Ints(rs)
	switches, hosts, shared, tallest := 0, 0, 0, 0
	var tall []string
	for _, r := range rs {
		height, s, h, perU := layoutRack(nodes, racks[r], units)
		switches, hosts = switches+s, hosts+h
		shared = max(shared, perU)
		if height > units {
			tall = append(tall, fmt.Sprintf("rack %d needs %d units", r, height))
			tallest = max(tallest, height)
		}
	}
	if len(tall) > 0 {
		return nil, "", fmt.Errorf("racks of %d units are too short: %s; set --rack-units %d (or units in the spec's [racks]), or put fewer switches in a rack", units, strings.Join(tall, ", "), tallest)
	}
	if switches+hosts == 0 {
		return f, "rack units as the fabric gives them", nil
	}
	g, err := fabric.New(nodes, f.Links())
	if err != nil {
		return nil, "", err
	}
	how := fmt.Sprintf("default layout (%d-unit racks): ", units)
	if switches > 0 {
		how += fmt.Sprintf("%d switches from the top, ", switches)
	} else {
		how += "switches as the spec puts them, "
	}
	how += fmt.Sprintf("%d hosts from the bottom", hosts)
	if shared > 1 {
		how += fmt.Sprintf(", up to %d to a unit", shared)
	}
	return g, how, nil
}

// layoutRack places the unplaced nodes of one rack (indices into nodes) and
// returns the rack's height, how many switches and hosts it placed and the
// most hosts it put into one unit.
func layoutRack(nodes []fabric.Node, idx []int, units int) (height, switches, hosts, perU int) {
	var sw, hca []int
	placed := map[int]bool{}
	for _, i := range idx {
		switch {
		case nodes[i].Place.U > 0:
			placed[nodes[i].Place.U] = true
		case nodes[i].Kind == fabric.Switch:
			sw = append(sw, i)
		default:
			hca = append(hca, i)
		}
	}
	height = units
	for u := range placed {
		height = max(height, u)
	}
	// A rack whose switches (and at least one unit of hosts) do not fit
	// grows; layout reports it rather than fail a plan built for it.
	height = max(height, len(placed)+len(sw)+min(len(hca), 1))
	used := make([]bool, height+1)
	for u := range placed {
		used[u] = true
	}
	u := height
	for _, i := range sw {
		for used[u] {
			u--
		}
		nodes[i].Place.U, used[u] = u, true
	}
	var free []int
	for u := 1; u <= height; u++ {
		if !used[u] {
			free = append(free, u)
		}
	}
	if len(hca) > 0 {
		perU = (len(hca) + len(free) - 1) / len(free)
	}
	for k, i := range hca {
		nodes[i].Place.U = free[k/perU]
	}
	return height, len(sw), len(hca), perU
}
