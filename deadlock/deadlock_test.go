package deadlock_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"slimroute/clos"
	"slimroute/deadlock"
	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/slimfly"
	"slimroute/verify"
)

// ring builds n switches in a ring, each with one HCA.
func ring(t *testing.T, n int) *fabric.Fabric {
	t.Helper()
	var nodes []fabric.Node
	var links []fabric.Link
	for i := 0; i < n; i++ {
		nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: fmt.Sprintf("s%d", i), GUID: fabric.GUID(0x100 + i), Ports: 3})
	}
	for i := 0; i < n; i++ {
		links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(i), Port: 2}, B: fabric.PortRef{Node: fabric.NodeID((i + 1) % n), Port: 3}})
		h := fabric.NodeID(len(nodes))
		nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: fmt.Sprintf("h%d", i), GUID: fabric.GUID(0x10000 + i*16), Ports: 1})
		links = append(links, fabric.Link{A: fabric.PortRef{Node: fabric.NodeID(i), Port: 1}, B: fabric.PortRef{Node: h, Port: 1}})
	}
	f, err := fabric.New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// check programs the routing with the assignment and runs the independent
// verifier on the tables.
func check(t *testing.T, r *layers.Routing, a *deadlock.Assignment) *verify.Report {
	t.Helper()
	lids, err := lft.AssignLIDs(r.Fabric, lft.LIDOptions{LMC: layers.LMC(r.NumLayers())})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := lft.Build(r.Fabric, lids, r, a, 2)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Check(tab, 2)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestRingNeedsTwoVLs(t *testing.T) {
	f := ring(t, 6)
	r, err := layers.Compute(f, layers.Options{Layers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep := check(t, r, deadlock.None(r)); rep.Acyclic() {
		t.Fatal("a ring routed on one VL has no cycle?")
	} else if !strings.Contains(rep.CycleString(), "VL0") {
		t.Errorf("cycle %q", rep.CycleString())
	}
	a, err := deadlock.AssignDFSSSP(r, deadlock.Options{VLs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if a.Needed != 2 {
		t.Errorf("DFSSSP needed %d VLs on a ring, want 2", a.Needed)
	}
	if rep := check(t, r, a); !rep.Acyclic() {
		t.Errorf("DFSSSP on a ring: cycle %s", rep.CycleString())
	}
	if _, err := deadlock.AssignDFSSSP(r, deadlock.Options{VLs: 1}); err == nil || !strings.Contains(err.Error(), "needs 2 VLs on this routing, 1 allowed") {
		t.Errorf("one VL on a ring: %v", err)
	}
	be, err := deadlock.AssignDFSSSP(r, deadlock.Options{VLs: 1, BestEffort: true})
	if err != nil || be.RoutesOnCycle == 0 || len(be.OnCycle) == 0 || !strings.Contains(be.OnCycle[0], "->") {
		t.Errorf("best effort: %v %+v", err, be)
	}
	h, err := deadlock.AssignHops(r, deadlock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep := check(t, r, h); !rep.Acyclic() || h.VLs != 3 {
		t.Errorf("hops on a ring: %d VLs, cycle %s", h.VLs, rep.CycleString())
	}
}

func TestSlimFlyBothSchemesVerified(t *testing.T) {
	for _, c := range []struct{ q, trees int }{{5, 0}, {7, 0}, {5, 1}, {7, 2}} {
		q := c.q
		t.Run(fmt.Sprintf("q=%d,trees=%d", q, c.trees), func(t *testing.T) {
			f, _ := slimfly.Build(slimfly.Params{Q: q})
			r, err := layers.Compute(f, layers.Options{Layers: 4, Seed: 1, Trees: c.trees})
			if err != nil {
				t.Fatal(err)
			}
			d, err := deadlock.AssignDFSSSP(r, deadlock.Options{})
			if err != nil {
				t.Fatal(err)
			}
			h, err := deadlock.AssignHops(r, deadlock.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range []*deadlock.Assignment{d, h} {
				rep := check(t, r, a)
				if !rep.Acyclic() {
					t.Fatalf("%s: cycle %s", a.Scheme, rep.CycleString())
				}
				if rep.VLs > a.VLs {
					t.Errorf("%s: %d VLs in use, assignment says %d", a.Scheme, rep.VLs, a.VLs)
				}
				t.Logf("q=%d %s: needs %d VLs, uses %d VLs and %d SLs (%s); verifier: %d walks, %d channels, %d dependencies",
					q, a.Scheme, a.Needed, a.VLs, a.SLs, a.Packing, rep.Walks, rep.Channels, rep.Dependencies)
			}
			// endpoints that share trees share their SLs
			for _, a := range []*deadlock.Assignment{d, h} {
				for k := 1; k < 4; k++ {
					for e := 0; e < r.NumEndpoints(); e++ {
						for s := 0; s < r.NumSwitches(); s++ {
							if like := r.SharedWith(e); a.SL(k, s, e) != a.SL(k, s, like) {
								t.Fatalf("%s layer %d: endpoint %d shares %d's trees but not its SL from switch %d", a.Scheme, k, e, like, s)
							}
						}
					}
				}
			}
			if h.VLs != 3 || h.SLs > 16 {
				t.Errorf("hops: %d VLs %d SLs", h.VLs, h.SLs)
			}
			if rep := check(t, r, deadlock.None(r)); rep.Acyclic() {
				t.Error("4 layers on one VL are acyclic? the verifier must see the cycles")
			}
		})
	}
}

func TestClosNeedsOneVL(t *testing.T) {
	two, _ := clos.Build(clos.Params{Radix: 8})
	three, _ := clos.Build(clos.Params{Levels: 3, Radix: 8})
	for _, f := range []*fabric.Fabric{two, three} {
		r, err := layers.Compute(f, layers.Options{Layers: 4})
		if err != nil {
			t.Fatal(err)
		}
		if rep := check(t, r, deadlock.None(r)); !rep.Acyclic() || rep.VLs != 1 {
			t.Errorf("Clos on one VL: %d VLs, cycle %s", rep.VLs, rep.CycleString())
		}
		a, err := deadlock.AssignDFSSSP(r, deadlock.Options{})
		if err != nil {
			t.Fatalf("DFSSSP on a Clos: %v", err)
		}
		if a.Needed != 1 {
			t.Errorf("DFSSSP on a Clos needs %d VLs, want 1", a.Needed)
		}
	}
}

// TestHopsSchemeGivesLongRoutesVLsOfTheirOwn: a ring of 10 has routes of
// up to 5 hops. They get VLs from 3 on, the verifier finds no cycle, and
// with too few VLs the error names the number that works, which does.
func TestHopsSchemeGivesLongRoutesVLsOfTheirOwn(t *testing.T) {
	f := ring(t, 10)
	r, _ := layers.Compute(f, layers.Options{Layers: 1})
	a, err := deadlock.AssignHops(r, deadlock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.LongRoutes == 0 || a.VLs <= 3 {
		t.Fatalf("%d long routes on %d VLs", a.LongRoutes, a.VLs)
	}
	if rep := check(t, r, a); !rep.Acyclic() || rep.VLs != a.VLs {
		t.Fatalf("verifier: %d VLs, cycle %s", rep.VLs, rep.CycleString())
	}
	_, err = deadlock.AssignHops(r, deadlock.Options{VLs: 3})
	m := regexp.MustCompile(`allow (\d+) VLs \(--vls (\d+)\)`).FindStringSubmatch(fmt.Sprint(err))
	if m == nil || m[1] != fmt.Sprint(a.VLs) {
		t.Fatalf("three VLs: %v (want advice of %d VLs)", err, a.VLs)
	}
	vls, _ := strconv.Atoi(m[2])
	if _, err := deadlock.AssignHops(r, deadlock.Options{VLs: vls}); err != nil {
		t.Fatalf("following the advice (--vls %d): %v", vls, err)
	}
	f6 := ring(t, 6)
	r6, _ := layers.Compute(f6, layers.Options{Layers: 1})
	if _, err := deadlock.AssignHops(r6, deadlock.Options{VLs: 2}); err == nil || !strings.Contains(err.Error(), "needs 3 VLs") {
		t.Fatalf("two VLs: %v", err)
	}
}

// TestHopsAssignmentIsTheSameOnAnyNumberOfWorkers assigns the hop-indexed
// VLs to generated routings — Slim Flies with failed cables and switches
// (four-hop routes), rings (routes of five hops and more, packed in
// order), a Clos — on 1, 2 and 5 workers, and wants the same SL for every
// route and the same SL-to-VL tables.
func TestHopsAssignmentIsTheSameOnAnyNumberOfWorkers(t *testing.T) {
	type build struct {
		name string
		f    func() (*fabric.Fabric, error)
	}
	var cases []build
	for seed := range uint64(4) {
		cases = append(cases, build{fmt.Sprintf("q=5 seed %d", seed), func() (*fabric.Fabric, error) {
			f, err := slimfly.Build(slimfly.Params{Q: 5})
			if err != nil {
				return nil, err
			}
			return failures.Draw(f, 2+int(seed)*3, int(seed%2), seed)
		}})
	}
	cases = append(cases,
		build{"ring 40", func() (*fabric.Fabric, error) { return ring(t, 40), nil }},
		build{"ring 16", func() (*fabric.Fabric, error) { return ring(t, 16), nil }},
		build{"clos", func() (*fabric.Fabric, error) { return clos.Build(clos.Params{Radix: 8}) }})
	for i, c := range cases {
		f, err := c.f()
		if err != nil {
			t.Fatal(err)
		}
		r, err := layers.Compute(f, layers.Options{Layers: 1 + 3*(i%2), Seed: uint64(i)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var want *deadlock.Assignment
		for _, workers := range []int{1, 2, 5} {
			a, err := deadlock.AssignHops(r, deadlock.Options{VLs: 15, Workers: workers})
			if err != nil {
				t.Fatalf("%s, %d workers: %v", c.name, workers, err)
			}
			if want == nil {
				want = a
				if !strings.HasPrefix(c.name, "clos") && a.LongRoutes == 0 {
					t.Errorf("%s: no route of four hops or more, nothing whose order matters", c.name)
				}
				continue
			}
			if d := assignmentDiff(r, want, a); d != "" {
				t.Errorf("%s: %d workers against 1: %s", c.name, workers, d)
			}
		}
	}
}

// assignmentDiff names the first difference between two assignments of
// routing r, or "".
func assignmentDiff(r *layers.Routing, a, b *deadlock.Assignment) string {
	if a.VLs != b.VLs || a.SLs != b.SLs || a.LongRoutes != b.LongRoutes {
		return fmt.Sprintf("%d/%d/%d VLs, SLs, long routes against %d/%d/%d", b.VLs, b.SLs, b.LongRoutes, a.VLs, a.SLs, a.LongRoutes)
	}
	for k := range r.NumLayers() {
		for d := range r.NumDests() {
			for s := range r.NumSwitches() {
				if a.SL(k, s, d) != b.SL(k, s, d) {
					return fmt.Sprintf("layer %d, switch %d to destination %d: SL %d against %d", k, s, d, b.SL(k, s, d), a.SL(k, s, d))
				}
			}
		}
	}
	for s := range r.NumSwitches() {
		sw := r.SwitchID(s)
		n := r.Fabric.Ports(sw)
		for in := 0; in <= n; in++ {
			for out := 0; out <= n; out++ {
				for sl := range uint8(16) {
					if a.VL(sw, in, out, sl) != b.VL(sw, in, out, sl) {
						return fmt.Sprintf("%s %d→%d SL %d: VL %d against %d", r.Fabric.Name(sw), in, out, sl, b.VL(sw, in, out, sl), a.VL(sw, in, out, sl))
					}
				}
			}
		}
	}
	return ""
}
