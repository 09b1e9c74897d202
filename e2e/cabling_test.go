package e2e

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"slimroute/fabric"
	"slimroute/internal/ibsimtest"
)

// runStatus runs slimroute and returns its output and exit status.
func runStatus(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(slimroute, args...).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

type fault struct {
	kind string
	node string // a node every instruction for it must name
}

// injectFaults breaks a copy of the planned fabric with one fault of each
// kind, on distinct switches chosen by rng, and returns it with the faults.
func injectFaults(t *testing.T, f *fabric.Fabric, rng *rand.Rand) (*fabric.Fabric, []fault) {
	t.Helper()
	links := append([]fabric.Link(nil), f.Links()...)
	sws := f.IDsOf(fabric.Switch)
	busy := map[fabric.NodeID]bool{}
	pick := func() fabric.NodeID {
		for {
			s := sws[rng.IntN(len(sws))]
			if !busy[s] {
				busy[s] = true
				return s
			}
		}
	}
	linkAt := func(n fabric.NodeID, p int) int {
		for i, l := range links {
			if (l.A.Node == n && l.A.Port == p) || (l.B.Node == n && l.B.Port == p) {
				return i
			}
		}
		return -1
	}
	// network ports of a switch whose far switches are free to touch
	netPort := func(s fabric.NodeID, sameRack int) int {
		for tries := 0; tries < 200; tries++ {
			p := 5 + rng.IntN(7) // ports 5..11 carry the 7 network links
			i := linkAt(s, p)
			if i < 0 {
				continue
			}
			far := links[i].A
			if far.Node == s {
				far = links[i].B
			}
			if busy[far.Node] {
				continue
			}
			if sameRack != 0 && (f.Node(far.Node).Place.Rack == f.Node(s).Place.Rack) != (sameRack > 0) {
				continue
			}
			busy[far.Node] = true
			return p
		}
		t.Fatal("no suitable port")
		return 0
	}
	move := func(i int, from, to fabric.PortRef) {
		if links[i].A == from {
			links[i].A = to
		} else {
			links[i].B = to
		}
	}
	var faults []fault
	for _, rack := range []int{1, -1} { // a swap inside a rack, one across racks
		s := pick()
		p := netPort(s, rack)
		q := netPort(s, -rack)
		i, j := linkAt(s, p), linkAt(s, q)
		move(i, fabric.PortRef{Node: s, Port: p}, fabric.PortRef{Node: s, Port: q})
		move(j, fabric.PortRef{Node: s, Port: q}, fabric.PortRef{Node: s, Port: p})
		faults = append(faults, fault{"swap", f.Node(s).Name})
	}
	s := pick() // a missing cable
	i := linkAt(s, netPort(s, 0))
	links = append(links[:i], links[i+1:]...)
	faults = append(faults, fault{"missing", f.Node(s).Name})
	s = pick() // a port shift to a free port
	p := netPort(s, 0)
	move(linkAt(s, p), fabric.PortRef{Node: s, Port: p}, fabric.PortRef{Node: s, Port: 12 + rng.IntN(2)})
	faults = append(faults, fault{"wrong-port", f.Node(s).Name})
	s = pick() // a far end on the wrong switch
	p = netPort(s, 0)
	o := pick()
	move(linkAt(s, p), fabric.PortRef{Node: s, Port: p}, fabric.PortRef{Node: o, Port: 14})
	faults = append(faults, fault{"wrong-switch", f.Node(o).Name})
	a, b := pick(), pick() // an extra cable
	links = append(links, fabric.Link{A: fabric.PortRef{Node: a, Port: 15}, B: fabric.PortRef{Node: b, Port: 15}})
	faults = append(faults, fault{"extra", f.Node(a).Name})
	g, err := fabric.New(f.Nodes(), links)
	if err != nil {
		t.Fatal(err)
	}
	gone := pick() // a missing switch
	faults = append(faults, fault{"missing-switch", f.Node(gone).Name})
	if g, err = g.Without([]fabric.NodeID{gone}, nil); err != nil {
		t.Fatal(err)
	}
	return g, faults
}

// factoryNames gives every switch a vendor's default description and a GUID
// the plan does not know, so only the attached hosts identify them.
func factoryNames(t *testing.T, f *fabric.Fabric) *fabric.Fabric {
	nodes := append([]fabric.Node(nil), f.Nodes()...)
	for i := range nodes {
		if nodes[i].Kind == fabric.Switch {
			nodes[i].Name = fmt.Sprintf("MF0;switch-%03d:SB7800/U1", i)
			nodes[i].GUID = 0 // ibsim numbers them from 0x200000
		}
	}
	g, err := fabric.New(nodes, f.Links())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestCablingVerifyFindsInjectedFaults plans the q=5 Slim Fly, breaks it
// with seeded faults, simulates it, discovers it with ibnetdiscover, and
// requires cabling verify to report exactly the injected faults — and
// nothing for the intact fabric — with node descriptions and, again, with
// factory descriptions where only the hosts identify the switches.
func TestCablingVerifyFindsInjectedFaults(t *testing.T) {
	ibsimtest.Require(t, "ibnetdiscover")
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan")
	run(t, "cabling", "plan", "--slimfly", "5", "-o", plan)
	planned := readFabric(t, filepath.Join(plan, "fabric.json"), fabric.FormatJSON)
	// the plan's switches have 11 ports; give the faults spare ports
	nodes := append([]fabric.Node(nil), planned.Nodes()...)
	for i := range nodes {
		if nodes[i].Kind == fabric.Switch {
			nodes[i].Ports = 16
		}
	}
	wide, err := fabric.New(nodes, planned.Links())
	if err != nil {
		t.Fatal(err)
	}
	discover := func(t *testing.T, f *fabric.Fabric) string {
		net := filepath.Join(t.TempDir(), "faulty.net")
		fh, _ := os.Create(net)
		if err := fabric.WriteIBSimNet(fh, f); err != nil {
			t.Fatal(err)
		}
		fh.Close()
		sim := ibsimtest.Start(t, net)
		out := filepath.Join(t.TempDir(), "found.txt")
		os.WriteFile(out, []byte(sim.Run(t, time.Minute, "ibnetdiscover")), 0o644)
		return out
	}
	t.Run("clean", func(t *testing.T) {
		out, status := runStatus(t, "cabling", "verify", "--plan", plan, "--discovered", discover(t, planned))
		if status != 0 || !strings.Contains(out, "0 findings") {
			t.Fatalf("status %d:\n%s", status, out)
		}
	})
	t.Run("degraded", func(t *testing.T) {
		rated := filepath.Join(dir, "rated")
		run(t, "cabling", "plan", "--slimfly", "5", "--rate", "4xQDR", "-o", rated)
		p := readFabric(t, filepath.Join(rated, "fabric.json"), fabric.FormatJSON)
		links := append([]fabric.Link(nil), p.Links()...)
		sw, _ := p.NodeByName("sw-0-3-3")
		for i, l := range links {
			if (l.A.Node == sw && l.A.Port == 7) || (l.B.Node == sw && l.B.Port == 7) {
				links[i].Speed = fabric.SDR // this cable trains at SDR
			}
		}
		slow, err := fabric.New(p.Nodes(), links)
		if err != nil {
			t.Fatal(err)
		}
		out, status := runStatus(t, "cabling", "verify", "--plan", rated, "--discovered", discover(t, slow))
		if status != 1 || !strings.Contains(out, "[degraded] rack 4, sw-0-3-3 port 7") && !strings.Contains(out, "port 7 runs at 4xSDR") || !strings.Contains(out, "1 findings") {
			t.Fatalf("status %d:\n%s", status, out)
		}
	})
	for seed := uint64(1); seed <= 3; seed++ {
		for _, factory := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed=%d/factory=%v", seed, factory), func(t *testing.T) {
				broken, faults := injectFaults(t, wide, rand.New(rand.NewPCG(seed, 42)))
				if factory {
					broken = factoryNames(t, broken)
				}
				out, status := runStatus(t, "cabling", "verify", "--plan", plan, "--discovered", discover(t, broken))
				if seed == 1 && factory {
					t.Logf("verify says:\n%s", out)
				}
				if status != 1 {
					t.Fatalf("exit status %d, want 1:\n%s", status, out)
				}
				var got, want []string
				lines := strings.Split(strings.TrimSpace(out), "\n")[1:]
				for _, l := range lines {
					got = append(got, strings.TrimPrefix(strings.Fields(l)[0], "[")[0:])
				}
				for _, f := range faults {
					want = append(want, "["+f.kind+"]")
					found := false
					for _, l := range lines {
						if strings.Contains(l, "["+f.kind+"]") && strings.Contains(l, f.node) {
							found = true
						}
					}
					if !found {
						t.Errorf("no %s finding naming %s:\n%s", f.kind, f.node, out)
					}
				}
				for i := range got {
					got[i] = strings.Fields(lines[i])[0]
				}
				sort.Strings(got)
				sort.Strings(want)
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("findings %v, injected %v:\n%s", got, want, out)
				}
			})
		}
	}
}
