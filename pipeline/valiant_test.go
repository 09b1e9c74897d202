package pipeline

import (
	"errors"
	"strings"
	"testing"

	"slimroute/deadlock"
	"slimroute/dragonflyplus"
	"slimroute/layers"
)

// TestDragonflyPlusFallsBackWhenItsValiantLayersGetNoVLs: when the VL
// assignment refuses a Dragonfly+'s Valiant layers (as it does past 16
// SLs on a large one), routeAndAssign routes the fabric again as any
// other (minimal to minimal + 1 hops) and says so; other refusals stand,
// and an accepted Valiant routing is kept.
func TestDragonflyPlusFallsBackWhenItsValiantLayersGetNoVLs(t *testing.T) {
	f, err := dragonflyplus.Build(dragonflyplus.Params{Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	opts := Config{Layers: 4, Seed: 1, LMC: -1}.layersOptions()
	refuseValiant := func(r *layers.Routing) (*deadlock.Assignment, error) {
		if _, _, ok := r.DragonflyPlus(); ok {
			return nil, errors.New("17 SLs")
		}
		return deadlock.AssignAuto(r, deadlock.Options{})
	}
	r, a, plain, err := routeAndAssign(f, opts, refuseValiant, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := r.DragonflyPlus(); ok || r.Bounds != (layers.Bounds{PerPair: true}) || a == nil || !strings.Contains(plain, "17 SLs") {
		t.Fatalf("after a refusal: Valiant %v, bounds %v, note %q", ok, r.Bounds, plain)
	}
	r, _, plain, err = routeAndAssign(f, opts, func(r *layers.Routing) (*deadlock.Assignment, error) {
		return deadlock.AssignAuto(r, deadlock.Options{})
	}, func(string) {})
	if _, _, ok := r.DragonflyPlus(); err != nil || !ok || plain != "" {
		t.Fatalf("accepted: err %v, Valiant %v, note %q", err, ok, plain)
	}
	_, _, _, err = routeAndAssign(f, opts, func(*layers.Routing) (*deadlock.Assignment, error) { return nil, errors.New("never") }, func(string) {})
	if err == nil || err.Error() != "never" {
		t.Fatalf("a refusal of both routings: %v", err)
	}
}
