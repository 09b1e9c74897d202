package engine

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/internal/disguise"
	"slimroute/lft"
	"slimroute/slimfly"
)

// TestPlanGivesASweepItsRouting routes a planned Slim Fly ahead of time
// (the settings' plan key, an ibsim net file beside them) and sweeps the
// same Slim Fly as OpenSM discovers it — other names, GUIDs, port numbers
// and order, OpenSM's LIDs at LMC 2: the plugin takes its layers from the
// plan and answers every LFT, path SL and SL2VL entry as it does when it
// routes the sweep without a plan. With a cable down a Slim Fly of q ≥ 7
// is routed as its design (pipeline.Run), whose layers the plan has; one
// of q = 5 is not the plan: the plugin says so and routes it as without
// one.
func TestPlanGivesASweepItsRouting(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	for _, q := range []int{5, 7} {
		plain, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		cfg, plan := planned(t, dir, plain, "plan.net", fabric.FormatIBSim, 2)
		found, err := disguise.Fabric(plain, rng)
		if err != nil {
			t.Fatal(err)
		}
		damaged, err := fabric.New(found.Nodes(), withoutASwitchCable(found, rng))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			f    *fabric.Fabric
			fits bool
		}{{"discovered", found, true}, {"a cable down", damaged, q >= 7}} {
			f, js := withLIDs(t, c.f, 2)
			got, err := plan.Compute(js, cfg, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Compute(js, cfg, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if fits := strings.Contains(got.Summary(), "layers from the plan "+filepath.Join(dir, "plan.net")); fits != c.fits {
				t.Errorf("q=%d, %s: summary %q", q, c.name, got.Summary())
			}
			if !c.fits && !strings.Contains(got.Summary(), "is not the plan") {
				t.Errorf("q=%d, %s: the summary does not say the fabric is not the plan: %q", q, c.name, got.Summary())
			}
			if c.f == damaged && c.fits && !strings.Contains(got.Summary(), "routed as the Slim Fly design of q = 7 (with the 1 cable and 0 HCAs it lacks)") {
				t.Errorf("q=%d, %s: the summary does not say the fabric was routed as its design: %q", q, c.name, got.Summary())
			}
			sameAnswers(t, f, got, want)
		}
	}
}

// TestPrepareNamesThePlan: a plan that cannot be routed ahead of time is
// an error that names the settings key, the file and what is wrong.
func TestPrepareNamesThePlan(t *testing.T) {
	dir := t.TempDir()
	cl, err := clos.Build(clos.Params{Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	writeFabric(t, filepath.Join(dir, "clos.json"), cl, fabric.FormatJSON)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("rack A: 12 switches\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ plan, want string }{
		{"missing.json", "no such file"},
		{"notes.txt", "is no fabric file"},
		{"clos.json", "no Slim Fly"},
	} {
		cfg := filepath.Join(dir, "slimroute.toml")
		if err := os.WriteFile(cfg, []byte("plan = \""+c.plan+"\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Prepare(cfg, 1, time.Now)
		if err == nil || !strings.Contains(err.Error(), "plan = \""+c.plan+"\" in "+cfg) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("plan %s: error %v, want one naming the key, %s and %q", c.plan, err, cfg, c.want)
		}
	}
	if p, err := Prepare("", 1, time.Now); p != nil || err != nil {
		t.Errorf("no settings: plan %v, error %v; want neither", p, err)
	}
}

// planned writes f as the plan file name (in format) into dir, with
// settings naming it, and returns the settings file and the plan Prepare
// routes from them on workers goroutines.
func planned(tb testing.TB, dir string, f *fabric.Fabric, name string, format fabric.Format, workers int) (string, *Plan) {
	tb.Helper()
	writeFabric(tb, filepath.Join(dir, name), f, format)
	cfg := filepath.Join(dir, "slimroute.toml")
	if err := os.WriteFile(cfg, []byte("plan = \""+name+"\"\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	plan, err := Prepare(cfg, workers, time.Now)
	if err != nil || plan == nil {
		tb.Fatalf("Prepare: plan %v, error %v", plan, err)
	}
	return cfg, plan
}

func writeFabric(t testing.TB, path string, f *fabric.Fabric, format fabric.Format) {
	t.Helper()
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if err := fabric.Write(fh, f, format); err != nil {
		t.Fatal(err)
	}
}

// withoutASwitchCable returns f's cables less a random one between two
// switches.
func withoutASwitchCable(f *fabric.Fabric, rng *rand.Rand) []fabric.Link {
	links := f.Links()
	for {
		i := rng.IntN(len(links))
		if f.Node(links[i].A.Node).Kind == fabric.Switch && f.Node(links[i].B.Node).Kind == fabric.Switch {
			return append(links[:i], links[i+1:]...)
		}
	}
}

// sameAnswers requires a and b to answer OpenSM alike on f: every
// switch's LFT, every path SL between f's LIDs, every SL2VL entry.
func sameAnswers(t *testing.T, f *fabric.Fabric, a, b *State) {
	t.Helper()
	lids := a.tables.LIDs()
	for _, sw := range f.IDsOf(fabric.Switch) {
		n := f.Node(sw)
		x, _ := a.LFT(n.GUID)
		y, _ := b.LFT(n.GUID)
		if string(x) != string(y) {
			t.Fatalf("%s: the LFTs differ", n.Name)
		}
		for in := 0; in <= n.Ports; in++ {
			for out := 1; out <= n.Ports; out++ {
				for sl := uint8(0); sl < 16; sl++ {
					if a.SL2VL(n.GUID, in, out, sl) != b.SL2VL(n.GUID, in, out, sl) {
						t.Fatalf("%s %d->%d SL %d: the VLs differ", n.Name, in, out, sl)
					}
				}
			}
		}
	}
	for src := lft.LID(1); src <= lids.Top(); src++ {
		for dst := lft.LID(1); dst <= lids.Top(); dst++ {
			if a.PathSL(src, dst) != b.PathSL(src, dst) {
				t.Fatalf("path SL %d -> %d differs", src, dst)
			}
		}
	}
}
