package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"slimroute/internal/ibsimtest"
	"slimroute/internal/procstat"
)

var adviceVLs = regexp.MustCompile(`allow (\d+) VLs \(vls = (\d+)\)`)

// TestPluginWithTooFewVLsFallsBackBounded runs OpenSM with the slimroute
// plugin on the simulated q=5 Slim Fly with `vls = 1` in slimroute.toml,
// for each scheme. One VL cannot make 4 layers deadlock-free: the sweep
// fails at once, OpenSM's log says how many VLs would do in the settings
// file's own terms, OpenSM's default engine (minhop) routes the fabric, and
// OpenSM's peak RSS stays under 512 MiB (before the fix, DFSSSP on one VL
// grew without bound inside OpenSM). Then the advice is followed: with
// that many VLs the plugin programs the fabric.
func TestPluginWithTooFewVLsFallsBackBounded(t *testing.T) {
	ibsimtest.Require(t, "opensm")
	plugin := buildPlugin(t)
	dir := t.TempDir()
	net := filepath.Join(dir, "sf5.net")
	run(t, "topo", "slimfly", "--q", "5", "-o", net)
	startSM := func(t *testing.T, settings string) *ibsimtest.SM {
		sim := ibsimtest.Start(t, net)
		return sim.StartOpenSM(t, pluginOptions(t, sim, plugin, settings))
	}
	for _, scheme := range []string{"auto", "dfsssp", "hops"} {
		t.Run(scheme, func(t *testing.T) {
			sm := startSM(t, fmt.Sprintf("layers = 4\ndeadlock = %q\nvls = 1\n", scheme))
			log := sm.Log()
			why := grepLines(log, "falls back to the next engine")
			if why == "" || !strings.Contains(log, "minhop tables configured on all switches") || strings.Contains(log, "slimroute tables configured") {
				t.Fatalf("want the plugin to fail and minhop to route; OpenSM's log:\n%s", grepLines(log, "tables"))
			}
			rss := procstat.PeakRSSMBOf(sm.PID())
			if rss == 0 || rss > 512 {
				t.Errorf("OpenSM's peak RSS %.0f MiB, more than 512 MiB", rss)
			}
			m := adviceVLs.FindStringSubmatch(why)
			if m == nil || m[1] != m[2] || strings.Contains(why, "--") {
				t.Fatalf("the log does not advise VLs as settings (vls = N):\n%s", why)
			}
			t.Logf("deadlock = %q, vls = 1: fell back to minhop, peak RSS %.0f MiB; advised %s", scheme, rss, m[0])
			if log := startSM(t, fmt.Sprintf("layers = 4\ndeadlock = %q\nvls = %s\n", scheme, m[1])).Log(); !strings.Contains(log, "slimroute tables configured on all switches") {
				t.Errorf("with vls = %s the plugin still fails:\n%s", m[1], grepLines(log, "slimroute"))
			}
		})
	}
}

// grepLines returns the lines of s that contain word.
func grepLines(s, word string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, word) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
