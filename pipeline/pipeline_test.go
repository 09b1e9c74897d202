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
