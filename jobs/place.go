package jobs

import (
	"fmt"
	"slices"
	"sort"

	"slimroute/fabric"
	"slimroute/lft"
)

// PlaceRequest asks for the hosts of a new job.
type PlaceRequest struct {
	Nodes   int      // how many hosts
	Pattern string   // its traffic, as a job file's (default ring); weight 1
	Free    []string // the hosts it may take (nil: every host no running job uses)
}

// Placement is a choice of hosts for the new job and its figures, as
// Analyze would report them for the job "new  NODELIST  PATTERN" added to
// the running jobs: ranks in the hosts' natural order (Slurm numbers an
// allocation's nodes in its node order, and squeue prints them so).
type Placement struct {
	Hosts    []string `json:"hosts"`
	Nodelist string   `json:"nodelist"` // for sbatch --nodelist
	Together float64  `json:"together"`
	Alone    float64  `json:"alone"`
	Factor   float64  `json:"contention_factor"`
	Switches int      `json:"switches"`
}

// RequestError is a field of a PlaceRequest that cannot be met: Field
// names it (Nodes, Pattern, Free), Msg says why.
type RequestError struct{ Field, Msg string }

func (e *RequestError) Error() string { return e.Field + ": " + e.Msg }

// placer holds what every candidate is measured against.
type placer struct {
	tab      *lft.Tables
	switches int                       // of the fabric, for walk
	total    loads                     // the running jobs' traffic
	ports    map[string]fabric.PortRef // every host
	pattern  string
	n        int
	free     []string // natural order
	walked   int      // flows walked so far, for the budget
}

// Place chooses req.Nodes of the free hosts for a new job so that the
// busiest channel it uses, with every running job's traffic (Together),
// is as low as it can find; ties go to the lower Alone (its own busiest
// channel), then to fewer switches, then to the hosts first in natural
// order. It also returns the first fit: the first req.Nodes free hosts
// in natural order, as a scheduler blind to the network takes them.
//
// The search starts from the first fit and from a greedy fill seeded at
// each of the (up to maxSeeds) switches with the most free hosts, which
// adds whole switches' free hosts, the best one at a time; the best start
// is improved by swapping one chosen host for a free one while that
// helps and fewer than maxWalks flows have been walked in all. A
// candidate costs one walk of its flows over the tables, O(F·2^LMC·D)
// for F flows and routes of D hops; the greedy fill measures
// O(maxSeeds·(N/h)·S) candidates for N hosts, h free hosts a switch and S
// switches. Running jobs are summed in ID order, so
// the result does not depend on the job file's order.
func Place(tab *lft.Tables, running []Job, file string, req PlaceRequest) (best, firstFit Placement, err error) {
	p, err := newPlacer(tab, running, file, req)
	if err != nil {
		return Placement{}, Placement{}, err
	}
	firstFit = p.eval(p.free[:p.n])
	best = p.improve(p.better(firstFit, p.greedy()))
	return best, firstFit, nil
}

// maxSeeds bounds the switches the greedy fill starts from, and maxWalks
// the flows walked before the swaps stop (about a second on the 2-core
// machine for a q = 5 Slim Fly with 4 layers).
const (
	maxSeeds = 16
	maxWalks = 1_000_000
)

// newPlacer checks req and sums the running jobs' traffic.
func newPlacer(tab *lft.Tables, running []Job, file string, req PlaceRequest) (*placer, error) {
	pattern, ok := patterns[req.Pattern]
	if req.Pattern == "" {
		pattern, ok = "ring", true
	}
	if !ok {
		return nil, &RequestError{"Pattern", fmt.Sprintf("%q: want ring, tree, all-to-all or neighbours", req.Pattern)}
	}
	ports, err := resolve(tab.Fabric(), running, file)
	if err != nil {
		return nil, err
	}
	p := &placer{tab: tab, switches: tab.Fabric().SwitchView().NumSwitches(), total: loads{}, ports: hostPorts(tab.Fabric()), pattern: pattern, n: req.Nodes}
	order := make([]int, len(running))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return fabric.NaturalLess(running[order[a]].ID, running[order[b]].ID) })
	for _, i := range order {
		for _, fl := range running[i].Flows() {
			walk(tab, p.switches, ports[i][fl.From], ports[i][fl.To], fl.Weight, p.total, nil)
		}
	}
	if p.free, err = freeHosts(tab.Fabric(), running, req.Free, p.ports); err != nil {
		return nil, err
	}
	if req.Nodes < 1 || req.Nodes > len(p.free) {
		return nil, &RequestError{"Nodes", fmt.Sprintf("%d asked for, %d free", req.Nodes, len(p.free))}
	}
	return p, nil
}

// freeHosts is the hosts a new job may take, in natural order: those
// given, each a host of the fabric and of no running job, or every host
// of a cabled HCA that no running job uses.
func freeHosts(f *fabric.Fabric, running []Job, given []string, ports map[string]fabric.PortRef) ([]string, error) {
	busy := map[fabric.PortRef]string{}
	for _, j := range running {
		for _, h := range j.Hosts {
			busy[ports[h]] = j.ID
		}
	}
	var out []string
	if given == nil {
		for _, h := range f.IDsOf(fabric.HCA) {
			name, _ := fabric.HostName(f.Name(h))
			if p, ok := ports[name]; ok && p.Node == h && busy[p] == "" {
				out = append(out, name)
			}
		}
	}
	for _, h := range given {
		p, ok := ports[h]
		switch {
		case !ok:
			return nil, &RequestError{"Free", fmt.Sprintf("host %s is no cabled HCA of the fabric", h)}
		case busy[p] != "":
			return nil, &RequestError{"Free", fmt.Sprintf("host %s runs job %s", h, busy[p])}
		}
		out = append(out, h)
	}
	sort.Slice(out, func(a, b int) bool { return fabric.NaturalLess(out[a], out[b]) })
	return slices.Compact(out), nil
}
