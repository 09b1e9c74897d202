package engine

import (
	"time"

	"slimroute/pipeline"
)

// Ahead routes the subnet as OpenSM has just discovered it (its heavy
// sweep done, js as the shim describes it; the ports may have no LIDs
// yet) with the settings in cfgPath on up to workers goroutines, timed
// with clock. The plugin calls it on its first sweep, off OpenSM's lock,
// while OpenSM still assigns LIDs and sets the ports up; the sweep's
// Compute then takes the layers from it when the subnet still fits (the
// same Slim Fly with as many HCAs on every switch, the same settings),
// so that inside the lock it only recognises the fabric, maps the routes
// and checks them (with a job file, the jobs' pass runs on those layers
// in the sweep). It returns nil where routing ahead does not apply — the
// settings name a plan (Prepare routes that), or the subnet is no Slim
// Fly that the layers route in its design's numbering — and where it
// fails: the sweep's Compute meets the same settings and subnet and says
// why.
func Ahead(js []byte, cfgPath string, workers int, clock func() time.Time) *Plan {
	cfg, _, err := readSettings(cfgPath)
	if err != nil || cfg.Plan != "" {
		return nil
	}
	start := clock()
	f, err := readSubnet(js)
	if err != nil || withinBudget(f, cfg.Layers, workers, cfg.MemoryLimit, cfgPath) != nil {
		return nil
	}
	cfg.Workers = workers
	t, err := pipeline.Prepare(f, cfg)
	if err != nil {
		return nil
	}
	return &Plan{template: t, took: clock().Sub(start), discovered: true}
}
