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

// AssignAuto uses the hop-indexed scheme where it applies (every route of
// at most three hops, enough VLs and SLs) and DFSSSP otherwise. When
// neither fits in opts.VLs, the advice names the fewer VLs of the two.
func AssignAuto(r *layers.Routing, opts Options) (*Assignment, error) {
	a, hopsErr := AssignHops(r, opts)
	if hopsErr == nil {
		return a, nil
	}
	a, err := AssignDFSSSP(r, opts)
	var hops, dfsssp *vlShortage
	if err == nil || !errors.As(hopsErr, &hops) || !errors.As(err, &dfsssp) || hops.needs >= dfsssp.needs {
		return a, err
	}
	return nil, fmt.Errorf("neither VL scheme fits in %d VLs: the hop-indexed scheme needs %d, DFSSSP more; allow %d VLs (--vls %d), or accept unprotected routes with DFSSSP (--best-effort)",
		opts.VLs, hops.needs, hops.needs, hops.needs)
}
