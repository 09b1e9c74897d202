package deadlock

import (
	"errors"
	"fmt"

	"slimroute/layers"
)

// vlShortage is the error of a scheme that needs more VLs than allowed.
type vlShortage struct {
	needs int // VLs the scheme needs; MaxVLs+1: more than InfiniBand has
	msg   string
}

func (e *vlShortage) Error() string { return e.msg }

// AssignAuto picks the VL scheme for the routing: on a fabric designed
// with diameter 2 (Slim Fly, two-level Clos, also with failures: the
// routing's bounds are not per pair) the hop-indexed scheme, whose three
// VLs a few longer routes do not change; elsewhere (deeper fat trees,
// whose up-down routes DFSSSP fits on one VL) DFSSSP. Each falls back to
// the other. When neither fits in opts.VLs, the advice names the fewer
// VLs of the two, which auto then fits.
func AssignAuto(r *layers.Routing, opts Options) (*Assignment, error) {
	type scheme struct {
		name   string
		assign func(*layers.Routing, Options) (*Assignment, error)
	}
	if _, _, ok := r.DragonflyPlus(); ok {
		if a, err := AssignDragonfly(r, opts); err == nil {
			return a, nil
		}
	}
	order := [2]scheme{{"the hop-indexed scheme", AssignHops}, {"DFSSSP", AssignDFSSSP}}
	if r.Bounds.PerPair {
		order[0], order[1] = order[1], order[0]
	}
	a, err1 := order[0].assign(r, opts)
	if err1 == nil {
		return a, nil
	}
	a, err2 := order[1].assign(r, opts)
	if err2 == nil {
		return a, nil
	}
	var s1, s2 *vlShortage
	if !errors.As(err1, &s1) || !errors.As(err2, &s2) {
		return nil, fmt.Errorf("neither VL scheme fits: %s: %v; %s: %v", order[0].name, err1, order[1].name, err2)
	}
	fewer, name := s1.needs, order[0].name
	if s2.needs < fewer {
		fewer, name = s2.needs, order[1].name
	}
	if fewer > MaxVLs {
		return nil, fmt.Errorf("neither VL scheme fits in the %d VLs InfiniBand has: %s: %v; %s: %v", MaxVLs, order[0].name, err1, order[1].name, err2)
	}
	return nil, fmt.Errorf("neither VL scheme fits in %d VLs: %s needs %d; allow %d VLs (--vls %d), or accept unprotected routes with DFSSSP (--best-effort)",
		opts.VLs, name, fewer, fewer, fewer)
}
