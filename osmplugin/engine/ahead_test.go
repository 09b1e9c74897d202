package engine

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/internal/disguise"
	"slimroute/slimfly"
)

// TestAheadGivesTheSweepItsRouting routes Slim Flies as OpenSM discovers
// them — drawn names, GUIDs, port numbers and order, no LIDs yet — ahead
// of the sweep (Ahead), then sweeps them with OpenSM's LIDs at LMC 2: as
// discovered, the plugin takes the layers routed ahead and answers every
// LFT, path SL and SL2VL entry as it does without them. With a cable
// gone between discovery and routing, q = 7 is routed as its design, whose
// layers were routed ahead, and repaired; q = 5 is routed as it is: the
// plugin says the subnet changed and searches. Both answer alike too.
func TestAheadGivesTheSweepItsRouting(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	cfg := settings(t, "")
	for _, q := range []int{5, 7, 5, 7} {
		plain, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		found, err := disguise.Fabric(plain, rng)
		if err != nil {
			t.Fatal(err)
		}
		ahead := Ahead(discovered(t, found), cfg, 2, time.Now)
		if ahead == nil {
			t.Fatalf("q=%d: nothing routed ahead", q)
		}
		changed, err := fabric.New(found.Nodes(), withoutASwitchCable(found, rng))
		if err != nil {
			t.Fatal(err)
		}
		changedSays := []string{"the subnet changed since its discovery: layers searched"}
		if q >= 7 {
			changedSays = []string{"then repaired", "layers routed at discovery"}
		}
		for _, c := range []struct {
			f    *fabric.Fabric
			says []string
		}{{found, []string{"layers routed at discovery"}}, {changed, changedSays}} {
			f, js := withLIDs(t, c.f, 2)
			got, want := bothWays(t, ahead, js, cfg, nil, nil)
			for _, say := range c.says {
				if !strings.Contains(got.Summary(), say) {
					t.Errorf("q=%d: summary %q does not say %q", q, got.Summary(), say)
				}
			}
			sameAnswers(t, f, got, want)
		}
	}
}

// TestAheadOnlyWhereItApplies: nothing is routed ahead for a fabric that
// is no Slim Fly, where the settings name a plan, or where they cannot be
// read (the sweep's Compute says why); a Slim Fly is, also with a job
// file.
func TestAheadOnlyWhereItApplies(t *testing.T) {
	sf, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := clos.Build(clos.Params{Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name string
		f    *fabric.Fabric
		cfg  string
	}{
		{"a Clos", cl, ""},
		{"a plan", sf, write("plan.toml", "plan = \"sf.json\"\n")},
		{"unreadable settings", sf, write("bad.toml", "layers = \"four\"\n")},
		{"a Slim Fly", sf, ""},
		{"a Slim Fly with a job file", sf, write("jobs.toml", "jobs = \"jobs.txt\"\n")},
	} {
		p := Ahead(discovered(t, c.f), c.cfg, 2, time.Now)
		if (p != nil) != strings.HasPrefix(c.name, "a Slim Fly") {
			t.Errorf("%s: Ahead gave %v", c.name, p)
		}
	}
}

// bothWays computes the subnet js with the settings cfg with the layers
// routed ahead and without them, each after its own last state.
func bothWays(t *testing.T, ahead *Plan, js []byte, cfg string, lastGot, lastWant *State) (got, want *State) {
	t.Helper()
	got, err := ahead.Compute(js, cfg, 2, lastGot)
	if err != nil {
		t.Fatal(err)
	}
	want, err = Compute(js, cfg, 2, lastWant)
	if err != nil {
		t.Fatal(err)
	}
	return got, want
}

// discovered is f as the shim describes it at the end of OpenSM's heavy
// sweep on a fresh subnet: slimroute JSON without LIDs.
func discovered(t *testing.T, f *fabric.Fabric) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := fabric.WriteJSON(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestAheadWithAJobFile: with a job file in the settings, the layers
// routed at discovery serve the sweep, whose traffic pass routes for the
// jobs on them, and again the full recompute after the job file changed:
// every answer as without routing ahead.
func TestAheadWithAJobFile(t *testing.T) {
	plain, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	found, err := disguise.Fabric(plain, rand.New(rand.NewPCG(30, 2)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := settings(t, "jobs = \"jobs.txt\"\n")
	var hosts []string
	for _, h := range found.IDsOf(fabric.HCA) {
		name, _ := fabric.HostName(found.Name(h)) // "node001" of "node001 mlx5_0"
		hosts = append(hosts, name)
	}
	text := "1 " + strings.Join(hosts[:40], ",") + " ring\n2 " + strings.Join(hosts[40:90], ",") + " tree\n"
	if err := os.WriteFile(filepath.Join(filepath.Dir(cfg), "jobs.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ahead := Ahead(discovered(t, found), cfg, 2, time.Now)
	if ahead == nil {
		t.Fatal("nothing routed ahead")
	}
	f, js := withLIDs(t, found, 2)
	got, want := bothWays(t, ahead, js, cfg, nil, nil)
	for _, say := range []string{"layers routed at discovery", "routed for the jobs'"} {
		if !strings.Contains(got.Summary(), say) {
			t.Errorf("summary %q does not say %q", got.Summary(), say)
		}
	}
	sameAnswers(t, f, got, want)
	// the job file changes: the full recompute takes the same layers
	text = "1 " + strings.Join(hosts[20:70], ",") + " tree\n"
	if err := os.WriteFile(filepath.Join(filepath.Dir(cfg), "jobs.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, want = bothWays(t, ahead, js, cfg, got, want)
	for _, say := range []string{"the job file jobs.txt changed", "layers routed at discovery", "routed for the jobs'"} {
		if !strings.Contains(got.Summary(), say) {
			t.Errorf("after the change: summary %q does not say %q", got.Summary(), say)
		}
	}
	sameAnswers(t, f, got, want)
}
