package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"slimroute/fabric"
	"slimroute/internal/ibsimtest"
)

// cabling lists a fabric's links as "name[port] name[port]" lines, ends
// ordered by name, so fabrics with different node orders and GUID-based
// ids compare by node description.
func cabling(f *fabric.Fabric) []string {
	var out []string
	for _, l := range f.Links() {
		a := fmt.Sprintf("%s[%d]", f.Node(l.A.Node).Name, l.A.Port)
		b := fmt.Sprintf("%s[%d]", f.Node(l.B.Node).Name, l.B.Port)
		if b < a {
			a, b = b, a
		}
		out = append(out, a+" "+b)
	}
	sort.Strings(out)
	return out
}

func readFabric(t *testing.T, path string, format fabric.Format) *fabric.Fabric {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, err := fabric.Read(fh, path, format)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDiscoveredFabricMatchesWhatSlimrouteWrote writes a topology with the
// CLI, simulates it in ibsim, discovers it with ibnetdiscover, and checks
// that our reader finds exactly the written cables (matched by node
// description) and GUIDs.
func TestDiscoveredFabricMatchesWhatSlimrouteWrote(t *testing.T) {
	ibsimtest.Require(t, "ibnetdiscover")
	cases := map[string][]string{
		"slimfly-q5":         {"topo", "slimfly", "--q", "5"},
		"slimfly-q7":         {"topo", "slimfly", "--q", "7", "--radix", "36"},
		"clos-2level":        {"topo", "clos", "--radix", "16"},
		"clos-2level-paired": {"topo", "clos", "--radix", "16", "--spines", "4"},
	}
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		args := cases[name]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			net := filepath.Join(dir, name+".net")
			run(t, append(args, "--format", "ibsim", "-o", net)...)
			planned := readFabric(t, net, fabric.FormatIBSim)

			sim := ibsimtest.Start(t, net, ibsimtest.LimitsFor(planned)...)
			dump := filepath.Join(dir, "ibnetdiscover.out")
			out := sim.Run(t, 5*time.Minute, "ibnetdiscover")
			if err := os.WriteFile(dump, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			found := readFabric(t, dump, fabric.FormatIBNetDiscover)

			want, got := cabling(planned), cabling(found)
			if strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Fatalf("discovered cabling differs: planned %d links, discovered %d\n%s", len(want), len(got), firstDiff(want, got))
			}
			for _, n := range planned.Nodes() {
				id, ok := found.NodeByName(n.Name)
				if !ok {
					t.Fatalf("%s not discovered", n.Name)
				}
				if g := found.Node(id).GUID; g != n.GUID {
					t.Errorf("%s: discovered GUID %s, planned %s", n.Name, g, n.GUID)
				}
			}
			// the planned stats are what the discovered fabric shows
			ps, fs := fabric.ComputeStats(planned), fabric.ComputeStats(found)
			if ps != fs {
				t.Errorf("stats differ:\nplanned    %+v\ndiscovered %+v", ps, fs)
			}
		})
	}
}

func firstDiff(want, got []string) string {
	w := map[string]bool{}
	for _, s := range want {
		w[s] = true
	}
	g := map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	var b strings.Builder
	n := 0
	for _, s := range want {
		if !g[s] && n < 10 {
			fmt.Fprintf(&b, "  missing    %s\n", s)
			n++
		}
	}
	for _, s := range got {
		if !w[s] && n < 20 {
			fmt.Fprintf(&b, "  unexpected %s\n", s)
			n++
		}
	}
	return b.String()
}

// TestExpectedTopologyIsWhatIBNetDiscoverReports writes the "expected"
// ibnetdiscover file for the q=5 Slim Fly and compares it with a real
// ibnetdiscover run on the simulated fabric: same cables, same GUIDs.
func TestExpectedTopologyIsWhatIBNetDiscoverReports(t *testing.T) {
	ibsimtest.Require(t, "ibnetdiscover")
	dir := t.TempDir()
	net, expected := filepath.Join(dir, "sf5.net"), filepath.Join(dir, "sf5.expected")
	run(t, "topo", "slimfly", "--q", "5", "--format", "ibsim", "-o", net)
	run(t, "topo", "slimfly", "--q", "5", "--format", "ibnetdiscover", "-o", expected)
	sim := ibsimtest.Start(t, net)
	dump := filepath.Join(dir, "found")
	os.WriteFile(dump, []byte(sim.Run(t, 2*time.Minute, "ibnetdiscover")), 0o644)
	a, b := readFabric(t, expected, fabric.FormatIBNetDiscover), readFabric(t, dump, fabric.FormatIBNetDiscover)
	if strings.Join(cabling(a), "\n") != strings.Join(cabling(b), "\n") {
		t.Fatalf("expected topology differs from the discovered one:\n%s", firstDiff(cabling(a), cabling(b)))
	}
}
