package lft_test

import (
	"testing"

	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

// TestSentCountsWhatDiffers: the same tables send nothing; tables of a
// fabric with a cable gone (recomputed) send every 64-LID block in which
// some entry differs, counted here entry by entry, and SL-to-VL tables
// only where an entry differs: from the hop-indexed scheme to DFSSSP on
// the same fabric, every HCA port's (VL k for SL k instead of VL 0)
// besides the switches'.
func TestSentCountsWhatDiffers(t *testing.T) {
	f, cfg, a := routedSlimFly(t, 5)
	if blocks, sl2vl := lft.Sent(a.Tables, a.Tables); blocks != 0 || sl2vl != 0 {
		t.Fatalf("the same tables send %d blocks and %d SL2VL tables", blocks, sl2vl)
	}
	g, err := failures.Draw(f, 1, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Seed = 2
	b, err := pipeline.Run(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, sw := range b.Tables.Switches() {
		asw, _ := f.NodeByGUID(g.GUID(sw))
		x, y := a.Tables.LFT(asw), b.Tables.LFT(sw)
		seen := map[int]bool{}
		for lid := range y {
			if lid >= len(x) || x[lid] != y[lid] {
				seen[lid/64] = true
			}
		}
		want += len(seen)
	}
	blocks, _ := lft.Sent(a.Tables, b.Tables)
	if blocks != want || want == 0 {
		t.Fatalf("Sent says %d blocks, the tables differ in %d", blocks, want)
	}
	cfg.Seed, cfg.Deadlock = 1, "dfsssp"
	d, err := pipeline.Run(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, hops := lft.Sent(a.Tables, a.Tables)
	_, all := lft.Sent(a.Tables, d.Tables)
	_, switches := lft.Sent(a.Tables, lft.WithoutCASL2VL(d.Tables))
	if hcas := len(f.IDsOf(fabric.HCA)); hops != 0 || all-switches != hcas {
		t.Fatalf("from hops to DFSSSP: %d SL2VL tables, %d without the HCAs'; want %d HCA ports' among them", all, switches, hcas)
	}
}

// TestChangedCountsEntriesAndPathSLs: Changed agrees, in both directions,
// with a count made here through the tables' public accessors, between
// the q = 4 and 5 Slim Flies' routing and routings of drawn fabrics with
// cables and switches gone (so that one side lacks switches, ports and
// LIDs the other has), another seed or another deadlock scheme; the same
// tables change nothing.
func TestChangedCountsEntriesAndPathSLs(t *testing.T) {
	for _, q := range []int{4, 5} {
		f, cfg, a := routedSlimFly(t, q)
		if e, s := lft.Changed(a.Tables, a.Tables); e != 0 || s != 0 {
			t.Fatalf("q=%d: the same tables change %d entries and %d path SLs", q, e, s)
		}
		for seed := uint64(1); seed <= 4; seed++ {
			g, err := failures.Draw(f, int(seed%3), int(seed%2), seed)
			if err != nil {
				t.Fatal(err)
			}
			c := cfg
			c.Seed = 1 + seed%2
			if seed == 4 {
				c.Deadlock = "dfsssp"
			}
			b, err := pipeline.Run(g, c)
			if err != nil {
				t.Fatal(err)
			}
			for _, pair := range [][2]*lft.Tables{{a.Tables, b.Tables}, {b.Tables, a.Tables}} {
				e, s := lft.Changed(pair[0], pair[1])
				we, ws := countChanges(pair[0], pair[1])
				if e != we || s != ws || we == 0 || ws == 0 {
					t.Errorf("q=%d seed %d: Changed says %d entries and %d path SLs, counted %d and %d", q, seed, e, s, we, ws)
				}
			}
		}
	}
}

// countChanges counts the LFT entries of b's switches and the path SLs
// of b's HCA ports (to every LID of b's plan) that differ from a's,
// nodes matched by GUID: a switch or port a lacks has drops and SL 0.
func countChanges(a, b *lft.Tables) (entries, pathSLs int) {
	fa, fb := a.Fabric(), b.Fabric()
	for _, sw := range b.Switches() {
		var x []uint8
		if id, ok := fa.NodeByGUID(fb.GUID(sw)); ok {
			x = a.LFT(id)
		}
		y := b.LFT(sw)
		for lid := 1; lid < max(len(x), len(y)); lid++ {
			ex, ey := uint8(lft.Drop), uint8(lft.Drop)
			if lid < len(x) {
				ex = x[lid]
			}
			if lid < len(y) {
				ey = y[lid]
			}
			if ex != ey {
				entries++
			}
		}
	}
	for _, src := range b.LIDs().Ports() {
		if src.Port.Port == 0 {
			continue
		}
		asrc := fabric.PortRef{Node: -1, Port: src.Port.Port}
		if id, ok := fa.NodeByGUID(fb.GUID(src.Port.Node)); ok {
			asrc.Node = id
		}
		for _, dst := range b.LIDs().Ports() {
			for lid := dst.Base; lid <= dst.Top(); lid++ {
				if a.PathSL(asrc, lid) != b.PathSL(src.Port, lid) {
					pathSLs++
				}
			}
		}
	}
	return entries, pathSLs
}

// routedSlimFly routes the Slim Fly of q with 4 layers on 8 VLs, seed 1.
func routedSlimFly(t *testing.T, q int) (*fabric.Fabric, pipeline.Config, *pipeline.Result) {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: q})
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.Config{Layers: 4, VLs: 8, Seed: 1, LMC: -1, Workers: 2}
	a, err := pipeline.Run(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f, cfg, a
}
