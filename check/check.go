// Package check gives one verdict on a fabric as it runs: its wiring
// against the plan, its forwarding state (every LID reachable, no loop, no
// credit loop with the SLs and VLs in force), the VLs its paths take
// against those the switches offer, and the quality of its routes. It
// takes values — the state as found, read by the caller from the SM's
// dumps or the switches — and judges them with the packages that judge
// each part on its own (cabling, verify, analysis).
package check

import (
	"fmt"

	"slimroute/analysis"
	"slimroute/cabling"
	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/verify"
)

// Input is the state of a fabric as found.
type Input struct {
	// Found holds the fabric as discovered with its LFTs, path SLs and
	// SL2VL tables.
	Found *lft.Tables
	// Plan is the planned fabric, nil to skip the wiring check.
	Plan *fabric.Fabric
	// PlanCables is the plan's cable list, whose IDs the wiring findings
	// name (nil: none).
	PlanCables []cabling.Cable
	// VLs is how many data VLs the switches offer; 0 leaves it unchecked.
	VLs int
	// Sources names where each part came from (fabric, lfts, path_sl,
	// sl2vl, plan), for the report.
	Sources map[string]string
	// Permutations and Seed drive the quality's random permutations (0: 20
	// permutations).
	Permutations int
	Seed         uint64
	// SA holds path records the SA answered (a sample), to hold against
	// the path SLs of Found.
	SA []PathRecord
}

// PathRecord is the SL the SA answered for a path record from SLID to
// DLID.
type PathRecord struct {
	SLID uint16 `json:"slid"`
	DLID uint16 `json:"dlid"`
	SL   uint8  `json:"sl"`
}

// Report is the verdict and what it rests on.
type Report struct {
	// OK is true when no part has a problem; Problems lists them, one
	// line each.
	OK       bool              `json:"ok"`
	Problems []string          `json:"problems"`
	Sources  map[string]string `json:"sources"`
	Switches int               `json:"switches"`
	HCAs     int               `json:"hcas"`
	// Wiring is the comparison with the plan (cabling verify), nil
	// without one.
	Wiring *cabling.Report `json:"wiring,omitempty"`
	// Routing is the verifier's report; RoutingError what breaks the
	// tables, if anything.
	Routing      *verify.Report `json:"routing"`
	RoutingError string         `json:"routing_error,omitempty"`
	// SARecords is how many of the SA's path records were held against
	// the path SLs; SADiffer those whose SL differs.
	SARecords int          `json:"sa_records"`
	SADiffer  []PathRecord `json:"sa_differ,omitempty"`
	// VLsOffered is Input.VLs (0: unchecked).
	VLsOffered int `json:"vls_offered,omitempty"`
	// Quality of the routes, nil when the tables are broken.
	Quality *Quality `json:"quality,omitempty"`
}

// Quality summarises the routes: pairs (source HCA, destination HCA on
// another switch), those with at least 2 and 3 link-disjoint paths over
// the LID offsets, and the mean max link load of random permutations
// (every flow split over the offsets; a link carries 1 at line rate).
type Quality struct {
	Pairs           int     `json:"pairs"`
	TwoDisjoint     int     `json:"pairs_2_disjoint"`
	ThreeDisjoint   int     `json:"pairs_3_disjoint"`
	PermutationLoad float64 `json:"permutation_mean_max_load"`
}

// Check judges in on up to workers goroutines.
func Check(in Input, workers int) *Report {
	f := in.Found.Fabric()
	rep := &Report{Sources: in.Sources, Problems: []string{}, VLsOffered: in.VLs,
		Switches: len(f.IDsOf(fabric.Switch)), HCAs: len(f.IDsOf(fabric.HCA))}
	if in.Plan != nil {
		rep.Wiring = cabling.Verify(in.Plan, f)
		rep.Wiring.WithCables(in.PlanCables)
		if !rep.Wiring.Clean() {
			rep.problem("wiring: %d findings against the plan, %d of %d planned cables as planned (cabling verify lists the steps)", len(rep.Wiring.Findings), rep.Wiring.AsPlanned, rep.Wiring.Planned)
		}
	}
	rep.holdSA(in)
	var err error
	rep.Routing, err = verify.Check(in.Found, workers)
	switch {
	case err != nil:
		rep.RoutingError = err.Error()
		rep.problem("routing: %v", err)
	case !rep.Routing.Acyclic():
		rep.problem("routing: a credit loop with the SLs and VLs in force, %d channels: %s", len(rep.Routing.Cycle), rep.Routing.CycleString())
	}
	if in.VLs > 0 && err == nil && rep.Routing.MaxVL >= in.VLs {
		rep.problem("VLs: paths take VL %d, but the switches offer %d data VLs (VLs 0 to %d): those packets are dropped", rep.Routing.MaxVL, in.VLs, in.VLs-1)
	}
	if err == nil {
		rep.Quality = quality(in, workers)
	}
	rep.OK = len(rep.Problems) == 0
	return rep
}

// holdSA compares the SA's path records with the path SLs the routing is
// judged with: a record whose SL differs means the SLs in force are not
// those judged.
func (r *Report) holdSA(in Input) {
	lids := in.Found.LIDs()
	for _, pr := range in.SA {
		r.SARecords++
		src, _, ok := lids.Owner(lft.LID(pr.SLID))
		if !ok || in.Found.PathSL(src.Port, lft.LID(pr.DLID)) != pr.SL {
			r.SADiffer = append(r.SADiffer, pr)
		}
	}
	if len(r.SADiffer) > 0 {
		d := r.SADiffer[0]
		src, _, _ := lids.Owner(lft.LID(d.SLID))
		r.problem("path SLs: the SA hands out other SLs than those judged in %d of %d path records sampled, e.g. SL %d from LID %d to %d where the path SLs (%s) say %d", len(r.SADiffer), r.SARecords, d.SL, d.SLID, d.DLID, in.Sources["path_sl"], in.Found.PathSL(src.Port, lft.LID(d.DLID)))
	}
}

func (r *Report) problem(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// quality measures the routes, nil when analysis refuses them.
func quality(in Input, workers int) *Quality {
	perms := in.Permutations
	if perms == 0 {
		perms = 20
	}
	a, err := analysis.Analyze(in.Found, analysis.Options{Permutations: perms, Seed: in.Seed})
	if err != nil {
		return nil
	}
	q := &Quality{Pairs: a.Pairs}
	if len(a.Disjoint) > 2 {
		q.TwoDisjoint = a.Disjoint[2]
	}
	if len(a.Disjoint) > 3 {
		q.ThreeDisjoint = a.Disjoint[3]
	}
	for _, p := range a.Patterns {
		if p.Name == "random permutations" {
			q.PermutationLoad = p.MeanMaxLoad
		}
	}
	return q
}
