package e2e

import (
	"fmt"
	"os"
	"path/filepath"
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
// a failed plan leaves the sweep to route in full, and a failed path SL
// or SL2VL answer is logged (once with its stack, not per call) while the
// SA still answers path records.
func TestPluginPanicsDoNotTakeOpenSMDown(t *testing.T) {
	ibsimtest.Require(t, "opensm", "saquery")
	plugin := buildPlugin(t)
	for _, c := range []struct {
		fault string
		want  []string
	}{
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
			settings := filepath.Join(dir, "slimroute.toml")
			if err := os.WriteFile(settings, []byte("plan = \""+net+"\"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sm := sim.StartOpenSM(t, ibsimtest.SMOptions{
				Config: fmt.Sprintf("event_plugin_name slimroute\nevent_plugin_options %s\nrouting_engine slimroute\nlmc 2\nqos TRUE\nforce_log_flush TRUE\n", settings),
				Env:    []string{"LD_LIBRARY_PATH=" + plugin, "SLIMROUTE_PLUGIN_FAULT=" + c.fault},
			})
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
