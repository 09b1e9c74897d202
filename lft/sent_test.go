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
	f, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.Config{Layers: 4, VLs: 8, Seed: 1, LMC: -1, Workers: 2}
	a, err := pipeline.Run(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
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
