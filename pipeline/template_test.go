package pipeline

import (
	"bytes"
	"fmt"
	"testing"

	"slimroute/fabric"
	"slimroute/hyperx"
	"slimroute/slimfly"
)

// TestATemplateGivesTheTablesOfARun prepares templates of a Slim Fly and
// of a one-dimensional HyperX (a full mesh: its bounds are per pair, so
// auto tries DFSSSP first) under one set of settings and runs them under
// another — deadlock scheme, VLs, best effort — and wants, for every
// pair, the very tables Run writes without the template: a template's
// VLs are taken only where the run would assign those.
func TestATemplateGivesTheTablesOfARun(t *testing.T) {
	sf, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	hx, err := hyperx.Build(hyperx.Params{Dims: []int{6}, Endpoints: 2})
	if err != nil {
		t.Fatal(err)
	}
	settings := []Config{
		{Deadlock: "hops"}, {Deadlock: "auto"}, {Deadlock: "dfsssp"},
		{Deadlock: "auto", VLs: 4}, {Deadlock: "hops", BestEffort: true},
	}
	for _, c := range []struct {
		name string
		f    *fabric.Fabric
	}{{"slimfly-q5", sf}, {"hyperx-6", hx}} {
		name, f := c.name, c.f
		for _, before := range settings {
			before.LMC, before.Workers = -1, 2
			tmpl, err := Prepare(f, before)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, now := range settings {
				now.LMC, now.Workers = -1, 2
				want, err := Run(f, now)
				if err != nil {
					t.Fatalf("%s, %+v: %v", name, now, err)
				}
				now.Template = tmpl
				got, err := Run(f, now)
				if err != nil {
					t.Fatalf("%s, %+v with a template of %+v: %v", name, now, before, err)
				}
				if a, b := tablesText(t, got.Tables), tablesText(t, want.Tables); !bytes.Equal(a, b) {
					t.Errorf("%s: run with %s, template of %s: the tables differ from the run's without it", name, settingsOf(now), settingsOf(before))
				}
			}
		}
	}
}

func settingsOf(c Config) string {
	return fmt.Sprintf("deadlock %q, %d VLs, best effort %v", c.Deadlock, c.VLs, c.BestEffort)
}
