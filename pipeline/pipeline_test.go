package pipeline

import (
	"strings"
	"testing"

	"slimroute/deadlock"
	"slimroute/fabric"
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

// On the girth-5 q=5 Slim Fly a failed cable leaves its ends 4 hops apart:
// the hop-indexed scheme must refuse, and auto must fall back to DFSSSP,
// still verified.
func TestAutoFallsBackToDFSSSPAfterACableFails(t *testing.T) {
	f, _ := slimfly.Build(slimfly.Params{Q: 5})
	sw, _ := f.NodeByName("sw-0-0-0")
	li, _ := f.LinkAt(fabric.PortRef{Node: sw, Port: 5})
	broken, err := f.Without(nil, []int{li})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(broken, Config{Deadlock: "hops", LMC: -1}); err == nil || !strings.Contains(err.Error(), "at most 3 switch-to-switch hops") {
		t.Fatalf("hops on the broken fabric: %v", err)
	}
	res, err := Run(broken, Config{Deadlock: "auto", LMC: -1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Assignment.Scheme != deadlock.SchemeDFSSSP || !res.Verify.Acyclic() {
		t.Fatalf("auto chose %s, acyclic %v", res.Assignment.Scheme, res.Verify.Acyclic())
	}
	healthy, _ := Run(f, Config{Deadlock: "auto", LMC: -1})
	if healthy.Assignment.Scheme != deadlock.SchemeHops {
		t.Fatalf("auto on the healthy fabric chose %s", healthy.Assignment.Scheme)
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
		nodes := append([]fabric.Node(nil), f.Nodes()...)
		for _, p := range planned.LIDs.Ports {
			n := &nodes[p.Port.Node]
			attrs := map[int]fabric.PortAttr{}
			for k, v := range n.Attrs {
				attrs[k] = v
			}
			a := attrs[p.Port.Port]
			a.LID, a.LMC = uint16(p.Base), p.LMC
			attrs[p.Port.Port] = a
			n.Attrs = attrs
		}
		discovered, err := fabric.New(nodes, f.Links())
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
