package pipeline

import (
	"strings"
	"testing"

	"slimroute/deadlock"
	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/slimfly"
)

func TestParseConfigNamesUnknownKeys(t *testing.T) {
	c, err := ParseConfig(strings.NewReader("layers = 2\ndeadlock = \"dfsssp\"\nvls = 4\n"), "s.toml")
	if err != nil || c.Layers != 2 || c.Deadlock != "dfsssp" || c.VLs != 4 || c.LMC != -1 {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := ParseConfig(strings.NewReader("layres = 2\n"), "s.toml"); err == nil || !strings.Contains(err.Error(), "s.toml: unknown key layres") {
		t.Fatalf("unknown key: %v", err)
	}
}

// On the girth-5 q=5 Slim Fly a failed cable leaves its ends 4 hops apart.
// The hop-indexed scheme gives those routes a fourth hop class (4 VLs) and
// keeps the length bounds of the design; auto keeps the scheme; with only
// 3 VLs neither scheme fits, and the error names the 4 VLs that do.
// Every result is verified by Run.
func TestACableFailureKeepsTheHopIndexedScheme(t *testing.T) {
	f, _ := slimfly.Build(slimfly.Params{Q: 5})
	sw, _ := f.NodeByName("sw-0-0-0")
	li, _ := f.LinkAt(fabric.PortRef{Node: sw, Port: 5})
	broken, err := f.Without(nil, []int{li})
	if err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []string{"hops", "auto"} {
		res, err := Run(broken, Config{Deadlock: scheme, LMC: -1})
		if err != nil {
			t.Fatalf("%s: %v", scheme, err)
		}
		a := res.Assignment
		if a.Scheme != deadlock.SchemeHops || a.VLs != 4 || a.LongRoutes == 0 || res.Routing.Bounds.String() != "2 to 3 hops" {
			t.Fatalf("%s: scheme %s, %d VLs, %d long routes, bounds %s", scheme, a.Scheme, a.VLs, a.LongRoutes, res.Routing.Bounds)
		}
	}
	if _, err := Run(broken, Config{Deadlock: "auto", VLs: 3, LMC: -1}); err == nil || !strings.Contains(err.Error(), "(--vls 4)") {
		t.Fatalf("auto on 3 VLs: %v", err)
	}
	healthy, _ := Run(f, Config{Deadlock: "auto", LMC: -1})
	if healthy.Assignment.Scheme != deadlock.SchemeHops || healthy.Assignment.VLs != 3 {
		t.Fatalf("auto on the healthy fabric chose %s with %d VLs", healthy.Assignment.Scheme, healthy.Assignment.VLs)
	}
}

// Layer k is programmed at LID offset k: Run must refuse every LMC that
// gives an HCA port fewer LIDs than layers, whether the LMC is asked for or
// comes with the fabric's LIDs (OpenSM's lmc, in the plugin), and accept
// the largest layer count that fits.
func TestRunRefusesAnLMCThatCannotHoldTheLayers(t *testing.T) {
	f, err := slimfly.Build(slimfly.Params{Q: 3})
	if err != nil {
		t.Fatal(err)
	}
	for lmc := 0; lmc <= 7; lmc++ {
		// the fabric as OpenSM reports it after assigning LIDs at lmc
		planned, err := Run(f, Config{Layers: 1, LMC: lmc})
		if err != nil {
			t.Fatal(err)
		}
		discovered, err := lft.RecordLIDs(f, planned.LIDs.Ports())
		if err != nil {
			t.Fatal(err)
		}
		for L := 1; L <= 128; L *= 2 {
			fits := 1<<lmc >= L
			if fits && L != 1<<lmc {
				continue // routing is the slow part; the largest L that fits is the edge
			}
			for _, c := range []Config{{Layers: L, LMC: lmc}, {Layers: L, LMC: 0, LIDsFromFabric: true}} {
				g := f
				if c.LIDsFromFabric {
					g = discovered
				}
				_, err := Run(g, c)
				if fits != (err == nil) || (err != nil && !strings.Contains(err.Error(), "needs LMC")) {
					t.Errorf("lmc %d, %d layers, LIDs from the fabric %v: error %v", lmc, L, c.LIDsFromFabric, err)
				}
			}
		}
	}
}
