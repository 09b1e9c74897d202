package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"slimroute/fabric"
	"slimroute/internal/ibsimtest"
	"slimroute/internal/wiringfaults"
)

// e2eCase is one sample of the property test run through the real tools.
type e2eCase struct {
	fabric string
	naming wiringfaults.Naming
	kinds  []wiringfaults.Kind // the kinds to draw from; every one must occur
	faults int
	from   uint64 // the first seed to try
}

// kindGroups splits the fault kinds into three groups, so that three cases
// per naming mode cover every kind on the q=5 Slim Fly.
func kindGroups() [][]wiringfaults.Kind {
	k := wiringfaults.Kinds
	return [][]wiringfaults.Kind{k[:5], k[5:10], k[10:]}
}

func e2eSample() []e2eCase {
	var cs []e2eCase
	for _, naming := range wiringfaults.Namings {
		cs = append(cs, e2eCase{"sf5", naming, nil, 0, 1}) // intact: exit 0, no finding
		for _, g := range kindGroups() {
			for _, from := range []uint64{1, 100} {
				cs = append(cs, e2eCase{"sf5", naming, g, 2 * len(g), from})
			}
		}
	}
	for _, fab := range []string{"sf7", "clos2", "clos3", "dfp"} {
		// hosts described by host name go through ibsim on sf5 above
		for _, naming := range []wiringfaults.Naming{wiringfaults.PlanDescriptions, wiringfaults.FactoryNewGUIDs, wiringfaults.FactoryPlannedGUIDs} {
			for _, faults := range []int{3, 10} {
				cs = append(cs, e2eCase{fab, naming, nil, faults, uint64(faults)})
			}
		}
	}
	return cs
}

// generateCovering draws cases from successive seeds until one contains
// every kind the sample asks for.
func generateCovering(t *testing.T, plan *fabric.Fabric, s e2eCase) *wiringfaults.Case {
	for seed := s.from; seed < s.from+1000; seed++ {
		c, err := wiringfaults.Generate(plan, seed, wiringfaults.Options{Naming: s.naming, Faults: s.faults, Kinds: s.kinds, Compound: s.faults == wiringfaults.MaxFaults && s.kinds == nil})
		if err != nil {
			t.Fatal(err)
		}
		covered := true
		for _, k := range s.kinds {
			covered = covered && slices.ContainsFunc(c.Faults, func(f wiringfaults.Fault) bool { return f.Kind == k })
		}
		if covered {
			return c
		}
	}
	t.Fatalf("no seed in %d..%d draws every kind of %v", s.from, s.from+999, s.kinds)
	return nil
}

// TestCablingVerifyPropertyThroughTheRealTools runs a sample of the
// property test of issue 12 end to end: each case's discovered fabric is
// written as an ibsim net file (missing cables, switches and unplugged
// HCAs left out, degraded links with lower width/speed masks), simulated,
// discovered by the real ibnetdiscover, checked by `slimroute cabling
// verify --json`, and the JSON is judged against the truth with the same
// invariant as the pure-Go property test. The sample holds every fault kind
// on q=5 in each naming mode, the intact q=5 in each, and mixed cases of 3
// faults and of 10 compound faults (piled on the same plugs) on q=7 and
// each Clos in each naming mode.
func TestCablingVerifyPropertyThroughTheRealTools(t *testing.T) {
	ibsimtest.Require(t, "ibnetdiscover")
	start := time.Now()
	plans, planDirs := map[string]*fabric.Fabric{}, map[string]string{}
	for _, name := range wiringfaults.Plans {
		plan, err := wiringfaults.Plan(name)
		if err != nil {
			t.Fatal(err)
		}
		plans[name], planDirs[name] = plan, writePlan(t, plan)
	}
	for _, s := range e2eSample() {
		name := fmt.Sprintf("%s/%s/%d-mixed-faults-from-seed-%d", s.fabric, s.naming, s.faults, s.from)
		if s.kinds != nil {
			name = fmt.Sprintf("%s/%s/%s…%s-from-seed-%d", s.fabric, s.naming, s.kinds[0], s.kinds[len(s.kinds)-1], s.from)
		}
		t.Run(name, func(t *testing.T) {
			plan, dir := plans[s.fabric], planDirs[s.fabric]
			c := generateCovering(t, plan, s)
			found := discoverCase(t, c)
			cmd := exec.Command(slimroute, "cabling", "verify", "--plan", dir, "--discovered", found, "--json")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			b, err := cmd.Output()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			out, status := string(b), cmd.ProcessState.ExitCode()
			if want := map[bool]int{true: 0, false: 1}[c.Clean()]; status != want {
				t.Fatalf("exit status %d, want %d (%v):\n%s%s", status, want, err, stderr.String(), out)
			}
			if _, err := wiringfaults.Judge(plan, c, []byte(out)); err != nil {
				t.Fatalf("%v\nverify said:\n%s", err, out)
			}
			kinds := []string{"intact fabric"}
			if len(c.Faults) > 0 {
				kinds = nil
			}
			for _, f := range c.Faults {
				kinds = append(kinds, string(f.Kind))
			}
			t.Logf("seed %d: %s judged right", c.Seed, strings.Join(kinds, ", "))
		})
	}
	t.Logf("%d cases in %v", len(e2eSample()), time.Since(start).Round(time.Second))
}

// writePlan writes what `cabling verify --plan` reads: DIR/fabric.json.
func writePlan(t *testing.T, plan *fabric.Fabric) string {
	dir := t.TempDir()
	writeFabricFile(t, filepath.Join(dir, "fabric.json"), plan, fabric.FormatJSON)
	return dir
}

// discoverCase simulates the case's discovered fabric and returns the file
// holding what ibnetdiscover reports. It checks that the tools saw what
// the generator says discovery sees: the same nodes, cables and rates.
func discoverCase(t *testing.T, c *wiringfaults.Case) string {
	sim := ibsimtest.StartFabric(t, c.Found)
	text := sim.Run(t, 2*time.Minute, "ibnetdiscover")
	out := filepath.Join(t.TempDir(), "ibnetdiscover.out")
	if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := fabric.ReadIBNetDiscover(strings.NewReader(text), out)
	if err != nil {
		t.Fatal(err)
	}
	if d := cablingDiff(c.Found, got); d != "" {
		t.Fatalf("ibnetdiscover does not see what the generator says it sees: %s", d)
	}
	return out
}

// cablingDiff compares two fabrics by node names and ports (cabling), and
// then the rate of each link.
func cablingDiff(want, got *fabric.Fabric) string {
	w, g := cabling(want), cabling(got)
	if want.NumNodes() != got.NumNodes() || !slices.Equal(w, g) {
		return fmt.Sprintf("%d nodes and %d links, want %d and %d", got.NumNodes(), len(g), want.NumNodes(), len(w))
	}
	for _, l := range want.Links() {
		n, _ := got.NodeByName(want.Node(l.A.Node).Name)
		i, _ := got.LinkAt(fabric.PortRef{Node: n, Port: l.A.Port})
		if gl := got.Links()[i]; gl.Width != l.Width || gl.Speed != l.Speed {
			return fmt.Sprintf("%s runs at %s, want %s", want.PortString(l.A), fabric.Rate(gl.Width, gl.Speed), fabric.Rate(l.Width, l.Speed))
		}
	}
	return ""
}
