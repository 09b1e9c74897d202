package lft_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"slimroute/deadlock"
	"slimroute/fabric"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/slimfly"
)

func TestLIDSpaceOverflowSaysWhatFits(t *testing.T) {
	// q=29: 1682 switches, 36,998 endpoints: 4 LIDs each do not fit 0xBFFF
	f, err := slimfly.Build(slimfly.Params{Q: 29})
	if err != nil {
		t.Fatal(err)
	}
	_, err = lft.AssignLIDs(f, lft.LIDOptions{LMC: 2})
	if err == nil || !strings.Contains(err.Error(), "use LMC 0 (1 layers)") {
		t.Fatalf("error %v", err)
	}
	followLIDAdvice(t, "q=29", 1682, 36998, lft.LIDOptions{LMC: 2}, err)
	if _, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: 0}); err != nil {
		t.Fatalf("LMC 0 should fit: %v", err)
	}
}

// TestLFTCapacityFitsTheTopLIDExactly draws fabrics of 1..40 switches and
// 0..300 HCA ports and an LMC 0..3: a plan whose top LID is T fits tables
// of T+1 entries (LIDs 0..T) and not of T; a refusal names the capacity and
// its advice — a smaller LMC, at most N endpoints — fits when followed,
// and N+1 endpoints do not.
func TestLFTCapacityFitsTheTopLIDExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 0))
	for i := 0; i < 200; i++ {
		S, H, lmc := 1+rng.IntN(40), rng.IntN(301), rng.IntN(4)
		f := switchesWithHCAs(t, S, H)
		lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: lmc})
		if err != nil {
			t.Fatal(err)
		}
		top := int(lids.Top())
		if _, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: lmc, LFTCap: top + 1}); err != nil {
			t.Fatalf("%d switches, %d HCAs, LMC %d: top LID %d, refused with %d entries: %v", S, H, lmc, top, top+1, err)
		}
		opts := lft.LIDOptions{LMC: lmc, LFTCap: top - rng.IntN(min(top, 40))}
		_, err = lft.AssignLIDs(f, opts)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("tables hold %d", opts.LFTCap)) {
			t.Fatalf("%d switches, %d HCAs, LMC %d: top LID %d, tables of %d: %v", S, H, lmc, top, opts.LFTCap, err)
		}
		followLIDAdvice(t, fmt.Sprintf("%d switches, %d HCAs", S, H), S, H, opts, err)
	}
}

var (
	adviceLMC = regexp.MustCompile(`use LMC (\d+)`)
	adviceEP  = regexp.MustCompile(`at most (\d+) endpoints`)
)

// followLIDAdvice checks the advice of AssignLIDs' refusal err for S
// switches and H HCA ports under opts: the LMC it names fits them, the
// endpoints it names fit (with the S switches), one more do not.
func followLIDAdvice(t *testing.T, what string, S, H int, opts lft.LIDOptions, err error) {
	t.Helper()
	if m := adviceLMC.FindStringSubmatch(err.Error()); m != nil {
		if l, _ := strconv.Atoi(m[1]); !fitsWith(t, S, H, opts, l) {
			t.Errorf("%s: %v\n  advised LMC %d, which does not fit", what, err, l)
		}
	}
	if m := adviceEP.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		if !fitsWith(t, S, n, opts, opts.LMC) || fitsWith(t, S, n+1, opts, opts.LMC) {
			t.Errorf("%s: %v\n  advised at most %d endpoints: %d fit %v, %d fit %v", what, err, n, n, fitsWith(t, S, n, opts, opts.LMC), n+1, fitsWith(t, S, n+1, opts, opts.LMC))
		}
	}
}

// fitsWith reports whether S switches and H HCA ports get LIDs under opts
// at LMC lmc.
func fitsWith(t *testing.T, S, H int, opts lft.LIDOptions, lmc int) bool {
	t.Helper()
	opts.LMC = lmc
	_, err := lft.AssignLIDs(switchesWithHCAs(t, S, H), opts)
	return err == nil
}

// switchesWithHCAs builds S switches in a chain with H single-port HCAs
// dealt over them.
func switchesWithHCAs(t *testing.T, S, H int) *fabric.Fabric {
	t.Helper()
	per := (H+S-1)/max(S, 1) + 2
	var nodes []fabric.Node
	var links []fabric.Link
	for s := 0; s < S; s++ {
		nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: fmt.Sprintf("s%d", s), GUID: fabric.GUID(s+1) << 20, Ports: min(per, fabric.MaxPorts)})
		if s > 0 {
			links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(s - 1), Port: 2}, B: fabric.PortRef{Node: fabric.NodeID(s), Port: 1}})
		}
	}
	for h := 0; h < H; h++ {
		id := fabric.NodeID(len(nodes))
		nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: fmt.Sprintf("h%d", h), GUID: fabric.GUID(1)<<40 | fabric.GUID(h)<<8, Ports: 1})
		links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(h % S), Port: 3 + h/S}, B: fabric.PortRef{Node: id, Port: 1}})
	}
	f, err := fabric.New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestLIDsAreAlignedAndUnique(t *testing.T) {
	f, _ := slimfly.Build(slimfly.Params{Q: 5})
	lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: 2})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[lft.LID]bool{}
	for i, p := range lids.Ports() {
		if i < 50 && (p.Port.Port != 0 || p.Base != lft.LID(i+1)) {
			t.Fatalf("switch %d: %+v", i, p)
		}
		if p.Port.Port != 0 && (p.LMC != 2 || p.Base%4 != 0) {
			t.Fatalf("HCA port %+v not aligned to LMC 2", p)
		}
		for l := p.Base; l <= p.Top(); l++ {
			if seen[l] {
				t.Fatalf("LID %d used twice", l)
			}
			seen[l] = true
		}
	}
	if len(lids.Ports()) != 250 || lids.Top() != 52+200*4-1 {
		t.Fatalf("%d ports, top %d", len(lids.Ports()), lids.Top())
	}
}

func TestLIDsFromADiscoveredFabric(t *testing.T) {
	fh, _ := os.Open("../fabric/testdata/ibnd-small-fulllids.txt")
	defer fh.Close()
	f, err := fabric.ReadIBNetDiscover(fh, "ibnd")
	if err != nil {
		t.Fatal(err)
	}
	lids, err := lft.AssignLIDs(f, lft.LIDOptions{FromFabric: true})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := f.NodeByName("hca-3")
	if p, ok := lids.Of(fabric.PortRef{Node: h, Port: 2}); !ok || p.Base != 6 {
		t.Fatalf("hca-3 port 2: %+v", p)
	}
	fresh, _ := slimfly.Build(slimfly.Params{Q: 3})
	if _, err := lft.AssignLIDs(fresh, lft.LIDOptions{FromFabric: true}); err == nil || !strings.Contains(err.Error(), "has no LID") {
		t.Fatalf("a fabric without LIDs: %v", err)
	}
}

func TestTablesFollowTheLayers(t *testing.T) {
	f, _ := slimfly.Build(slimfly.Params{Q: 5})
	r, _ := layers.Compute(f, layers.Options{Layers: 4, Seed: 1})
	a, _ := deadlock.AssignHops(r, deadlock.Options{})
	lids, _ := lft.AssignLIDs(f, lft.LIDOptions{LMC: 2})
	tab, err := lft.Build(f, lids, r, a, 2)
	if err != nil {
		t.Fatal(err)
	}
	for d, dest := range r.Dests()[:r.NumEndpoints()] {
		p, _ := lids.Of(dest.Port)
		for s := 0; s < r.NumSwitches(); s++ {
			for k := 0; k < 4; k++ {
				if got, want := tab.Port(r.SwitchID(s), p.Base+lft.LID(k)), r.NextPort(k, s, d); int(got) != want {
					t.Fatalf("switch %d LID %d: port %d, layer %d says %d", s, p.Base+lft.LID(k), got, k, want)
				}
			}
		}
	}
	for _, sw := range tab.Switches() {
		own, _ := lids.Of(fabric.PortRef{Node: sw})
		if tab.Port(sw, own.Base) != 0 {
			t.Fatalf("%s does not take its own LID on port 0", f.Node(sw).Name)
		}
	}
	// the LFT file lists every switch and every routed LID, and reads back
	var b bytes.Buffer
	if err := lft.WriteOpenSMLFTs(&b, tab, 2); err != nil {
		t.Fatal(err)
	}
	first := b.String()
	d, err := lft.ReadOpenSMLFTs(&b, "lfts", f)
	if err != nil {
		t.Fatal(err)
	}
	if diff := lft.DiffLFTs(tab, d, 3); len(diff) > 0 || len(d.Switches()) != 50 {
		t.Fatalf("LFT file round trip: %v (%d switches)", diff, len(d.Switches()))
	}
	var again bytes.Buffer
	lft.WriteOpenSMLFTs(&again, tab, 2)
	if again.String() != first {
		t.Fatal("two writes of the same tables differ")
	}
	// the path-SL file: one line per switch with endpoints, one digit per
	// LID, each PathSL from that switch's first HCA port
	var psl bytes.Buffer
	if err := lft.WritePathSL(&psl, tab, 2); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(psl.String()), "\n")[1:]
	if len(lines) != 50 {
		t.Fatalf("path-SL file has %d switch lines", len(lines))
	}
	v := f.SwitchView()
	for _, line := range lines {
		fs := strings.Fields(line)
		var sw fabric.NodeID = -1
		for _, id := range tab.Switches() {
			if f.Node(id).GUID.String() == fs[0] {
				sw = id
			}
		}
		src := v.Endpoints[v.Index[sw]][0]
		for i, c := range fs[2] {
			if want := "0123456789abcdef"[tab.PathSL(src, lft.LID(i+1))]; byte(c) != want {
				t.Fatalf("%s LID %d: SL %c, PathSL says %c", f.Node(sw).Name, i+1, c, want)
			}
		}
	}
	// a failing writer is reported, at any point, without hanging
	for _, n := range []int{0, 1000, len(first) / 2} {
		if err := lft.WriteOpenSMLFTs(&failAfter{n: n}, tab, 2); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("writer failing after %d bytes: %v", n, err)
		}
	}
}

type failAfter struct{ n int }

func (w *failAfter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

func TestUnattachedPortsAreReportedNotRouted(t *testing.T) {
	f, _ := slimfly.Build(slimfly.Params{Q: 3})
	var avoid []int
	for i, l := range f.Links() {
		if f.Node(l.B.Node).Name == "hca-0-0-0-1" || f.Node(l.A.Node).Name == "hca-0-0-0-1" {
			avoid = append(avoid, i)
		}
	}
	r, _ := layers.Compute(f, layers.Options{Layers: 2, AvoidLinks: avoid})
	lids, _ := lft.AssignLIDs(f, lft.LIDOptions{LMC: 1})
	tab, err := lft.Build(f, lids, r, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	un := tab.Unreachable()
	if len(un) != 1 || f.Node(un[0].Node).Name != "hca-0-0-0-1" {
		t.Fatalf("unreachable %v", un)
	}
	p, _ := lids.Of(un[0])
	for _, sw := range tab.Switches() {
		if tab.Port(sw, p.Base) != lft.Drop {
			t.Fatalf("%s routes the LID of a port whose cable is avoided", f.Node(sw).Name)
		}
	}
}

// TestLIDsDoNotChangeThroughWhatTheyReturn: the LID plan is a value; the
// ports it returns are a copy.
func TestLIDsDoNotChangeThroughWhatTheyReturn(t *testing.T) {
	f, _ := slimfly.Build(slimfly.Params{Q: 3})
	lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: 1})
	if err != nil {
		t.Fatal(err)
	}
	ports := lids.Ports()
	first := ports[0]
	ports[0].Base, ports[0].LMC = 999, 5
	if again := lids.Ports()[0]; again != first {
		t.Fatalf("a change to the returned slice reached the plan: %+v", again)
	}
	if p, ok := lids.Of(first.Port); !ok || p != first {
		t.Fatalf("Of: %+v", p)
	}
}
