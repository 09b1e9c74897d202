package repair

import (
	"fmt"

	"slimroute/fabric"
	"slimroute/lft"
)

// WithNewHosts returns the tables a repair of prev for fabric f starts
// from, and its base (nil, prev itself, or the base routing the chain of
// repairs started from), both extended to the HCAs f has that neither
// has or that f cables otherwise — a host powered on since, an HCA
// replaced, a host recabled — each routed as an HCA of its switch
// (lft.WithHosts) at the LIDs lidsOf gives it in the fabric it is
// extended for; and those HCAs' names. An HCA prev lacks that f cables as
// base does is not new: it is back in, and the repair returns it to
// base's routes; one base has elsewhere is recabled.
func WithNewHosts(prev, base *lft.Tables, f *fabric.Fabric, lidsOf func(*fabric.Fabric) (*lft.LIDs, error)) (from, fromBase *lft.Tables, hosts []string, err error) {
	extend := func(t *lft.Tables, g *fabric.Fabric) (*lft.Tables, []string, error) {
		lids, err := lidsOf(g)
		if err != nil {
			return nil, nil, err
		}
		return lft.WithHosts(t, g, lids)
	}
	onlyNew, err := withoutBackIn(f, prev, base)
	if err != nil {
		return nil, nil, nil, err
	}
	if from, hosts, err = extend(prev, onlyNew); err != nil || len(hosts) == 0 || base == nil {
		return from, base, hosts, err
	}
	if base == prev {
		return from, from, hosts, nil
	}
	if fromBase, _, err = extend(base, f); err != nil {
		return nil, nil, nil, fmt.Errorf("the base routing: %w", err)
	}
	return from, fromBase, hosts, nil
}

// withoutBackIn returns f without the HCAs prev's fabric lacks (by GUID)
// that f cables as base's fabric does: back where they were.
func withoutBackIn(f *fabric.Fabric, prev, base *lft.Tables) (*fabric.Fabric, error) {
	if base == nil || base == prev {
		return f, nil
	}
	var back []fabric.NodeID
	for _, id := range f.IDsOf(fabric.HCA) {
		_, inPrev := prev.Fabric().NodeByGUID(f.GUID(id))
		if !inPrev && f.CabledAlike(id, base.Fabric()) {
			back = append(back, id)
		}
	}
	if len(back) == 0 {
		return f, nil
	}
	return f.Without(back, nil)
}
