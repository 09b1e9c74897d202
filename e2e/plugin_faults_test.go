package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"slimroute/internal/ibsimtest"
)

// TestPluginPanicsDoNotTakeOpenSMDown makes each function the plugin
// exports to OpenSM panic on purpose (SLIMROUTE_PLUGIN_FAULT) inside
// OpenSM on ibsim (q=3 Slim Fly, LMC 2, QoS on) and requires OpenSM to go
// on: the panic is an error line of its log with the Go stack, a failed
// computation or table leaves the routing to the next engine (minhop),
// a failed plan or routing at discovery leaves the sweep to route in
// full, and a failed path SL or SL2VL answer is logged (once with its
// stack, not per call) while the SA still answers path records.
func TestPluginPanicsDoNotTakeOpenSMDown(t *testing.T) {
	ibsimtest.Require(t, "opensm", "saquery")
	plugin := buildPlugin(t)
	for _, c := range []struct {
		fault string
		want  []string
	}{
		{"ahead", []string{"internal error routing the subnet as discovered", "slimroute tables configured on all switches"}},
		{"compute", []string{"internal error computing the routing", "falls back to the next engine", "minhop tables configured on all switches"}},
		{"lft", []string{"internal error copying a switch's LFT", "minhop tables configured on all switches"}},
		{"prepare", []string{"internal error routing the plan", "slimroute tables configured on all switches"}},
		{"pathsl", []string{"internal error answering a path record's SL", "slimroute tables configured on all switches"}},
		{"sl2vl", []string{"internal error answering an SL2VL entry", "slimroute tables configured on all switches"}},
	} {
		t.Run(c.fault, func(t *testing.T) {
			dir := t.TempDir()
			net := filepath.Join(dir, "sf.net")
			run(t, "topo", "slimfly", "--q", "3", "-o", net)
			sim := ibsimtest.Start(t, net)
			settings := "plan = \"" + net + "\"\n"
			if c.fault == "ahead" { // (a plan is routed instead of the subnet as discovered)
				settings = ""
			}
			opts := pluginOptions(t, sim, plugin, settings)
			opts.Env = append(opts.Env, "SLIMROUTE_PLUGIN_FAULT="+c.fault)
			sm := sim.StartOpenSM(t, opts)
			if c.fault == "pathsl" {
				sim.Run(t, time.Minute, "saquery", "PR", "--slid", "1", "--dlid", "2")
			}
			log := sm.Log()
			for _, want := range append(c.want, "a fault injected by SLIMROUTE_PLUGIN_FAULT="+c.fault, "please report it with this stack", "goroutine ") {
				if !strings.Contains(log, want) {
					t.Errorf("OpenSM's log lacks %q", want)
				}
			}
			if n := strings.Count(log, "please report it with this stack"); n != 1 {
				t.Errorf("the stack is logged %d times, want once", n)
			}
			if !sm.Running() {
				t.Errorf("OpenSM exited")
			}
			if t.Failed() {
				t.Logf("OpenSM's log:\n%s", log)
			}
		})
	}
}

// TestPluginOverItsMemoryBudgetFallsBack gives the plugin a memory budget
// (memory_limit) below what the routing needs, inside OpenSM on ibsim: a
// Go program out of memory would take OpenSM down, so the plugin refuses
// the subnet before routing it — an error line that says what it needs
// and the memory_limit that allows it — and OpenSM routes with the next
// engine; with that memory_limit the plugin routes it.
func TestPluginOverItsMemoryBudgetFallsBack(t *testing.T) {
	ibsimtest.Require(t, "opensm")
	plugin := buildPlugin(t)
	dir := t.TempDir()
	net := filepath.Join(dir, "sf.net")
	run(t, "topo", "slimfly", "--q", "3", "-o", net)
	advice := regexp.MustCompile(`raise memory_limit \((memory_limit = "\d+MiB")\)`)
	limit := `memory_limit = "1MiB"`
	for _, want := range []string{"minhop tables configured on all switches", "slimroute tables configured on all switches"} {
		sim := ibsimtest.Start(t, net)
		sm := sim.StartOpenSM(t, pluginOptions(t, sim, plugin, limit+"\n"))
		log := sm.Log()
		if !strings.Contains(log, want) || !sm.Running() {
			t.Fatalf("%s: OpenSM's log lacks %q (running: %v):\n%s", limit, want, sm.Running(), log)
		}
		m := advice.FindStringSubmatch(log)
		if want == "minhop tables configured on all switches" {
			if m == nil || !strings.Contains(log, "over the plugin's memory budget of 1 MiB") {
				t.Fatalf("%s: no refusal with advice in OpenSM's log:\n%s", limit, log)
			}
			limit = m[1] // follow the advice
		} else if m != nil {
			t.Errorf("%s: refused again", limit)
		}
	}
}
