package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/internal/ibsimtest"
	"slimroute/slimfly"
)

// ibdmchk runs ibutils' checker in dir and returns its report. ibdmchk
// 1.5.7 crashes after printing its report, so the report, not the exit
// status, is the verdict.
func ibdmchk(t *testing.T, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ibdmchk", args...)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	s := string(out)
	if !strings.Contains(s, "Analyzing Fabric for Credit Loops") {
		t.Fatalf("ibdmchk %v did not reach its credit-loop analysis:\n%s", args, tailOf(s))
	}
	if strings.Contains(s, "-E- Some Point to Point Traversals Failed") || strings.Contains(s, "-E- Fail") {
		t.Fatalf("ibdmchk %v found broken paths:\n%s", args, tailOf(s))
	}
	return s
}

func tailOf(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}

func loopFree(report string) bool { return strings.Contains(report, "-I- no credit loops found") }

// TestIBDMChkJudgesFourLayers has ibdmchk judge the 4-layer, hop-indexed
// q=5 routing through the LMC-0 view slimroute route writes: no credit loop
// with our SLs and SL2VL tables, a credit loop with every SL on VL 0.
func TestIBDMChkJudgesFourLayers(t *testing.T) {
	ibsimtest.Require(t, "ibdmchk")
	// the view stands each of q=5's 2q²·4 = 200 HCA ports in for 4 CAs
	// (one per layer); ibdmchk checks every ordered pair of distinct CAs
	const q, layers = 5, 4
	cas := 2 * q * q * 4 * layers
	dir := filepath.Join(t.TempDir(), "route")
	run(t, "route", "--slimfly", fmt.Sprint(q), "--layers", fmt.Sprint(layers), "--deadlock", "hops", "--ibdmchk", "-o", dir)
	v := filepath.Join(dir, "ibdmchk")
	base := []string{"-s", "subnet.lst", "-f", "fdbs", "-m", "mcfdbs"}
	ours := ibdmchk(t, v, append(base, "-c", "psl", "-d", "sl2vl")...)
	if !loopFree(ours) || !strings.Contains(ours, fmt.Sprintf("Scanned:%d CA to CA paths", cas*(cas-1))) {
		t.Fatalf("ibdmchk on our 4 layers:\n%s", tailOf(ours))
	}
	if zero := ibdmchk(t, v, base...); loopFree(zero) || !strings.Contains(zero, "Found credit loop") {
		t.Fatalf("ibdmchk with every SL 0 found no credit loop:\n%s", tailOf(zero))
	}
}

// TestIBDMChkJudgesOpenSMsTables loads a one-layer DFSSSP routing of q=5
// and q=7 into OpenSM's file engine (LMC 0, where ibdmchk works on
// OpenSM's own dumps) and has ibdmchk check OpenSM's subnet list and FDB
// dump with our path SLs and SL2VL tables: loop-free; with all SLs forced
// to 0: a credit loop.
func TestIBDMChkJudgesOpenSMsTables(t *testing.T) {
	ibsimtest.Require(t, "ibdmchk", "opensm")
	for _, q := range []int{5, 7} {
		t.Run(fmt.Sprintf("q=%d", q), func(t *testing.T) {
			tmp := t.TempDir()
			dir := filepath.Join(tmp, "route")
			net := filepath.Join(tmp, "sf.net")
			run(t, "route", "--slimfly", fmt.Sprint(q), "--layers", "1", "--deadlock", "dfsssp", "--vls", "4", "--ibdmchk", "-o", dir)
			run(t, "topo", "slimfly", "--q", fmt.Sprint(q), "-o", net)
			sim := ibsimtest.Start(t, net)
			g2l, _ := os.ReadFile(filepath.Join(dir, "guid2lid"))
			dump := sim.OpenSMWithLIDs(t, 5*time.Minute, g2l, "-R", "file", "-U", filepath.Join(dir, "opensm-lfts.txt"))
			base := []string{"-s", filepath.Join(dump, "opensm-subnet.lst"), "-f", filepath.Join(dump, "opensm.fdbs"), "-m", filepath.Join(dump, "opensm.mcfdbs")}
			v := filepath.Join(dir, "ibdmchk")
			ours := ibdmchk(t, tmp, append(base, "-c", filepath.Join(v, "psl"), "-d", filepath.Join(v, "sl2vl"))...)
			if !loopFree(ours) {
				t.Fatalf("ibdmchk on OpenSM's tables with our SLs:\n%s", tailOf(ours))
			}
			if zero := ibdmchk(t, tmp, base...); loopFree(zero) {
				t.Fatalf("ibdmchk with every SL 0 found no credit loop:\n%s", tailOf(zero))
			}
		})
	}
}

// TestIBDMChkAgreesAfterCablesFail: on the q=5 Slim Fly with two cables
// failed, the two ends of each are four hops apart, and the hop-indexed
// scheme gives those routes VL 3 (4 VLs). Our verifier (route runs it) and
// ibdmchk, on route's LMC-0 view, both find the 4 layers free of credit
// loops; with every SL 0, ibdmchk finds one.
func TestIBDMChkAgreesAfterCablesFail(t *testing.T) {
	ibsimtest.Require(t, "ibdmchk")
	f, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	var failed []int
	for _, c := range []struct {
		sw   string
		port int
	}{{"sw-0-0-0", 5}, {"sw-1-2-3", 6}} {
		id, _ := f.NodeByName(c.sw)
		li, ok := f.LinkAt(fabric.PortRef{Node: id, Port: c.port})
		if !ok {
			t.Fatalf("%s port %d has no cable", c.sw, c.port)
		}
		failed = append(failed, li)
	}
	broken, err := f.Without(nil, failed)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	net := writeNet(t, tmp, broken)
	dir := filepath.Join(tmp, "route")
	out := run(t, "route", "--fabric", net, "--deadlock", "hops", "--vls", "4", "--ibdmchk", "-o", dir)
	if !strings.Contains(out, "4 VLs") {
		t.Fatalf("want the fourth hop class in use:\n%s", out)
	}
	v := filepath.Join(dir, "ibdmchk")
	base := []string{"-s", "subnet.lst", "-f", "fdbs", "-m", "mcfdbs"}
	if ours := ibdmchk(t, v, append(base, "-c", "psl", "-d", "sl2vl")...); !loopFree(ours) {
		t.Fatalf("ibdmchk finds a credit loop our verifier does not:\n%s", tailOf(ours))
	}
	if zero := ibdmchk(t, v, base...); loopFree(zero) {
		t.Fatalf("ibdmchk with every SL 0 found no credit loop:\n%s", tailOf(zero))
	}
}

// TestIBDMChkAgreesOnGeneratedFailures: a seeded sample of damaged Slim
// Flies (internal/failures: cables and switches gone, q = 5 and 7), each
// routed with the defaults on 4 VLs (q = 7 with a cable, or a switch and
// two cables, gone is routed as its design and repaired:
// pipeline.Completion). route's verifier accepts every one
// (route fails otherwise), and so must ibdmchk on route's LMC-0 view with
// the path SLs and SL2VL tables.
func TestIBDMChkAgreesOnGeneratedFailures(t *testing.T) {
	ibsimtest.Require(t, "ibdmchk")
	t.Parallel() // (files and ibdmchk only; overlaps the other long e2e tests)
	cases := []struct{ q, cables, switches int }{
		{5, 2, 0}, {5, 5, 0}, {5, 8, 0}, {5, 0, 1}, {5, 0, 2}, {5, 3, 1},
		{7, 1, 0}, {7, 16, 0}, {7, 0, 2}, {7, 2, 1},
	}
	for i, c := range cases {
		f, err := slimfly.Build(slimfly.Params{Q: c.q})
		if err != nil {
			t.Fatal(err)
		}
		seed := uint64(100 + i)
		g, err := failures.Draw(f, c.cables, c.switches, seed)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("q=%d, %d cables and %d switches gone (seed %d)", c.q, c.cables, c.switches, seed)
		tmp := t.TempDir()
		net := writeNet(t, tmp, g)
		dir := filepath.Join(tmp, "route")
		out := run(t, "route", "--fabric", net, "--vls", "4", "--ibdmchk", "-o", dir)
		rep := ibdmchk(t, filepath.Join(dir, "ibdmchk"), "-s", "subnet.lst", "-f", "fdbs", "-m", "mcfdbs", "-c", "psl", "-d", "sl2vl")
		if !loopFree(rep) {
			t.Fatalf("%s: ibdmchk finds a credit loop our verifier does not:\n%s", name, tailOf(rep))
		}
		t.Logf("%s: %s; ibdmchk agrees: no credit loop", name, firstLine(out, "VL"))
	}
}

// firstLine returns the first line of s that contains sub, or "".
func firstLine(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// writeNet writes f as an ibsim net file in dir and returns its path.
func writeNet(t *testing.T, dir string, f *fabric.Fabric) string {
	t.Helper()
	return writeFabricFile(t, filepath.Join(dir, "fabric.net"), f, fabric.FormatIBSim)
}

// writeFabricFile writes f to path in format and returns path.
func writeFabricFile(t *testing.T, path string, f *fabric.Fabric, format fabric.Format) string {
	t.Helper()
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := fabric.Write(fh, f, format); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestIBDMChkJudgesTheOtherDesigns has ibdmchk judge the 4-layer routing
// of the example PolarFly, HyperX and Dragonfly+ (testdata/specs, the
// defaults, 4 VLs) through route's LMC-0 view: every CA-to-CA path
// traversed and no credit loop with our SLs and SL2VL tables, a credit
// loop with every SL on VL 0 (so the SLs are what keeps them apart).
func TestIBDMChkJudgesTheOtherDesigns(t *testing.T) {
	ibsimtest.Require(t, "ibdmchk")
	for _, name := range []string{"polarfly-q7", "hyperx-6x6", "dragonfly-plus-r8"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "route")
			run(t, "route", "--config", filepath.Join("..", "testdata", "specs", name+".toml"), "--vls", "4", "--ibdmchk", "-o", dir)
			v := filepath.Join(dir, "ibdmchk")
			base := []string{"-s", "subnet.lst", "-f", "fdbs", "-m", "mcfdbs"}
			ours := ibdmchk(t, v, append(base, "-c", "psl", "-d", "sl2vl")...)
			if !loopFree(ours) || !strings.Contains(ours, "CA to CA paths") {
				t.Fatalf("ibdmchk on our routing of %s:\n%s", name, tailOf(ours))
			}
			if zero := ibdmchk(t, v, base...); loopFree(zero) {
				t.Fatalf("ibdmchk with every SL 0 found no credit loop on %s:\n%s", name, tailOf(zero))
			}
		})
	}
}
