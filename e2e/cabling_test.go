package e2e

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	verify "slimroute/cabling"
	"slimroute/fabric"
	"slimroute/internal/ibsimtest"
)

// runStatus runs slimroute and returns its output and exit status.
func runStatus(t *testing.T, args ...string) (string, int) {
	t.Helper()
	return statusOf(t, exec.Command(slimroute, args...))
}

// statusOf runs cmd and returns its standard output and exit status.
func statusOf(t *testing.T, cmd *exec.Cmd) (string, int) {
	t.Helper()
	out, err := cmd.Output()
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
// requires cabling verify to exit 1 with one finding of the right kind per
// fault, naming the fault's switch, whose actions (--json), replayed on the
// broken cabling, give the plan — and exit 0 for the intact fabric; with
// node descriptions and, again, with factory descriptions where only the
// hosts identify the switches. A cable that trains slower than planned is
// one exact finding.
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
		sim := ibsimtest.Start(t, writeNet(t, t.TempDir(), f))
		out := filepath.Join(t.TempDir(), "found.txt")
		os.WriteFile(out, []byte(sim.Run(t, time.Minute, "ibnetdiscover")), 0o644)
		return out
	}
	t.Run("clean", func(t *testing.T) {
		out, status := runStatus(t, "cabling", "verify", "--plan", plan, "--discovered", discover(t, planned))
		if status != 0 || !strings.HasPrefix(out, fmt.Sprintf("%[1]d of %[1]d planned cables as planned; 0 findings\n", len(planned.Links()))) {
			t.Fatalf("status %d:\n%s", status, out)
		}
	})
	t.Run("degraded", func(t *testing.T) {
		rated := filepath.Join(dir, "rated")
		run(t, "cabling", "plan", "--slimfly", "5", "--rate", "4xQDR", "-o", rated)
		p := readFabric(t, filepath.Join(rated, "fabric.json"), fabric.FormatJSON)
		links := append([]fabric.Link(nil), p.Links()...)
		sw, _ := p.NodeByName("sw-0-3-3")
		far, _ := p.Peer(fabric.PortRef{Node: sw, Port: 7})
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
		want := fmt.Sprintf("%d of %d planned cables as planned; 1 finding\n", len(links)-1, len(links))
		// the planned cable, as cables.csv lists it and its label prints it
		var label string
		for _, row := range readCSVRows(t, filepath.Join(rated, "cables.csv")) {
			if (row[3] == "sw-0-3-3" && row[4] == "7") || (row[7] == "sw-0-3-3" && row[8] == "7") {
				ra, _ := strconv.Atoi(row[1])
				rb, _ := strconv.Atoi(row[5])
				label = fmt.Sprintf("%s (R%02d U%s %s P%s ↔ R%02d U%s %s P%s, %s %s m)", row[0], ra, row[2], row[3], row[4], rb, row[6], row[7], row[8], row[10], row[11])
			}
		}
		line := fmt.Sprintf("\n  [degraded] rack %d, sw-0-3-3 port 7: the cable to %s port %d runs at 4xSDR, planned 4xQDR; reseat or replace it [planned cable: %s]\n",
			p.Node(sw).Place.Rack, p.Node(far.Node).Name, far.Port, label)
		if status != 1 || !strings.HasPrefix(out, want) || !strings.HasSuffix(out, line) {
			t.Fatalf("status %d, want 1, %q and %q:\n%s", status, want, line, out)
		}
	})
	// the kinds of finding each injected fault must show up as
	kindOf := map[string]string{"swap": verify.Exchange, "missing": verify.Missing, "wrong-port": verify.Move,
		"wrong-switch": verify.Move, "extra": verify.Extra, "missing-switch": verify.MissingSwitch}
	for seed := uint64(1); seed <= 3; seed++ {
		for _, factory := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed=%d/factory=%v", seed, factory), func(t *testing.T) {
				broken, faults := injectFaults(t, wide, rand.New(rand.NewPCG(seed, 42)))
				seen := broken
				if factory {
					seen = factoryNames(t, broken)
				}
				found := discover(t, seen)
				out, status := runStatus(t, "cabling", "verify", "--plan", plan, "--discovered", found)
				if seed == 1 && factory {
					t.Logf("verify says:\n%s", out)
				}
				if status != 1 {
					t.Fatalf("exit status %d, want 1:\n%s", status, out)
				}
				js, status := runStatus(t, "cabling", "verify", "--json", "--plan", plan, "--discovered", found)
				var r verify.Report
				if err := json.Unmarshal([]byte(js), &r); err != nil || status != 1 {
					t.Fatalf("--json: status %d, %v:\n%s", status, err, js)
				}
				// the text and the JSON tell the same story
				head := fmt.Sprintf("%d of %d planned cables as planned; %d findings\n", r.AsPlanned, r.Planned, len(r.Findings))
				if !strings.HasPrefix(out, head) || strings.Count(out, "\n  [") != len(r.Findings) {
					t.Errorf("text does not start with %q or lists other findings than the JSON:\n%s", head, out)
				}
				var got, want []string
				for _, f := range r.Findings {
					got = append(got, f.Kind)
				}
				for _, f := range faults {
					want = append(want, kindOf[f.kind])
					named := false
					for _, x := range r.Findings {
						named = named || (x.Kind == kindOf[f.kind] && slices.Contains(x.Nodes, f.node))
					}
					if !named {
						t.Errorf("no %s finding names %s (injected %s):\n%s", kindOf[f.kind], f.node, f.kind, out)
					}
				}
				sort.Strings(got)
				sort.Strings(want)
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("findings %v, injected %v:\n%s", got, want, out)
				}
				if after, err := replay(broken, &r); err != nil || strings.Join(after, "\n") != strings.Join(cabling(planned), "\n") {
					t.Errorf("replaying the actions on the broken fabric does not give the plan (%v):\n%s", err, out)
				}
			})
		}
	}
}

// replay applies a report's actions, with the contract's semantics, to the
// cabling of f (whose nodes carry their plan names) and returns the result
// as cabling does; an action the ports do not allow is an error.
func replay(f *fabric.Fabric, r *verify.Report) ([]string, error) {
	peer := map[string]string{}
	for _, l := range f.Links() {
		a, b := fmt.Sprintf("%s[%d]", f.Node(l.A.Node).Name, l.A.Port), fmt.Sprintf("%s[%d]", f.Node(l.B.Node).Name, l.B.Port)
		peer[a], peer[b] = b, a
	}
	for _, x := range r.Findings {
		for _, ac := range x.Actions {
			a, b := fmt.Sprintf("%s[%d]", ac.A.Node, ac.A.Port), fmt.Sprintf("%s[%d]", ac.B.Node, ac.B.Port)
			pa, hasA := peer[a]
			pb, hasB := peer[b]
			switch {
			case ac.Op == verify.OpExchange && hasA && hasB:
				peer[a], peer[pb], peer[b], peer[pa] = pb, a, pa, b
			case ac.Op == verify.OpMove && hasA && !hasB:
				delete(peer, a)
				peer[b], peer[pa] = pa, b
			case ac.Op == verify.OpConnect && !hasA && !hasB:
				peer[a], peer[b] = b, a
			case ac.Op == verify.OpRemove && pa == b:
				delete(peer, a)
				delete(peer, b)
			case ac.Op == verify.OpReplace && pa == b:
			default:
				return nil, fmt.Errorf("%s %s %s is not possible at that moment", ac.Op, a, b)
			}
		}
	}
	var out []string
	for a, b := range peer {
		if a < b {
			out = append(out, a+" "+b)
		}
	}
	sort.Strings(out)
	return out, nil
}

// readCSVRows reads the data rows of a CSV file (its header skipped).
func readCSVRows(t *testing.T, file string) [][]string {
	t.Helper()
	fh, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s: %v", file, err)
	}
	return rows[1:]
}
