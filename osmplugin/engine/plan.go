package engine

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"time"

	"slimroute/fabric"
	"slimroute/internal/laps"
	"slimroute/pipeline"
)

// Plan is the planned fabric's routing, made ahead of the first sweep
// (Prepare) from the settings' plan key, for Plan.Compute.
type Plan struct {
	file     string
	template *pipeline.Template
	took     time.Duration
	// discovered: routed from the subnet at its discovery (Ahead), not
	// from a plan file
	discovered bool
}

// Prepare routes the fabric the settings file cfgPath names as its plan
// (key plan) on up to workers goroutines, timed with clock (time.Now in
// the plugin). It returns nil and no error when the settings name no
// plan, and an error that names the plan file when it cannot be read or
// is no Slim Fly.
func Prepare(cfgPath string, workers int, clock func() time.Time) (*Plan, error) {
	cfg, _, err := readSettings(cfgPath)
	if err != nil || cfg.Plan == "" {
		return nil, err
	}
	file := besideSettings(cfgPath, cfg.Plan)
	start := clock()
	f, err := readPlan(file)
	if err != nil {
		return nil, fmt.Errorf("plan = %q in %s: %w", cfg.Plan, cfgPath, err)
	}
	if err := withinBudget(f, cfg.Layers, workers, cfg.MemoryLimit, cfgPath); err != nil {
		return nil, fmt.Errorf("plan = %q in %s: %w", cfg.Plan, cfgPath, err)
	}
	cfg.Workers = workers
	t, err := pipeline.Prepare(f, cfg)
	if err != nil {
		return nil, fmt.Errorf("plan = %q in %s: %w; remove the key to route every sweep in full", cfg.Plan, cfgPath, err)
	}
	return &Plan{file: file, template: t, took: clock().Sub(start)}, nil
}

// readPlan reads a fabric file in the format its content shows.
func readPlan(file string) (*fabric.Fabric, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	format := fabric.Sniff(text[:min(len(text), 64<<10)])
	if format == "" {
		return nil, fmt.Errorf("%s is no fabric file slimroute reads (ibsim net, ibnetdiscover output or slimroute JSON, as slimroute topo writes it)", file)
	}
	f, err := fabric.Read(bytes.NewReader(text), file, format)
	if err != nil {
		return nil, err
	}
	return f.Canonical()
}

// Summary is the line the plugin logs once the plan is routed.
func (p *Plan) Summary() string {
	if p.discovered {
		return fmt.Sprintf("slimroute: the subnet as discovered routed while OpenSM assigns LIDs, in %d ms (%d switches)", p.took.Milliseconds(), p.template.Switches())
	}
	return fmt.Sprintf("slimroute: the plan %s routed ahead of the first sweep in %d ms (%d switches)", p.file, p.took.Milliseconds(), p.template.Switches())
}

// used says, for the summary of a full computation, whether its layers
// came from the plan.
func (p *Plan) used(res *pipeline.Result) string {
	if p == nil {
		return ""
	}
	fromPlan := slices.ContainsFunc(res.Routing.Passes, func(l laps.Lap) bool { return l.Name == "template" })
	switch {
	case p.discovered && fromPlan:
		return "; layers routed at discovery, while OpenSM assigned LIDs"
	case p.discovered:
		return "; the subnet changed since its discovery: layers searched"
	case fromPlan:
		return "; layers from the plan " + p.file
	}
	return fmt.Sprintf("; the fabric is not the plan %s (the same Slim Fly with as many HCAs on every switch, every cable up, the same settings): layers searched", p.file)
}
