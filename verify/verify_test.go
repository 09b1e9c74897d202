package verify_test

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"slimroute/deadlock"
	"slimroute/fabric"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/slimfly"
	"slimroute/verify"
)

// programmed routes Slim Fly q in 4 layers and programs it with the given
// VL scheme.
func programmed(t testing.TB, q int, scheme func(*layers.Routing, deadlock.Options) (*deadlock.Assignment, error)) *lft.Tables {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: q})
	if err != nil {
		t.Fatal(err)
	}
	r, err := layers.Compute(f, layers.Options{Layers: 4, Seed: 1, Trees: -1})
	if err != nil {
		t.Fatal(err)
	}
	a, err := scheme(r, deadlock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: 2})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := lft.Build(f, lids, r, a, 2)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// edited writes tables as text (LFT dump, path SLs, SL2VL), lets edit
// change one of the texts, and reads them back: broken tables made the way
// a user would hand them to `slimroute verify`.
func edited(t *testing.T, tab *lft.Tables, edit func(lfts, psl, sl2vl *string)) *lft.Tables {
	t.Helper()
	var a, b, c bytes.Buffer
	if err := lft.WriteOpenSMLFTs(&a, tab, 2); err != nil {
		t.Fatal(err)
	}
	if err := lft.WritePathSL(&b, tab, 2); err != nil {
		t.Fatal(err)
	}
	if err := lft.WriteSL2VL(&c, tab); err != nil {
		t.Fatal(err)
	}
	lfts, psl, sl2vl := a.String(), b.String(), c.String()
	edit(&lfts, &psl, &sl2vl)
	f := tab.Fabric()
	out, err := lft.ReadOpenSMLFTs(strings.NewReader(lfts), "lfts", f)
	if err != nil {
		t.Fatal(err)
	}
	if out, err = lft.ReadPathSL(strings.NewReader(psl), "psl", out); err != nil {
		t.Fatal(err)
	}
	if out, err = lft.ReadSL2VL(strings.NewReader(sl2vl), "sl2vl", out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCorrectTablesPassAndReadBackAlike(t *testing.T) {
	for _, scheme := range []func(*layers.Routing, deadlock.Options) (*deadlock.Assignment, error){deadlock.AssignHops, deadlock.AssignDFSSSP} {
		tab := programmed(t, 5, scheme)
		rep, err := verify.Check(tab, 2)
		if err != nil || !rep.Acyclic() {
			t.Fatalf("the real tables: %v, cycle %s", err, rep.CycleString())
		}
		// the same tables through their files: the same verdict
		back, err := verify.Check(edited(t, tab, func(*string, *string, *string) {}), 2)
		if err != nil || !reflect.DeepEqual(rep, back) {
			t.Fatalf("read back from text: %v\n%+v\n%+v", err, rep, back)
		}
		// 200 HCA ports, 50 switches + 200×4 LIDs
		if rep.Sources != 200 || rep.DLIDs != 850 {
			t.Errorf("%d sources, %d DLIDs", rep.Sources, rep.DLIDs)
		}
	}
}

func TestAllSLsZeroMakeACreditLoop(t *testing.T) {
	tab := programmed(t, 5, deadlock.AssignDFSSSP)
	broken := edited(t, tab, func(_, psl, _ *string) { zeroSLs(psl) })
	rep, err := verify.Check(broken, 2)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Acyclic() || len(rep.Cycle) < 2 {
		t.Fatal("all routes on SL 0: the verifier found no cycle")
	}
	if !strings.Contains(rep.CycleString(), "VL0") || strings.Contains(rep.CycleString(), "VL1") {
		t.Errorf("the cycle should be on VL 0: %s", rep.CycleString())
	}
}

// zeroSLs sets every SL of a path-SL file to 0.
func zeroSLs(psl *string) {
	line := regexp.MustCompile(`(?m)^(0x[0-9a-f]+ 0x[0-9a-f]+ )([0-9a-f]+)$`)
	*psl = line.ReplaceAllStringFunc(*psl, func(l string) string {
		m := line.FindStringSubmatch(l)
		return m[1] + strings.Repeat("0", len(m[2]))
	})
}

func TestAHoleInATableIsNamed(t *testing.T) {
	tab := programmed(t, 5, deadlock.AssignHops)
	f := tab.Fabric()
	sw := tab.SortedSwitches()[3]
	target := tab.LIDs().Ports()[60]
	// drop sw's entry for the target's base LID
	broken := edited(t, tab, func(lfts, _, _ *string) {
		header := fmt.Sprintf("guid %s (", f.Node(sw).GUID)
		i := strings.Index(*lfts, header)
		j := i + strings.Index((*lfts)[i:], fmt.Sprintf("\n0x%04x ", target.Base))
		k := j + 1 + strings.Index((*lfts)[j+1:], "\n")
		*lfts = (*lfts)[:j] + (*lfts)[k:]
	})
	want := fmt.Sprintf("%s has no route to LID 0x%04x", f.Node(sw).Name, target.Base)
	if _, err := verify.Check(broken, 2); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("hole in an LFT: %v, want %q", err, want)
	}
}

func TestALoopIsNamed(t *testing.T) {
	tab := programmed(t, 5, deadlock.AssignHops)
	f := tab.Fabric()
	// two neighbouring switches send a remote LID to each other
	a := tab.SortedSwitches()[0]
	var b fabric.NodeID
	var ab, ba int
	for p := 1; p <= f.Node(a).Ports; p++ {
		if peer, ok := f.Peer(fabric.PortRef{Node: a, Port: p}); ok && f.Node(peer.Node).Kind == fabric.Switch {
			b, ab, ba = peer.Node, p, peer.Port
			break
		}
	}
	var target lft.PortLIDs
	for _, p := range tab.LIDs().Ports() {
		if peer, ok := f.Peer(p.Port); ok && p.Port.Port != 0 && peer.Node != a && peer.Node != b {
			target = p
			break
		}
	}
	set := func(lfts *string, sw fabric.NodeID, port int) {
		header := fmt.Sprintf("guid %s (", f.Node(sw).GUID)
		i := strings.Index(*lfts, header)
		j := i + strings.Index((*lfts)[i:], fmt.Sprintf("\n0x%04x ", target.Base)) + 8
		*lfts = (*lfts)[:j] + fmt.Sprintf("%03d", port) + (*lfts)[j+3:]
	}
	broken := edited(t, tab, func(lfts, _, _ *string) {
		set(lfts, a, ab)
		set(lfts, b, ba)
	})
	_, err := verify.Check(broken, 2)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("LID 0x%04x from", target.Base)) || !strings.Contains(err.Error(), "loops") {
		t.Errorf("a two-switch loop: %v", err)
	}
}

// TestReportIsTheSameOnAnyNumberOfWorkers: the report, and the error of
// broken tables, are equal for 1 to 16 workers.
func TestReportIsTheSameOnAnyNumberOfWorkers(t *testing.T) {
	tab := programmed(t, 7, deadlock.AssignHops)
	zero := edited(t, tab, func(_, psl, _ *string) { zeroSLs(psl) })
	var hole *lft.Tables
	{
		// every switch loses its entry for one LID: many problems, capped
		target := tab.LIDs().Ports()[100]
		hole = edited(t, tab, func(lfts, _, _ *string) {
			*lfts = regexp.MustCompile(fmt.Sprintf(`(?m)^0x%04x .*\n`, target.Base+1)).ReplaceAllString(*lfts, "")
		})
	}
	for _, tb := range []*lft.Tables{tab, zero, hole} {
		first, firstErr := verify.Check(tb, 1)
		for _, w := range []int{2, 3, 8, 16} {
			rep, err := verify.Check(tb, w)
			if !reflect.DeepEqual(first, rep) || fmt.Sprint(firstErr) != fmt.Sprint(err) {
				t.Fatalf("%d workers: %+v %v\none worker: %+v %v", w, rep, err, first, firstErr)
			}
		}
	}
}

// TestGroupingEqualsPerSource checks the grouping of sources against the
// plain walk: tables whose every HCA port has its own path-SL row (so no
// two sources are followed as one) give the same channels, dependencies
// and VLs.
func TestGroupingEqualsPerSource(t *testing.T) {
	for _, scheme := range []func(*layers.Routing, deadlock.Options) (*deadlock.Assignment, error){deadlock.AssignHops, deadlock.AssignDFSSSP} {
		tab := programmed(t, 5, scheme)
		grouped, err := verify.Check(tab, 2)
		if err != nil {
			t.Fatal(err)
		}
		each, err := verify.Check(perPort(t, tab), 2)
		if err != nil {
			t.Fatal(err)
		}
		if grouped.Channels != each.Channels || grouped.Dependencies != each.Dependencies || grouped.VLs != each.VLs || grouped.Acyclic() != each.Acyclic() || grouped.Sources != each.Sources {
			t.Errorf("grouped %+v, per source %+v", grouped, each)
		}
		if grouped.Walks*3 > each.Walks {
			t.Errorf("grouping saved little: %d walks against %d", grouped.Walks, each.Walks)
		}
	}
}

// perPort copies tab with one path-SL row per HCA port and one SL2VL
// class per in port.
func perPort(t *testing.T, tab *lft.Tables) *lft.Tables {
	f := tab.Fabric()
	b := lft.NewBuilder(f, tab.LIDs())
	for _, sw := range tab.Switches() {
		copy(b.LFT(sw), tab.LFT(sw))
		n := f.Node(sw).Ports
		for in := 0; in <= n; in++ {
			vls := make([]uint8, (n+1)*16)
			for out := 0; out <= n; out++ {
				for sl := uint8(0); sl < 16; sl++ {
					vls[out*16+int(sl)] = tab.SL2VL(sw, in, out, sl)
				}
			}
			if err := b.SetSL2VL(sw, in, vls); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, p := range tab.LIDs().Ports() {
		n, row := b.AddSLRow()
		for dlid := range row {
			row[dlid] = tab.PathSL(p.Port, lft.LID(dlid))
		}
		if err := b.SetSLRow(p.Port, n); err != nil {
			t.Fatal(err)
		}
	}
	return b.Tables()
}
