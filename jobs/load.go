package jobs

import (
	"fmt"
	"sort"

	"slimroute/fabric"
	"slimroute/lft"
)

// Report is what the jobs share under one routing. Loads count the
// traffic per iteration on a directed switch-to-switch link (channel),
// each flow split evenly over the destination's LIDs (the layers), as the
// analysis splits flows; the HCAs' own cables carry the same load under
// every routing and are left out.
type Report struct {
	Jobs     []JobReport `json:"jobs"`
	Channels int         `json:"channels"`   // switch-to-switch channels of the fabric
	Lost     float64     `json:"lost_flows"` // traffic toward LIDs the tables do not reach
	// Busiest is the busiest channel under every job's traffic, and
	// LPBound a lower bound on the least it could be with each LID's share
	// of a flow over paths no longer than the routing's route for that
	// LID (LPNote says why not computed, then it is 0).
	Busiest float64 `json:"busiest"`
	LPBound float64 `json:"lp_bound,omitempty"`
	LPNote  string  `json:"lp_note,omitempty"`

	f   *fabric.Fabric
	per []loads // per job, for the picture
}

// JobReport is one job's figures.
type JobReport struct {
	ID      string `json:"id"`
	Hosts   int    `json:"hosts"`
	Pattern string `json:"pattern"`
	// Alone is the busiest channel's load from this job's traffic alone;
	// Together the busiest, with every job's traffic, of the channels
	// this job uses; Factor = Together / Alone (1: nobody adds to its
	// bottleneck, or the job's hosts share one switch).
	Alone    float64 `json:"alone"`
	Together float64 `json:"together"`
	Factor   float64 `json:"contention_factor"`
	// Bound is a lower bound on Alone under any routing (see bound), and
	// LPBound one on the least Alone can be with each LID's share of a
	// flow over paths no longer than the routing's route for that LID:
	// the larger of Bound and lpBound's (LPNote says why not computed).
	Bound   float64 `json:"alone_lower_bound"`
	LPBound float64 `json:"alone_lp_bound,omitempty"`
	LPNote  string  `json:"lp_note,omitempty"`
	Shared  []Share `json:"shared,omitempty"`
}

// Share is the channels a job shares with another job, and whether the two
// can interleave their communication phases.
type Share struct {
	Job        string `json:"job"`
	Channels   int    `json:"channels"`
	Compatible string `json:"compatible"` // "yes", "no" or "unknown" (no phases)
}

// loads is the per-channel traffic of each job: channel (switch, out
// port) -> load, for the channels of switch-to-switch cables.
type loads map[fabric.PortRef]float64

// Analyze measures jobs under tables tab. The jobs' hosts must be HCAs of
// the fabric (by node description, or its first word: "node017" for
// "node017 mlx5_0"); file names the job file in errors.
func Analyze(tab *lft.Tables, js []Job, file string) (*Report, error) {
	ports, err := resolve(tab.Fabric(), js, file)
	if err != nil {
		return nil, err
	}
	v := tab.Fabric().SwitchView()
	rep := &Report{Channels: channels(v), f: tab.Fabric()}
	per := make([]loads, len(js))
	mine := make([]map[commodityKey]*commodity, len(js))
	total := loads{}
	all := map[commodityKey]*commodity{}
	for i, j := range js {
		per[i], mine[i] = loads{}, map[commodityKey]*commodity{}
		for _, fl := range j.Flows() {
			a, b := ports[i][fl.From], ports[i][fl.To]
			rep.Lost += walk(tab, v.NumSwitches(), a, b, fl.Weight, per[i], func(share float64, hops int) {
				for _, m := range []map[commodityKey]*commodity{mine[i], all} {
					addShare(tab.Fabric(), m, a, b, share, hops)
				}
			})
		}
		for c, v := range per[i] {
			total[c] += v
		}
	}
	for i := range js {
		r := report(tab, v, js, i, per, ports[i])
		r.Together, r.Factor = together(per[i], total)
		r.LPBound, _, r.LPNote = lpBound(tab.Fabric(), commodities(mine[i]))
		if r.LPNote == "" {
			r.LPBound = max(r.LPBound, r.Bound) // both bound the LP from below
		}
		rep.Jobs = append(rep.Jobs, r)
	}
	for _, v := range total {
		rep.Busiest = max(rep.Busiest, v)
	}
	rep.per = per
	rep.LPBound, _, rep.LPNote = lpBound(tab.Fabric(), commodities(all))
	for _, r := range rep.Jobs { // the jobs together need at least what each alone does
		if rep.LPNote == "" {
			rep.LPBound = max(rep.LPBound, r.Bound, r.LPBound)
		}
	}
	return rep, nil
}

// commodityKey names a commodity: the traffic between two switches that
// may take paths of at most hops switch hops.
type commodityKey struct {
	from, to fabric.NodeID
	hops     int
}

// addShare adds the share w of a flow from HCA port a to HCA port b that
// one of its LIDs carries over hops switch hops to the commodities m.
func addShare(f *fabric.Fabric, m map[commodityKey]*commodity, a, b fabric.PortRef, w float64, hops int) {
	x, _ := f.Peer(a)
	y, _ := f.Peer(b)
	if x.Node == y.Node {
		return
	}
	k := commodityKey{x.Node, y.Node, hops}
	if m[k] == nil {
		m[k] = &commodity{from: x.Node, to: y.Node, hops: hops}
	}
	m[k].demand += w
}

// together returns the busiest, under total, of the channels a job's
// loads use, and the contention factor (1 for a job without load).
func together(mine, total loads) (busiest, factor float64) {
	alone := 0.0
	for c, v := range mine {
		alone, busiest = max(alone, v), max(busiest, total[c])
	}
	if alone == 0 {
		return busiest, 1
	}
	return busiest, busiest / alone
}

// report gathers job i's figures.
func report(tab *lft.Tables, v *fabric.SwitchView, js []Job, i int, per []loads, ports []fabric.PortRef) JobReport {
	j := js[i]
	r := JobReport{ID: j.ID, Hosts: len(j.Hosts), Pattern: j.Pattern, Bound: bound(tab.Fabric(), v, j, ports)}
	for _, v := range per[i] {
		r.Alone = max(r.Alone, v)
	}
	for k := range js {
		if k == i {
			continue
		}
		n := 0
		for c := range per[i] {
			if per[k][c] > 0 {
				n++
			}
		}
		if n > 0 {
			r.Shared = append(r.Shared, Share{Job: js[k].ID, Channels: n, Compatible: compatibility(j, js[k])})
		}
	}
	return r
}

func compatibility(a, b Job) string {
	ok, known := Compatible(a, b)
	switch {
	case !known:
		return "unknown"
	case ok:
		return "yes"
	}
	return "no"
}

// walk follows the route from HCA port src to every LID of HCA port dst
// and adds w, split over the LIDs, to the channels it crosses; it returns
// the traffic toward LIDs the tables do not deliver (a route is given up
// after as many hops as there are switches: a loop). delivered, if not
// nil, is told each delivered LID's share and its switch-to-switch hops.
func walk(tab *lft.Tables, switches int, src, dst fabric.PortRef, w float64, into loads, delivered func(share float64, hops int)) (lost float64) {
	f := tab.Fabric()
	pl, ok := tab.LIDs().Of(dst)
	first, ok2 := f.Peer(src)
	if !ok || !ok2 || src == dst {
		return 0
	}
	n := 1 << pl.LMC
	for k := 0; k < n; k++ {
		lid := pl.Base + lft.LID(k)
		sw, arrived, hops := first.Node, false, 0
		for ; hops <= switches && !arrived; hops++ {
			out := tab.Port(sw, lid)
			next, cabled := f.Peer(fabric.PortRef{Node: sw, Port: int(out)})
			if out == lft.Drop || !cabled {
				break
			}
			if f.Kind(next.Node) != fabric.Switch {
				arrived = next == dst
				break
			}
			into[fabric.PortRef{Node: sw, Port: int(out)}] += w / float64(n)
			sw = next.Node
		}
		switch {
		case !arrived:
			lost += w / float64(n)
		case delivered != nil:
			delivered(w/float64(n), hops)
		}
	}
	return lost
}

// resolve finds every job's hosts among the fabric's HCAs (hostPorts).
// A host found nowhere is an error naming the job's line.
func resolve(f *fabric.Fabric, js []Job, file string) ([][]fabric.PortRef, error) {
	byHost := hostPorts(f)
	out := make([][]fabric.PortRef, len(js))
	for i, j := range js {
		for _, h := range j.Hosts {
			p, ok := byHost[h]
			if !ok {
				return nil, fmt.Errorf("%s:%d: job %s: host %s is no cabled HCA of the fabric (hosts are found by node description, e.g. \"%s mlx5_0\"; a fabric from a plan names its HCAs as cabling plan --hosts does)", file, j.Line, j.ID, h, h)
			}
			out[i] = append(out[i], p)
		}
	}
	return out, nil
}

// hostPorts maps host names to the fabric's HCAs: the HCA whose node
// description is the name or starts with it and a space (fabric.HostName);
// its first cabled port (an HCA with two cabled ports is asked for by its
// first). Where two HCAs answer to a name, the one of the lower GUID has it.
func hostPorts(f *fabric.Fabric) map[string]fabric.PortRef {
	byHost := map[string]fabric.PortRef{}
	hcas := f.IDsOf(fabric.HCA)
	sort.Slice(hcas, func(a, b int) bool { return f.GUID(hcas[a]) < f.GUID(hcas[b]) })
	for _, h := range hcas {
		for p := 1; p <= f.Ports(h); p++ {
			if _, ok := f.Peer(fabric.PortRef{Node: h, Port: p}); !ok {
				continue
			}
			name := f.Name(h)
			first, _ := fabric.HostName(name)
			for _, key := range []string{name, first} {
				if _, taken := byHost[key]; !taken {
					byHost[key] = fabric.PortRef{Node: h, Port: p}
				}
			}
			break
		}
	}
	return byHost
}
