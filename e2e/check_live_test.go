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
// way, and the SA's path records (a sample of 40) hand out the SLs judged.
// Then, with that OpenSM stopped, another OpenSM programs the same LFTs
// (file engine) with every SL on VL 0 (QoS, qos_sl2vl all 0) — the SL2VL
// tables changed behind the first one's back. Its dumps still say all is
// well; the live check reads the switches and finds the credit loop the
// plugin's SLs now run into, and that the SA no longer hands them out.
func TestCheckLiveSeesWhatTheSwitchesHold(t *testing.T) {
	ibsimtest.Require(t, "opensm", "ibnetdiscover", "ibroute", "smpquery")
	plugin := buildPlugin(t)
	rt := routeCase(t, caseQ5, "auto")
	sim, sm := startWithPlugin(t, plugin, rt, "layers = 4\ndeadlock = \"auto\"\nseed = 1\n")
	waitForFile(t, filepath.Join(sm.Dir, "slimroute-path-sl.txt"))
	live := []string{"check", "--live", "--dumps", sm.Dir, "--vls", "8"}
	if out, status := checkIn(t, sim, live...); status != 0 || !strings.Contains(out, "slimroute check: OK") || !strings.Contains(out, "smpquery sl2vl") || !strings.Contains(out, "40 of 40 path records sampled") {
		t.Fatalf("check --live on the plugin's fabric: exit %d\n%s", status, out)
	}
	sm.Stop()
	g2l, err := os.ReadFile(filepath.Join(rt.dir, "guid2lid"))
	if err != nil {
		t.Fatal(err)
	}
	other := sim.StartOpenSM(t, ibsimtest.SMOptions{
		Config:   "qos TRUE\nqos_sl2vl 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\nlmc 2\nrouting_engine file\nforce_log_flush TRUE\n",
		GUID2LID: g2l,
		Args:     []string{"-U", filepath.Join(sm.Dir, "opensm-lfts.dump")},
	})
	if log := other.Log(); !strings.Contains(log, "file tables configured on all switches") {
		t.Fatalf("the other OpenSM did not load the tables:\n%s", log)
	}
	if out, status := runStatus(t, "check", "--dumps", sm.Dir, "--vls", "8"); status != 0 {
		t.Fatalf("check on the first OpenSM's dumps: exit %d (they predate the change)\n%s", status, out)
	}
	// the new OpenSM's SA answers SL 0 too (its file engine has no SLs)
	if out, status := checkIn(t, sim, live...); status != 1 || !strings.Contains(out, "CREDIT LOOP") || !strings.Contains(out, "path SLs: the SA hands out other SLs") {
		t.Fatalf("check --live after the SL2VL tables changed: exit %d, want 1 with a credit loop and other SLs from the SA\n%s", status, out)
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
