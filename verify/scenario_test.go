package verify_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/verify"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/*.txt")

// TestScenarios runs the scenarios in testdata: each file holds a fabric
// (ibsim net), forwarding tables (OpenSM LFT dump) and optionally path SLs
// and SL2VL tables, in sections "-- name --", and the verdict the verifier
// must reach under "-- want --". The harness prints the verdict with its
// own cross-checks of a cycle (every hop a cabled switch port, each hop's
// cable leading to the next hop's switch), so a diff shows what changed.
// go test ./verify -run Scenarios -update rewrites the want sections;
// review the diff.
func TestScenarios(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no scenarios in testdata")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections, order := splitSections(string(data))
			got := runScenario(t, file, sections)
			if *update {
				sections["want"] = got
				os.WriteFile(file, []byte(joinSections(sections, order)), 0o644)
				return
			}
			if got != sections["want"] {
				t.Errorf("%s:\ngot:\n%s\nwant:\n%s", file, got, sections["want"])
			}
		})
	}
}

// runScenario reads the tables of a scenario, verifies them and describes
// the verdict.
func runScenario(t *testing.T, file string, s map[string]string) string {
	t.Helper()
	f, err := fabric.ReadIBSimNet(strings.NewReader(s["fabric"]), file+" fabric")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := lft.ReadOpenSMLFTs(strings.NewReader(s["lfts"]), file+" lfts", f)
	if err != nil {
		t.Fatal(err)
	}
	if text, ok := s["path-sl"]; ok {
		if tab, err = lft.ReadPathSL(strings.NewReader(text), file+" path-sl", tab); err != nil {
			t.Fatal(err)
		}
	}
	if text, ok := s["sl2vl"]; ok {
		if tab, err = lft.ReadSL2VL(strings.NewReader(text), file+" sl2vl", tab); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := verify.Check(tab, 2)
	var b strings.Builder
	fmt.Fprintf(&b, "sources %d, DLIDs %d, walks %d\n", rep.Sources, rep.DLIDs, rep.Walks)
	switch {
	case err != nil:
		for _, p := range strings.Split(strings.TrimPrefix(err.Error(), "the forwarding tables are broken: "), "; ") {
			fmt.Fprintf(&b, "broken: %s\n", p)
		}
	case rep.Acyclic():
		fmt.Fprintf(&b, "verified: %d channels, %d dependencies, %d VLs\n", rep.Channels, rep.Dependencies, rep.VLs)
	default:
		fmt.Fprintf(&b, "credit loop: %s\n", rep.CycleString())
		fmt.Fprintf(&b, "cross-check: %s\n", checkCycle(f, rep.Cycle))
	}
	return b.String()
}

// checkCycle confirms, from the fabric alone, that a reported cycle is a
// closed chain of inter-switch channels.
func checkCycle(f *fabric.Fabric, cycle []verify.CycleHop) string {
	for i, h := range cycle {
		sw, ok := f.NodeByName(h.Switch)
		if !ok {
			return fmt.Sprintf("hop %d: no switch %q", i, h.Switch)
		}
		peer, ok := f.Peer(fabric.PortRef{Node: sw, Port: h.Port})
		if !ok {
			return fmt.Sprintf("hop %d: %s port %d has no cable", i, h.Switch, h.Port)
		}
		if next := cycle[(i+1)%len(cycle)]; f.Node(peer.Node).Name != next.Switch {
			return fmt.Sprintf("hop %d: %s port %d leads to %s, not %s", i, h.Switch, h.Port, f.Node(peer.Node).Name, next.Switch)
		}
	}
	return fmt.Sprintf("the %d channels are cabled switch ports, each leading to the next one's switch", len(cycle))
}

// splitSections splits "-- name --" sections; text before the first is the
// "comment" section. It returns the sections and their order.
func splitSections(text string) (map[string]string, []string) {
	sections := map[string]string{}
	order := []string{"comment"}
	name := "comment"
	var cur strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") {
			sections[name] = cur.String()
			name = strings.TrimSuffix(strings.TrimPrefix(trimmed, "-- "), " --")
			order = append(order, name)
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	sections[name] = cur.String()
	return sections, order
}

func joinSections(sections map[string]string, order []string) string {
	var b strings.Builder
	for _, name := range order {
		if name != "comment" {
			fmt.Fprintf(&b, "-- %s --\n", name)
		}
		b.WriteString(sections[name])
	}
	return b.String()
}
