package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"slimroute/internal/ibsimtest"
)

// TestCheckLiveSeesWhatTheSwitchesHold routes q=5 with the plugin inside
// OpenSM on ibsim, then checks the fabric from OpenSM's dumps and live
// from the switches (ibnetdiscover, ibroute, smpquery): no problem either
// way. Then, with that OpenSM stopped, another OpenSM programs the same
// LFTs (file engine) with every SL on VL 0 (QoS, qos_sl2vl all 0) — the
// SL2VL tables changed behind the first one's back. Its dumps still say
// all is well; the live check reads the switches and finds the credit
// loop the plugin's SLs now run into.
func TestCheckLiveSeesWhatTheSwitchesHold(t *testing.T) {
	ibsimtest.Require(t, "opensm", "ibnetdiscover", "ibroute", "smpquery")
	plugin := buildPlugin(t)
	rt := routeCase(t, caseQ5, "auto")
	sim, sm := startWithPlugin(t, plugin, rt, "layers = 4\ndeadlock = \"auto\"\nseed = 1\n")
	waitForFile(t, filepath.Join(sm.Dir, "slimroute-path-sl.txt"))
	live := []string{"check", "--live", "--dumps", sm.Dir, "--vls", "8"}
	if out, status := checkIn(t, sim, live...); status != 0 || !strings.Contains(out, "slimroute check: OK") || !strings.Contains(out, "smpquery sl2vl") {
		t.Fatalf("check --live on the plugin's fabric: exit %d\n%s", status, out)
	}
	sm.Stop()
	g2l, err := os.ReadFile(filepath.Join(rt.dir, "guid2lid"))
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "opensm.conf")
	if err := os.WriteFile(conf, []byte("qos TRUE\nqos_sl2vl 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sim.OpenSMWithLIDs(t, 5*time.Minute, g2l, "-F", conf, "-l", "2", "-R", "file", "-U", filepath.Join(sm.Dir, "opensm-lfts.dump"))
	if out, status := runStatus(t, "check", "--dumps", sm.Dir, "--vls", "8"); status != 0 {
		t.Fatalf("check on the first OpenSM's dumps: exit %d (they predate the change)\n%s", status, out)
	}
	if out, status := checkIn(t, sim, live...); status != 1 || !strings.Contains(out, "CREDIT LOOP") {
		t.Fatalf("check --live after the SL2VL tables changed: exit %d, want 1 with a credit loop\n%s", status, out)
	}
}

// checkIn runs slimroute with args in the simulator's environment (the
// tools it starts reach ibsim) and returns its output and exit status.
func checkIn(t *testing.T, sim *ibsimtest.Sim, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return statusOf(t, sim.Command(ctx, slimroute, args...))
}

// waitForFile waits up to a minute for path to appear.
func waitForFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after a minute", path)
		}
	}
}
