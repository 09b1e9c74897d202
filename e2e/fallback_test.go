package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"slimroute/fabric"
	"slimroute/internal/ibsimtest"
	"slimroute/lft"
	"slimroute/slimfly"
	"slimroute/verify"
)

// TestFallbackEngineIsDeadlockFree judges the engine docs/opensm-plugin.md
// names as the plugin's fallback. While a fallback engine is in charge the
// SA answers its SLs, not slimroute's: for updn and minhop that is SL 0
// everywhere, on VL 0. On q=7 with a cable failed, OpenSM's updn tables
// must have no credit loop on one VL (so the fallback is safe), while
// minhop's do (why minhop is not the documented fallback) — both judged by
// our verifier from OpenSM's own dump.
func TestFallbackEngineIsDeadlockFree(t *testing.T) {
	ibsimtest.Require(t, "opensm")
	intact, err := slimfly.Build(slimfly.Params{Q: 7})
	if err != nil {
		t.Fatal(err)
	}
	sw, _ := intact.NodeByName("sw-0-0-0")
	li, _ := intact.LinkAt(fabric.PortRef{Node: sw, Port: 5})
	f, err := intact.Without(nil, []int{li})
	if err != nil {
		t.Fatal(err)
	}
	sim := ibsimtest.StartFabric(t, f)
	// up*/down* needs a root; any switch will do on a Slim Fly
	roots := filepath.Join(sim.Dir, "root-guids")
	root, _ := f.NodeByName("sw-0-0-1")
	if err := os.WriteFile(roots, []byte(f.Node(root).GUID.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		engine  string
		acyclic bool
	}{{"updn", true}, {"minhop", false}} {
		dir := sim.OpenSM(t, 5*time.Minute, "-R", c.engine, "-a", roots)
		logb, _ := os.ReadFile(filepath.Join(dir, "opensm.log"))
		if !strings.Contains(string(logb), c.engine+" tables configured on all switches") {
			t.Fatalf("OpenSM did not route with %s (it falls back to minhop silently):\n%s", c.engine, logb)
		}
		fh, err := os.Open(filepath.Join(dir, "opensm-lfts.dump"))
		if err != nil {
			t.Fatal(err)
		}
		tab, err := lft.ReadOpenSMLFTs(fh, "opensm-lfts.dump", f)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		rep, err := verify.Check(tab, 2)
		if err != nil {
			t.Fatalf("%s: %v", c.engine, err)
		}
		if rep.Acyclic() != c.acyclic {
			t.Errorf("%s on one VL: acyclic %v, want %v (cycle %s)", c.engine, rep.Acyclic(), c.acyclic, rep.CycleString())
		}
		t.Logf("%s: %d paths, acyclic %v %s", c.engine, rep.Walks, rep.Acyclic(), rep.CycleString())
		// slimroute check gives the same verdict from OpenSM's dump directory
		out, status := runStatus(t, "check", "--dumps", dir)
		if want := map[bool]int{true: 0, false: 1}[c.acyclic]; status != want || strings.Contains(out, "CREDIT LOOP") == c.acyclic {
			t.Errorf("check on %s's dumps: exit %d, want %d\n%s", c.engine, status, want, out)
		}
	}
}
