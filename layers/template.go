package layers

import (
	"errors"
	"reflect"
	"slices"

	"slimroute/fabric"
)

// Routing a design ahead of time.
//
// A Slim Fly is routed in its design's numbering (symmetry.go), so every
// fabric with the same switch graph and as many endpoints on each switch
// gets the same tables in that numbering, whatever its names, GUIDs, port
// numbers and order. A Template holds such a routing, computed before it
// is needed — from the plan, while OpenSM still discovers the fabric —
// and Compute given one (Options.Template) copies its tables when the
// fabric fits it instead of searching: the sweep then only recognises the
// fabric and maps the routes onto it.

// ErrNoDesign is NewTemplate's error for a fabric it does not route ahead of
// time.
var ErrNoDesign = errors.New("the fabric is no Slim Fly: only a Slim Fly's routing is made ahead of time")

// Template is the routing of a Slim Fly computed ahead of time, for
// Options.Template. It is immutable once made.
type Template struct {
	opts  Options // as computed, without Workers, Clock and Template
	peer  []int32
	chOff []int
	hosts []int
	dests []int // each endpoint's switch, in destination order
	r     *Routing
}

// NewTemplate routes f, a Slim Fly, with opts and keeps the routing for
// Compute. It fails as Compute does, and when f is no Slim Fly that
// Compute routes in its design's numbering (a Clos is routed fast
// without one).
func NewTemplate(f *fabric.Fabric, opts Options) (*Template, error) {
	opts.Template = nil
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	// recognised before it is routed: a fabric of another kind costs
	// the recognition, not a routing thrown away
	g, err := newGraph(f, nil)
	if err != nil {
		return nil, err
	}
	if !designOrder(g).design {
		return nil, ErrNoDesign
	}
	r, err := Compute(f, opts)
	if err != nil {
		return nil, err
	}
	if !r.g.design || r.fatTree {
		return nil, ErrNoDesign
	}
	g = r.g
	t := &Template{opts: comparable(opts), peer: g.peer, chOff: g.chOff, hosts: g.hosts, r: r}
	for _, d := range g.dests[:g.nEP] {
		t.dests = append(t.dests, d.Switch)
	}
	return t, nil
}

// Routing is the template's routing, of the fabric it was made for, in
// its design's numbering; it must not be changed.
func (t *Template) Routing() *Routing { return t.r }

// Switches is the number of switches of the template's fabric.
func (t *Template) Switches() int { return len(t.hosts) }

// comparable returns opts without the fields that do not change the
// layers a template holds (no avoided cables: a template has none; the
// jobs' traffic pass runs on its layers, as on computed ones).
func comparable(opts Options) Options {
	opts.Workers, opts.Clock, opts.Template, opts.AvoidLinks, opts.Traffic, opts.SwitchOver = 0, nil, nil, nil, nil, nil
	return opts
}

// sized tells whether g has as many switches and endpoints as t's
// fabric: a fabric that has not cannot fit, and is not recognised twice.
func (t *Template) sized(g *graph) bool {
	return len(g.adj) == len(t.hosts) && g.nEP == len(t.dests)
}

// fits tells whether g, in its design's numbering, routed with opts,
// would get t's routing: the same switch graph in that numbering, as
// many endpoints on every switch, no cable avoided, the same options.
func (t *Template) fits(g *graph, opts Options) bool {
	if !g.design || len(opts.AvoidLinks) > 0 || !reflect.DeepEqual(comparable(opts), t.opts) {
		return false
	}
	if !slices.Equal(g.peer, t.peer) || !slices.Equal(g.chOff, t.chOff) || !slices.Equal(g.hosts, t.hosts) || g.nEP != len(t.dests) {
		return false
	}
	for d, s := range t.dests {
		if g.dests[d].Switch != s {
			return false
		}
	}
	return true
}

// copyTo fills r, a new routing of a graph t fits, with t's tables, the
// endpoints' sharing of trees and statistics.
func (t *Template) copyTo(r *Routing) {
	r.Trees, r.share = t.r.Trees, slices.Clone(t.r.share)
	for k := range r.next {
		copy(r.next[k], t.r.next[k])
	}
	r.Stats = r.Stats[:0]
	for _, st := range t.r.Stats {
		st.Lengths = slices.Clone(st.Lengths)
		r.Stats = append(r.Stats, st)
	}
}
