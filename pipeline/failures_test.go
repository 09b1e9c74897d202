package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/internal/hcavl"
	"slimroute/slimfly"
	"slimroute/spec"
)

// failure is a generated fault set: switch-to-switch cables or whole
// switches that are gone.
type failure struct {
	name     string
	cables   int     // this many random inter-switch cables
	share    float64 // or this share of them
	switches int     // and this many random switches
}

var failureLevels = []failure{
	{name: "1 cable", cables: 1}, {name: "2 cables", cables: 2}, {name: "5 cables", cables: 5},
	{name: "10 cables", cables: 10}, {name: "5% of cables", share: 0.05},
	{name: "1 switch", switches: 1}, {name: "2 switches", switches: 2},
}

// fail removes the failure's cables and switches from f, drawn from seed,
// keeping the switches connected.
func fail(t testing.TB, f *fabric.Fabric, fl failure, seed uint64) *fabric.Fabric {
	t.Helper()
	cables := fl.cables + int(fl.share*float64(len(failures.InterSwitch(f))))
	g, err := failures.Draw(f, cables, fl.switches, seed)
	if err != nil {
		t.Fatalf("%s: %v", fl.name, err)
	}
	return g
}

// TestFailuresKeepFourVLs: on Slim Fly q=5 and q=7 (and, without -short,
// q=11) with cables or switches failed (seeded draws, every failure
// level), the default settings with 4 VLs route, and Run's
// verifier finds every LID reachable, no loop and no credit loop, with the
// length bounds of the design (2 to 3 hops). Beyond 5 % of the cables, 4
// VLs may not do: then the error must name a number of VLs, and routing
// with that many must work.
func TestFailuresKeepFourVLs(t *testing.T) {
	// a damaged Slim Fly has no translations: regrowing searches its
	// destinations one by one, up to 35 s a case on q = 11, so q = 11 is
	// routed as constructed (regrow = false) and q = 13 left out
	qs, seeds := []int{5, 7, 11}, 3
	if testing.Short() {
		qs, seeds = qs[:2], 1
	}
	for _, q := range qs {
		intact, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		schemes, n := []string{"hops", "auto"}, seeds
		var regrow *bool // the default
		if q > 7 {
			schemes, n, regrow = []string{"auto"}, 2, new(bool) // auto: the default; hops is what it picks
		}
		for _, fl := range failureLevels {
			for seed := uint64(1); seed <= uint64(n); seed++ {
				t.Run(fmt.Sprintf("q=%d/%s/seed=%d", q, fl.name, seed), func(t *testing.T) {
					f := fail(t, intact, fl, seed)
					within5 := fl.share <= 0.05 && float64(fl.cables) <= 0.05*float64(len(failures.InterSwitch(intact)))
					for _, scheme := range schemes {
						vls := 4
						res, err := Run(f, Config{Layers: 4, Deadlock: scheme, VLs: vls, Seed: 1, LMC: -1, Workers: 2, Regrow: regrow})
						if err != nil && !within5 {
							m := regexp.MustCompile(`allow (\d+) VLs \(--vls (\d+)\)`).FindStringSubmatch(err.Error())
							if m == nil {
								t.Fatalf("%s: an error without a number of VLs that works: %v", scheme, err)
							}
							vls, _ = strconv.Atoi(m[2])
							t.Logf("%s: %v", scheme, err)
							res, err = Run(f, Config{Layers: 4, Deadlock: scheme, VLs: vls, Seed: 1, LMC: -1, Workers: 2, Regrow: regrow})
						}
						if err != nil {
							t.Fatalf("%s with %d VLs: %v", scheme, vls, err)
						}
						a := res.Assignment
						if a.VLs > vls || res.Verify.VLs > vls || !res.Verify.Acyclic() {
							t.Fatalf("%s: %d VLs (verifier %d), acyclic %v", scheme, a.VLs, res.Verify.VLs, res.Verify.Acyclic())
						}
						if m := hcavl.Mismatch(res.Tables, vls); m != "" {
							t.Fatalf("%s: %s", scheme, m)
						}
						if within5 && (res.Routing.Bounds.PerPair || res.Routing.Bounds.Max != 3) {
							t.Errorf("the bounds left the design: %s", res.Routing.Bounds)
						}
						t.Logf("%s: scheme %s, %d VLs, %d SLs, %d routes of more than 3 hops", scheme, a.Scheme, a.VLs, a.SLs, a.LongRoutes)
					}
				})
			}
		}
	}
}

// TestClosFailuresRouteOnFourVLs: the two-level Clos and the three-level
// fat tree of testdata/specs with cables or switches failed (every failure
// level, seeded) route with deadlock = auto on 4 VLs, verified by Run.
func TestClosFailuresRouteOnFourVLs(t *testing.T) {
	seeds := 2
	if testing.Short() {
		seeds = 1
	}
	for _, name := range []string{"clos-2level", "fattree-3level"} {
		fh, err := os.Open(filepath.Join("..", "testdata", "specs", name+".toml"))
		if err != nil {
			t.Fatal(err)
		}
		sp, err := spec.Parse(fh, name)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		intact, err := spec.Build(sp)
		if err != nil {
			t.Fatal(err)
		}
		for _, fl := range failureLevels {
			for seed := uint64(1); seed <= uint64(seeds); seed++ {
				t.Run(fmt.Sprintf("%s/%s/seed=%d", name, fl.name, seed), func(t *testing.T) {
					f := fail(t, intact, fl, seed)
					res, err := Run(f, Config{Layers: 4, Deadlock: "auto", VLs: 4, Seed: 1, LMC: -1, Workers: 2})
					if err != nil {
						t.Fatal(err)
					}
					if res.Assignment.VLs > 4 || !res.Verify.Acyclic() {
						t.Fatalf("%d VLs, acyclic %v", res.Assignment.VLs, res.Verify.Acyclic())
					}
					if m := hcavl.Mismatch(res.Tables, 4); m != "" {
						t.Fatal(m)
					}
				})
			}
		}
	}
}
