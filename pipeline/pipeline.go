// Package pipeline is slimroute's routing pipeline in one function:
// fabric → layers → VL assignment → LIDs and forwarding tables (one
// lft.Tables value) → verifier.
// The CLI and the OpenSM plugin both call Run, so they program the same
// tables for the same fabric and settings.
package pipeline

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"slimroute/internal/laps"
	"time"

	"slimroute/deadlock"
	"slimroute/fabric"
	"slimroute/internal/tomlfile"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/repair"
	"slimroute/verify"
)

// Config holds the settings of a routing run. The TOML keys are those the
// OpenSM plugin reads from the file named in event_plugin_options.
type Config struct {
	Layers     int    `toml:"layers"`   // 0: 4
	MinLen     int    `toml:"min_len"`  // 0: automatic
	MaxLen     int    `toml:"max_len"`  // 0: automatic
	Seed       uint64 `toml:"seed"`     // tie-breaking seed
	Trees      int    `toml:"trees"`    // trees per destination switch in layers ≥ 1; 0: by fabric size, -1: one per endpoint
	Regrow     *bool  `toml:"regrow"`   // false: keep the construction's trees (layers.Options.NoRegrow); nil or true: regrow them, for disjoint paths
	Deadlock   string `toml:"deadlock"` // "auto" (default: hops on diameter-2 designs, dragonfly+ on a Dragonfly+, else dfsssp, each falling back to the other), "hops" (on a Dragonfly+: dragonfly+, VLs by global cables crossed), "dfsssp" or "none"
	VLs        int    `toml:"vls"`      // 0: 8
	BestEffort bool   `toml:"best_effort"`
	// Plan names the planned fabric's file (any format fabric.Read takes;
	// relative to the settings file): the OpenSM plugin routes it ahead
	// of the first sweep (Prepare) and gives a discovered fabric that fits
	// it that routing (Template). Run itself ignores it.
	Plan string `toml:"plan"`
	// Template, when the fabric fits it, gives the layers (layers.Options.
	// Template) and, where they stay as they are, their VLs (Prepare).
	Template *Template `toml:"-"`
	// Jobs names a job file (docs/formats.md; relative to the settings
	// file): the OpenSM plugin routes for the jobs' traffic (Traffic).
	// Run itself ignores it.
	Jobs string `toml:"jobs"`
	// Traffic, when set, is the jobs' traffic the layers are made for
	// (layers.Options.Traffic).
	Traffic *layers.Traffic `toml:"-"`
	// SwitchOverFrom, with Traffic, is the routing in force, a Run of the
	// same fabric with the same settings (for other jobs) under the
	// hop-indexed VLs: the layers for Traffic then start from its tables
	// and keep every mix with them deadlock-free under its colours, which
	// the new routing keeps (layers.SwitchOver, deadlock.HopsKeeping), so
	// that the switch-over is safe while the switches are programmed one
	// after the other. A routing in force of another fabric or scheme is
	// not started from (Result.SwitchOver says whether it was).
	SwitchOverFrom *Result `toml:"-"`
	// Repair, false, makes the OpenSM plugin recompute on every sweep
	// instead of repairing its last routing after a small change (nil:
	// repair). Run itself ignores it.
	Repair *bool `toml:"repair"`
	// Mend, false, keeps a repair (the OpenSM plugin's, route --previous's,
	// and that of a design's routing for a fabric missing a few cables,
	// Completion) to the entries whose routes crossed what is gone; nil or
	// true lets it also move a route that did not break where that gives
	// a pair its disjoint paths back (repair.Options.Mend).
	Mend *bool `toml:"mend"`
	// MemoryLimit is the OpenSM plugin's memory budget for a routing
	// ("4GiB", "512MiB"; "": half the memory of the machine or of its
	// cgroup): a subnet whose routing would need more is left to the next
	// engine. Run itself ignores it.
	MemoryLimit string `toml:"memory_limit"`
	// LMC < 0 means log2(Layers); LIDsFromFabric takes the fabric's LIDs
	// (and their LMC) as they are.
	LMC            int  `toml:"-"`
	LFTCap         int  `toml:"lft_cap"`
	LIDsFromFabric bool `toml:"-"`
	// KeepLIDs, when set (and LIDsFromFabric is not), is the LIDs in
	// force by port GUID: its ports keep their LIDs, those of ports gone
	// stay reserved and new ports take free ones (lft.LIDOptions.Keep).
	KeepLIDs lft.LIDCache `toml:"-"`
	// Workers is how many goroutines a stage may run at once (the caller
	// passes runtime.GOMAXPROCS(0) or less); 0 or 1: one. Every result is
	// the same for every value.
	Workers int `toml:"-"`
	// Clock, when set, times the stages (Result.Stages); nil leaves the
	// times zero. The caller passes time.Now, or a fake clock in tests.
	Clock func() time.Time `toml:"-"`
}

// Result is everything a run produces.
type Result struct {
	Routing    *layers.Routing
	Assignment *deadlock.Assignment
	LIDs       *lft.LIDs
	Tables     *lft.Tables
	Verify     *verify.Report
	// Spare is the (SL, VL) pair the tables keep for a repair's routes
	// (spare.go; no path uses it), SL 0 for none.
	Spare struct{ SL, VL uint8 }
	// Plain, when set, says why a Dragonfly+ was routed as any other
	// fabric, not group pair by group pair (its Valiant layers got no VLs).
	Plain string
	// Completed, when set, says Run routed f as its Slim Fly design and
	// repaired those tables for f (complete.go): Routing and Assignment
	// are the design's, Tables, LIDs and Verify f's.
	Completed *Completion
	// SwitchOver says the layers were made from Config.SwitchOverFrom's
	// tables, every mix with them deadlock-free under its colours, which
	// the assignment kept.
	SwitchOver bool
	// Stages holds the wall time of each stage, in order: lids, layers,
	// vls, tables, verify (after a completion: lids, complete, layers,
	// vls, tables, repair, verify).
	Stages []Stage
}

// Stage is the wall time one stage of Run took.
type Stage = laps.Lap

// Run routes f, assigns VLs, builds the tables and verifies them. It fails
// rather than return tables that leave a LID unreachable, loop, or (unless
// best effort was asked for) carry a credit loop.
func Run(f *fabric.Fabric, c Config) (*Result, error) {
	if c.Layers == 0 {
		c.Layers = 4
	}
	// LIDs first: a fabric that does not fit is refused before any routing
	lmc := c.LMC
	if lmc < 0 {
		lmc = layers.LMC(c.Layers)
	}
	stages := laps.Start(c.Clock)
	lap := stages.Lap
	lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: lmc, LFTCap: c.LFTCap, FromFabric: c.LIDsFromFabric, Keep: c.KeepLIDs})
	if err != nil {
		return nil, err
	}
	if err := lidsHoldLayers(f, lids, c.Layers); err != nil {
		return nil, err
	}
	lap("lids")
	if res := runCompleted(f, lids, c, lap); res != nil {
		res.Stages = stages.Laps()
		return res, nil
	}
	res, err := route(f, lids, c, lap)
	if err != nil {
		return nil, err
	}
	res.Verify, err = verify.Check(res.Tables, c.Workers)
	lap("verify")
	res.Stages = stages.Laps()
	if err != nil {
		return nil, fmt.Errorf("verifier: %w", err)
	}
	if !res.Verify.Acyclic() && res.Assignment.RoutesOnCycle == 0 {
		return nil, fmt.Errorf("the routing has a credit loop (%s): use deadlock scheme hops or dfsssp", res.Verify.CycleString())
	}
	return res, nil
}

// route routes f with LIDs lids, assigns VLs and builds the tables.
func route(f *fabric.Fabric, lids *lft.LIDs, c Config, lap func(string)) (*Result, error) {
	switch c.Deadlock {
	case "hops", "dfsssp", "", "auto", "none":
	default:
		return nil, fmt.Errorf("deadlock = %q: want hops, dfsssp, auto or none", c.Deadlock)
	}
	res := &Result{LIDs: lids}
	opts := c.layersOptions()
	if opts.SwitchOver != nil && lft.OtherLIDs(c.SwitchOverFrom.Tables.Fabric(), c.SwitchOverFrom.LIDs, f, lids) != "" {
		c.SwitchOverFrom, opts.SwitchOver = nil, nil // its tables name other destinations
	}
	var err error
	res.Routing, res.Assignment, res.Plain, err = routeAndAssign(f, opts, func(r *layers.Routing) (*deadlock.Assignment, error) { return assign(r, c) }, lap)
	if errors.Is(err, layers.ErrSwitchOver) { // the routing in force is of another fabric
		c.SwitchOverFrom, opts.SwitchOver = nil, nil
		res.Routing, res.Assignment, res.Plain, err = routeAndAssign(f, opts, func(r *layers.Routing) (*deadlock.Assignment, error) { return assign(r, c) }, lap)
	}
	if err != nil {
		return nil, err
	}
	res.SwitchOver = opts.SwitchOver != nil && res.Assignment.Scheme == deadlock.SchemeHops && slices.Equal(res.Assignment.Colors, c.SwitchOverFrom.Assignment.Colors)
	r := res.Routing
	lap("vls")
	vls := withSpare(f, res.Assignment, c.VLs)
	if sp, ok := vls.(spareVLs); ok {
		res.Spare.SL, res.Spare.VL = sp.sl, sp.vl
	}
	res.Tables, err = lft.Build(f, res.LIDs, r, vls, c.Workers)
	if err != nil {
		return nil, err
	}
	lap("tables")
	return res, nil
}

// routeAndAssign computes the layers with opts and assigns their VLs with
// assign. When a Dragonfly+ routed group pair by group pair (Valiant, 6
// hops) cannot be given VLs (more SLs than 16 on a large one), it routes
// f again as any other fabric (minimal to minimal + 1 hops) and says why
// in plain.
func routeAndAssign(f *fabric.Fabric, opts layers.Options, assign func(*layers.Routing) (*deadlock.Assignment, error), lap func(string)) (r *layers.Routing, a *deadlock.Assignment, plain string, err error) {
	if r, err = layers.Compute(f, opts); err != nil {
		return nil, nil, "", err
	}
	lap("layers")
	a, err = assign(r)
	if _, _, ok := r.DragonflyPlus(); err == nil || !ok {
		return r, a, "", err
	}
	plain = fmt.Sprintf("the Dragonfly+'s Valiant layers got no VLs (%v); routed on paths of minimal to minimal + 1 hops instead", err)
	opts.NoValiant = true
	if r, err = layers.Compute(f, opts); err != nil {
		return nil, nil, "", err
	}
	a, err = assign(r)
	return r, a, plain, err
}

// assign gives routing r VLs under c's deadlock scheme: the template's,
// when r holds its routes as they are and they were assigned under the
// same settings.
func assign(r *layers.Routing, c Config) (*deadlock.Assignment, error) {
	if p := c.SwitchOverFrom; p != nil && c.Traffic != nil {
		if a, ok := deadlock.HopsKeeping(p.Assignment, r, c.Workers); ok {
			return a, nil
		}
	}
	if t := c.Template; t != nil && hopsFirst(r, c) && c.VLs == t.vls && c.BestEffort == t.bestEffort {
		if a, ok := deadlock.HopsFor(t.hops, r, t.layers); ok {
			return a, nil
		}
	}
	opts := c.deadlockOptions()
	switch c.Deadlock {
	case "hops":
		if _, _, ok := r.DragonflyPlus(); ok { // its hop classes: the global cables crossed
			return deadlock.AssignDragonfly(r, opts)
		}
		return deadlock.AssignHops(r, opts)
	case "dfsssp":
		return deadlock.AssignDFSSSP(r, opts)
	case "none":
		return deadlock.None(r), nil
	}
	return deadlock.AssignAuto(r, opts)
}

// runCompleted routes f as its design (a Slim Fly's, a HyperX's, a
// Dragonfly+'s) and repairs the tables for f (complete.go), or returns
// nil when that does not apply or fails (the caller then routes f
// itself): f is no such design less some parts, the routing has jobs to
// route for (their flows are f's), the VL scheme is neither hop-indexed
// nor the Dragonfly+'s (the repair keeps routes' VLs increasing hop by
// hop), or the repaired tables do not pass the verifier.
func runCompleted(f *fabric.Fabric, lids *lft.LIDs, c Config, lap func(string)) *Result {
	if c.Traffic != nil || c.Deadlock != "" && c.Deadlock != "auto" && c.Deadlock != "hops" {
		return nil
	}
	g, cmp := completed(f)
	if g == nil {
		return nil
	}
	glids, ok := completedLIDs(lids, f, g, c.LFTCap)
	lap("complete")
	if !ok {
		return nil
	}
	res, err := route(g, glids, c, lap)
	if err != nil || res.Assignment.Scheme != deadlock.SchemeHops && res.Assignment.Scheme != deadlock.SchemeDragonfly {
		return nil
	}
	tab, st, err := repair.Repair(res.Tables, f, repair.Options{Workers: c.Workers, VLs: c.VLs, Mend: c.Mending()})
	lap("repair")
	if err != nil {
		return nil
	}
	rep, err := verify.Check(tab, c.Workers)
	lap("verify")
	if err != nil || !rep.Acyclic() {
		return nil
	}
	cmp.Changed, cmp.Escaped = st.Changed, st.Escaped
	if st.Escaped > 0 {
		res.Spare.SL, res.Spare.VL = 0, 0 // the repair's routes took it
	}
	res.Tables, res.Verify, res.LIDs, res.Completed = tab, rep, tab.LIDs(), cmp
	return res
}

// Mending says whether repairs may mend (Config.Mend: unset is yes).
func (c Config) Mending() bool { return c.Mend == nil || *c.Mend }

// lidsHoldLayers refuses LIDs that leave a layer unreachable: layer k is
// programmed at LID offset k, so every HCA port needs 2^LMC ≥ layers.
func lidsHoldLayers(f *fabric.Fabric, lids *lft.LIDs, L int) error {
	for _, p := range lids.Ports() {
		if p.Port.Port != 0 && 1<<p.LMC < L {
			return fmt.Errorf("layers = %d needs LMC %d or more (a LID per layer), but %s has LMC %d (%d LIDs): raise the SM's lmc (OpenSM: lmc %d in opensm.conf) or use layers = %d",
				L, layers.LMC(L), f.PortString(p.Port), p.LMC, 1<<p.LMC, layers.LMC(L), 1<<p.LMC)
		}
	}
	return nil
}

// deadlockOptions returns the options of the VL stage.
func (c Config) deadlockOptions() deadlock.Options {
	return deadlock.Options{VLs: c.VLs, BestEffort: c.BestEffort, Workers: c.Workers}
}

// layersOptions returns the options of the layers stage.
func (c Config) layersOptions() layers.Options {
	opts := layers.Options{Layers: c.Layers, MinLen: c.MinLen, MaxLen: c.MaxLen, Seed: c.Seed, Trees: c.Trees,
		NoRegrow: c.Regrow != nil && !*c.Regrow, Workers: c.Workers, Clock: c.Clock, Template: c.Template.layersOf(), Traffic: c.Traffic}
	if p := c.SwitchOverFrom; p != nil && c.Traffic != nil && deadlock.Keepable(p.Assignment) {
		opts.SwitchOver = &layers.SwitchOver{Previous: p.Routing, Colours: p.Assignment.Colors}
	}
	return opts
}

// Template is a planned Slim Fly's routing made ahead of time (Prepare):
// its layers and, when the settings give them hop-indexed VLs, their
// assignment.
type Template struct {
	layers     *layers.Template
	hops       *deadlock.Assignment // nil: another scheme, none fitted, or jobs to route for
	vls        int                  // the settings it was assigned under (Config.VLs, BestEffort)
	bestEffort bool
}

// Prepare routes the planned Slim Fly f with c's settings ahead of time:
// Run with the result as c.Template gives a fabric that fits it (the same
// Slim Fly, however numbered, named and ordered, with as many HCAs per
// switch) those layers without searching, and where no pass changes them
// their hop-indexed VLs without walking the routes: it colours the
// switches ahead where c's scheme tries the hop-indexed one first, and
// not when c names a job file (the jobs' pass would move the routes). It
// fails as layers.NewTemplate does.
func Prepare(f *fabric.Fabric, c Config) (*Template, error) {
	if c.Layers == 0 {
		c.Layers = 4
	}
	c.Template, c.Traffic = nil, nil
	lt, err := layers.NewTemplate(f, c.layersOptions())
	if err != nil {
		return nil, err
	}
	t := &Template{layers: lt, vls: c.VLs, bestEffort: c.BestEffort}
	if r := lt.Routing(); c.Jobs == "" && hopsFirst(r, c) {
		if a, err := deadlock.AssignHops(r, c.deadlockOptions()); err == nil {
			t.hops = a
		}
	}
	return t, nil
}

// Switches is the number of switches of the template's fabric.
func (t *Template) Switches() int { return t.layers.Switches() }

// layersOf returns t's layers, nil for no template.
func (t *Template) layersOf() *layers.Template {
	if t == nil {
		return nil
	}
	return t.layers
}

// hopsFirst tells whether assign gives routing r the hop-indexed scheme
// when it fits: deadlock = hops (but on a Dragonfly+), or auto where
// AssignAuto tries it first (bounds that are not per pair).
func hopsFirst(r *layers.Routing, c Config) bool {
	if _, _, ok := r.DragonflyPlus(); ok {
		return false
	}
	return c.Deadlock == "hops" || (c.Deadlock == "" || c.Deadlock == "auto") && !r.Bounds.PerPair
}

// ParseConfig reads a TOML settings file; unknown keys are errors that name
// the key. LMC is derived from the layers; regrow is on unless the file
// turns it off (the default of the command line too).
func ParseConfig(r io.Reader, file string) (Config, error) {
	c := Config{LMC: -1}
	err := tomlfile.Decode(r, file, &c, "layers, min_len, max_len, seed, trees, regrow, deadlock, vls, best_effort, lft_cap, repair, mend, plan, memory_limit, jobs")
	return c, err
}
