package cabling_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"slimroute/cabling"
	"slimroute/fabric"
	"slimroute/internal/wiringfaults"
)

// TestADeviceCallingItselfAnotherPlannedNodeIsNotClean cables every plan
// exactly as planned, then gives the device in one planned node's place X
// the node description of a planned node Y of the other kind (an HCA that
// says it is a switch, or a switch that says it is an HCA), and reads the
// fabric back from ibnetdiscover text as a user's would be. With X's
// planned GUID the device is X's (identified by GUID): only its
// description is wrong, and the report is clean. With a GUID the plan does
// not know the device is found by its cables and every cable is as
// planned, but the fabric contradicts the plan: the report must not be
// clean, and must have a misnamed finding that names X and Y and asks for
// no physical step.
func TestADeviceCallingItselfAnotherPlannedNodeIsNotClean(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 0))
	for _, fab := range wiringfaults.Plans {
		p, buf := planText(t, fab)
		for range 6 {
			x := fabric.NodeID(rng.IntN(p.NumNodes()))
			others := p.IDsOf(fabric.Switch)
			if p.Node(x).Kind == fabric.Switch {
				others = p.IDsOf(fabric.HCA)
			}
			y := others[rng.IntN(len(others))]
			what := fmt.Sprintf("%s: %s called %q", fab, p.Node(x).Name, p.Node(y).Name)
			// with its planned GUID it is the planned device: its
			// description is wrong, its cables are not
			own, err := fabric.ReadIBNetDiscover(strings.NewReader(renamed(t, buf.String(), p.Node(x), p.Node(y).Name, false)), "own")
			if err != nil {
				t.Fatal(err)
			}
			if rep := cabling.Verify(p, own); !rep.Clean() {
				t.Fatalf("%s, planned GUID: not clean:%s", what, instructionsOf(rep))
			}
			text := renamed(t, buf.String(), p.Node(x), p.Node(y).Name, true)
			found, err := fabric.ReadIBNetDiscover(strings.NewReader(text), "found")
			if err != nil {
				t.Fatal(err)
			}
			rep := cabling.Verify(p, found)
			if rep.Clean() || rep.AsPlanned != rep.Planned {
				t.Fatalf("%s: clean %v, %d of %d cables as planned", what, rep.Clean(), rep.AsPlanned, rep.Planned)
			}
			ok := false
			for _, f := range rep.Findings {
				if f.Kind == cabling.Misnamed && f.Node == p.Node(x).Name && len(f.Actions) == 0 &&
					strings.Contains(f.Instruction, fmt.Sprintf("%q", p.Node(y).Name)) {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("%s: no misnamed finding for it:%s", what, instructionsOf(rep))
			}
		}
	}
}

// renamed changes, in ibnetdiscover text, the description of node n's
// record (and of the port lines that name it) to name, and with newGUID
// its GUIDs to ones no plan uses.
func renamed(t *testing.T, text string, n fabric.Node, name string, newGUID bool) string {
	t.Helper()
	old := regexp.MustCompile(fmt.Sprintf(`# "%s"`, regexp.QuoteMeta(n.Name)))
	if !old.MatchString(text) {
		t.Fatalf("no %q in the text", n.Name)
	}
	text = old.ReplaceAllString(text, fmt.Sprintf(`# "%s"`, name))
	if newGUID {
		g := fmt.Sprintf("%016x", uint64(n.GUID))
		text = strings.ReplaceAll(text, g[:14], "7e"+g[2:14])
	}
	return text
}

func instructionsOf(rep *cabling.Report) string {
	var b strings.Builder
	for _, f := range rep.Findings {
		fmt.Fprintf(&b, "\n  [%s] %s", f.Kind, f.Instruction)
	}
	return b.String()
}

// TestAStrangerInAPlannedHostsPortIsNotClean cables every plan exactly as
// planned, then gives the device in one planned host's place a name and a
// GUID the plan does not know (another host plugged into its port), and
// reads the fabric back from ibnetdiscover text. Every cable is as
// planned, but the other hosts carry their planned names, so the report
// must not be clean: it has an unconfirmed finding for that host, which
// names the stranger and asks for no physical step. With the host's
// planned GUID kept it is the planned adapter, renamed: clean. And when
// every host has a name and GUID the plan does not know (host names on
// site, adapters the plan could not know), a stranger cannot be told from
// a host: clean, every host found by its cable.
func TestAStrangerInAPlannedHostsPortIsNotClean(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 0))
	for _, fab := range wiringfaults.Plans {
		p, buf := planText(t, fab)
		hcas := p.IDsOf(fabric.HCA)
		for k := range 6 {
			x := p.Node(hcas[rng.IntN(len(hcas))])
			stranger := fmt.Sprintf("stranger-%d", k)
			what := fmt.Sprintf("%s: %s's port holds %q", fab, x.Name, stranger)
			if rep := verifyText(t, p, renamed(t, buf.String(), x, stranger, false)); !rep.Clean() {
				t.Fatalf("%s with the planned GUID: not clean:%s", what, instructionsOf(rep))
			}
			rep := verifyText(t, p, renamed(t, buf.String(), x, stranger, true))
			if rep.Clean() || rep.AsPlanned != rep.Planned {
				t.Fatalf("%s: clean %v, %d of %d cables as planned", what, rep.Clean(), rep.AsPlanned, rep.Planned)
			}
			if len(rep.Findings) != 1 || rep.Findings[0].Kind != cabling.Unconfirmed || rep.Findings[0].Node != x.Name ||
				len(rep.Findings[0].Actions) != 0 || !strings.Contains(rep.Findings[0].Instruction, fmt.Sprintf("%q", stranger)) {
				t.Fatalf("%s: want one unconfirmed finding for it:%s", what, instructionsOf(rep))
			}
		}
		text := buf.String()
		for i, h := range hcas {
			text = renamed(t, text, p.Node(h), fmt.Sprintf("node%03d mlx5_0", i), true)
		}
		if rep := verifyText(t, p, text); !rep.Clean() {
			t.Fatalf("%s, every host with a site name and adapter: not clean:%s", fab, instructionsOf(rep))
		}
	}
}

func verifyText(t *testing.T, p *fabric.Fabric, text string) *cabling.Report {
	t.Helper()
	found, err := fabric.ReadIBNetDiscover(strings.NewReader(text), "found")
	if err != nil {
		t.Fatal(err)
	}
	return cabling.Verify(p, found)
}

// TestCrossedLabelsFollowTheCables cables every plan exactly as planned and
// crosses the labels of two planned switches X and Y in the ibnetdiscover
// text: their node descriptions traded (each device where the plan puts
// it, described as the other), or their GUIDs traded (each device in the
// other's place, described by its place). Description and GUID then name
// different planned switches for both devices; the cables agree with one
// reading, and the report must follow it: every cable as planned, clean.
func TestCrossedLabelsFollowTheCables(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 0))
	for _, fab := range wiringfaults.Plans {
		p, buf := planText(t, fab)
		sw := p.IDsOf(fabric.Switch)
		for range 4 {
			i := rng.IntN(len(sw))
			j := (i + 1 + rng.IntN(len(sw)-1)) % len(sw)
			x, y := p.Node(sw[i]), p.Node(sw[j])
			descs := traded(buf.String(), fmt.Sprintf(`"%s"`, x.Name), fmt.Sprintf(`"%s"`, y.Name))
			gx, gy := fmt.Sprintf("%016x", uint64(x.GUID)), fmt.Sprintf("%016x", uint64(y.GUID))
			guids := traded(buf.String(), gx[:14], gy[:14])
			for what, text := range map[string]string{"descriptions": descs, "GUIDs": guids} {
				rep := verifyText(t, p, text)
				if !rep.Clean() || rep.AsPlanned != rep.Planned {
					t.Fatalf("%s: %s and %s with their %s traded: %d of %d as planned:%s", fab, x.Name, y.Name, what, rep.AsPlanned, rep.Planned, instructionsOf(rep))
				}
			}
		}
	}
}

// traded exchanges every a and b in text.
func traded(text, a, b string) string {
	const mark = "\x00"
	text = strings.ReplaceAll(text, a, mark)
	text = strings.ReplaceAll(text, b, a)
	return strings.ReplaceAll(text, mark, b)
}

// TestACutOffDiscoveryIsNamed: with every switch cable of one planned
// switch unplugged, a discovery started on it (seeded, on every plan)
// sees only that switch and its hosts. The report names that switch as
// where the discovery could not go on, and its summary says so first; its
// steps connect the cut cables and nothing the discovery never saw. The
// same fabric discovered from elsewhere (the cut switch and its hosts
// missing) names none.
func TestACutOffDiscoveryIsNamed(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 0))
	for _, fab := range wiringfaults.Plans {
		p := plan(t, fab)
		sw := p.IDsOf(fabric.Switch)
		for range 3 {
			s := sw[rng.IntN(len(sw))]
			var cut []int
			for i, l := range p.Links() {
				if (l.A.Node == s || l.B.Node == s) && p.Kind(l.A.Node) == fabric.Switch && p.Kind(l.B.Node) == fabric.Switch {
					cut = append(cut, i)
				}
			}
			unplugged, err := p.Without(nil, cut)
			if err != nil {
				t.Fatal(err)
			}
			// what a discovery from s sees, and what one from elsewhere sees
			near := map[fabric.NodeID]bool{s: true}
			for q := 1; q <= p.Ports(s); q++ {
				if far, ok := unplugged.Peer(fabric.PortRef{Node: s, Port: q}); ok {
					near[far.Node] = true
				}
			}
			var far, close []fabric.NodeID
			for n := range p.NumNodes() {
				if near[fabric.NodeID(n)] {
					close = append(close, fabric.NodeID(n))
				} else {
					far = append(far, fabric.NodeID(n))
				}
			}
			fromS, err := unplugged.Without(far, nil)
			if err != nil {
				t.Fatal(err)
			}
			fromElsewhere, err := unplugged.Without(close, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("rack %d, %s", p.Node(s).Place.Rack, p.Node(s).Name)
			rep := cabling.Verify(p, fromS)
			if rep.CutOff != want || !strings.Contains(rep.Summary(), "could not leave "+want) {
				t.Fatalf("%s: discovered from %s, cut off at %q:\n%s", fab, p.Node(s).Name, rep.CutOff, rep.Summary())
			}
			// the only sure steps are the cut switch's own cables: the
			// cables beyond it were never seen, and may well be plugged
			steps := 0
			for _, f := range rep.Findings {
				for _, a := range f.Actions {
					if a.Op != cabling.OpConnect || a.A.Node != p.Node(s).Name && a.B.Node != p.Node(s).Name {
						t.Fatalf("%s: cut off at %s, a step on unseen ports: %+v", fab, p.Node(s).Name, a)
					}
					steps++
				}
			}
			if steps != len(cut) {
				t.Fatalf("%s: %d of the cut switch's %d cables to connect", fab, steps, len(cut))
			}
			if rep := cabling.Verify(p, fromElsewhere); rep.CutOff != "" {
				t.Fatalf("%s: discovered from beyond %s, cut off at %q", fab, p.Node(s).Name, rep.CutOff)
			}
		}
	}
}

// planText is plan fab and its ibnetdiscover text, every cable as planned.
func planText(t *testing.T, fab string) (*fabric.Fabric, *bytes.Buffer) {
	t.Helper()
	p := plan(t, fab)
	var buf bytes.Buffer
	if err := fabric.WriteIBNetDiscover(&buf, p); err != nil {
		t.Fatal(err)
	}
	return p, &buf
}

// TestASwitchFoundByGUIDIsNamedWithIt: two planned switches X and Y with
// their descriptions traded and one host cable of each exchanged (seeded,
// every plan): both are found by GUID, and every instruction that names
// them gives the GUID and the name each calls itself, so the installer,
// reading the labels, acts on the device meant.
func TestASwitchFoundByGUIDIsNamedWithIt(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 0))
	for _, fab := range wiringfaults.Plans {
		p := plan(t, fab)
		host := func(sw fabric.NodeID) int { // a link from sw to a host, -1 if none
			for i, l := range p.Links() {
				if l.A.Node == sw && p.Kind(l.B.Node) == fabric.HCA || l.B.Node == sw && p.Kind(l.A.Node) == fabric.HCA {
					return i
				}
			}
			return -1
		}
		var withHosts []fabric.NodeID
		for _, s := range p.IDsOf(fabric.Switch) {
			if host(s) >= 0 {
				withHosts = append(withHosts, s)
			}
		}
		for range 3 {
			x := withHosts[rng.IntN(len(withHosts))]
			y := withHosts[rng.IntN(len(withHosts))]
			if x == y {
				continue
			}
			nodes, links := p.Nodes(), p.Links()
			nodes[x].Name, nodes[y].Name = nodes[y].Name, nodes[x].Name
			lx, ly := &links[host(x)], &links[host(y)]
			swEnd := func(l *fabric.Link, sw fabric.NodeID) *fabric.PortRef {
				if l.A.Node == sw {
					return &l.A
				}
				return &l.B
			}
			ex, ey := swEnd(lx, x), swEnd(ly, y)
			*ex, *ey = *ey, *ex
			found, err := fabric.New(nodes, links)
			if err != nil {
				t.Fatal(err)
			}
			rep := cabling.Verify(p, found)
			if rep.Clean() {
				t.Fatalf("%s: a host cable exchanged, and clean", fab)
			}
			for _, f := range rep.Findings {
				for _, n := range []fabric.NodeID{x, y} {
					label := fmt.Sprintf("%s (the switch with GUID %s, which calls itself %s)", p.Node(n).Name, p.Node(n).GUID, nodes[n].Name)
					if strings.Contains(f.Instruction, p.Node(n).Name+" port") && !strings.Contains(f.Instruction, label) {
						t.Fatalf("%s: %q names %s without %q", fab, f.Instruction, p.Node(n).Name, label)
					}
				}
			}
		}
	}
}
