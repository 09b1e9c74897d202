package e2e

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/disguise"
	"slimroute/internal/ibsimtest"
)

// TestPluginRoutesThePlanAheadOfTime runs OpenSM with the plugin whose
// settings name a plan: the q=5 Slim Fly as planned before the hardware's
// GUIDs were known — other GUIDs, names and port numbers, in another
// order. The plugin routes the plan while OpenSM discovers the simulated
// fabric, says so in OpenSM's log, takes the layers from the plan in the
// sweep, and the switches hold exactly the tables `slimroute route`
// computes for the fabric.
func TestPluginRoutesThePlanAheadOfTime(t *testing.T) {
	ibsimtest.Require(t, "opensm", "ibroute")
	plugin := buildPlugin(t)
	rt := routeCase(t, caseQ5, "auto")
	planned, err := disguise.Fabric(rt.f, rand.New(rand.NewPCG(27, 5)))
	if err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(t.TempDir(), "plan.json")
	fh, err := os.Create(plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := fabric.WriteJSON(fh, planned); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	sim, sm := startWithPlugin(t, plugin, rt, "layers = 4\ndeadlock = \"auto\"\nseed = 1\nplan = \""+plan+"\"\n")
	log := sm.Log()
	for _, want := range []string{"slimroute: the plan " + plan + " routed ahead of the first sweep", "layers from the plan " + plan, "slimroute tables configured on all switches"} {
		if !strings.Contains(log, want) {
			t.Fatalf("OpenSM's log lacks %q:\n%s", want, log)
		}
	}
	checkIBRoute(t, sim, rt)
}

// TestPluginRoutesTheSubnetAsDiscovered runs OpenSM with the plugin and
// no plan on the q=5 Slim Fly: at the end of its first heavy sweep the
// plugin routes the subnet as discovered while OpenSM assigns LIDs, says
// so in OpenSM's log, the sweep takes those layers, and the switches hold
// exactly the tables `slimroute route` computes for the fabric.
func TestPluginRoutesTheSubnetAsDiscovered(t *testing.T) {
	ibsimtest.Require(t, "opensm", "ibroute")
	plugin := buildPlugin(t)
	rt := routeCase(t, caseQ5, "auto")
	sim, sm := startWithPlugin(t, plugin, rt, "layers = 4\ndeadlock = \"auto\"\nseed = 1\n")
	log := sm.Log()
	for _, want := range []string{"slimroute: the subnet as discovered routed while OpenSM assigns LIDs", "layers routed at discovery, while OpenSM assigned LIDs", "slimroute tables configured on all switches"} {
		if !strings.Contains(log, want) {
			t.Fatalf("OpenSM's log lacks %q:\n%s", want, log)
		}
	}
	checkIBRoute(t, sim, rt)
}
