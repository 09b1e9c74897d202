package lft_test

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/pipeline"
)

// TestKeptLIDsStayAndNewPortsTakeTheLowestFree: generated chains of
// fabrics drawn from one set of switches and HCAs (some of each gone at
// every step, others back), each step's LIDs assigned keeping the LIDs in
// force — every port's so far, by port GUID, as OpenSM's guid2lid cache
// grows — at the LMC in force or, now and then, another one. Judged port
// by port against the cache: a port it holds keeps its LIDs (an HCA port
// only at the same LMC), no LID is held twice nor one the cache reserves
// for a port gone, every block is aligned and below the limit, and every
// other port, in AssignLIDs' order, holds the lowest aligned block free at
// its turn.
func TestKeptLIDsStayAndNewPortsTakeTheLowestFree(t *testing.T) {
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 7))
		all := switchesWithHCAs(t, 1+rng.IntN(10), rng.IntN(50))
		lmc := rng.IntN(4)
		var cache lft.LIDCache
		for step := range 4 {
			f := drawSubFabric(t, all, rng)
			opts := lft.LIDOptions{LMC: lmc, Keep: cache}
			if step > 0 && rng.IntN(4) == 0 {
				opts.LMC = rng.IntN(4)
			}
			lids, err := lft.AssignLIDs(f, opts)
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			if cache != nil {
				judgeKept(t, f, lids, cache, opts.LMC, lft.MaxUnicastLID)
			}
			cache, lmc = cacheOf(f, lids, cache), opts.LMC
		}
	}
}

// drawSubFabric returns all without a random share of its HCAs and of its
// last switches (with their HCAs).
func drawSubFabric(t *testing.T, all *fabric.Fabric, rng *rand.Rand) *fabric.Fabric {
	t.Helper()
	sws := all.IDsOf(fabric.Switch)
	keepSw := 1 + rng.IntN(len(sws))
	var drop []fabric.NodeID
	drop = append(drop, sws[keepSw:]...)
	share := rng.Float64()
	for _, id := range all.IDsOf(fabric.HCA) {
		if rng.Float64() < share/2 {
			drop = append(drop, id)
		}
	}
	f, err := all.Without(drop, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// cacheOf is cache with the LIDs of lids, a plan of f, by port GUID: the
// guid2lid cache after a sweep.
func cacheOf(f *fabric.Fabric, lids *lft.LIDs, cache lft.LIDCache) lft.LIDCache {
	out := lft.LIDCache{}
	for g, r := range cache {
		out[g] = r
	}
	for _, p := range lids.Ports() {
		out[f.PortGUID(p.Port)] = [2]lft.LID{p.Base, p.Top()}
	}
	return out
}

// judgeKept checks lids, of fabric f, against the LIDs in force (cache)
// as TestKeptLIDsStayAndNewPortsTakeTheLowestFree says.
func judgeKept(t *testing.T, f *fabric.Fabric, lids *lft.LIDs, cache lft.LIDCache, lmc int, limit lft.LID) {
	t.Helper()
	held := map[lft.LID]string{}
	mine := map[fabric.GUID]bool{}
	for _, p := range lids.Ports() {
		mine[f.PortGUID(p.Port)] = true
	}
	for g, r := range cache { // the ports gone keep theirs reserved
		if size := int(r[1]-r[0]) + 1; !mine[g] && r[1] <= limit && r[0]%lft.LID(size) == 0 && (size == 1 || size == 1<<lmc) {
			for l := r[0]; l <= r[1]; l++ {
				held[l] = fmt.Sprintf("port GUID %s, gone", g)
			}
		}
	}
	hold := func(p lft.PortLIDs) {
		if p.Base == 0 || p.Base%(1<<p.LMC) != 0 || p.Top() > limit {
			t.Fatalf("%s: LIDs 0x%x–0x%x (LMC %d) not an aligned block of usable LIDs", f.PortString(p.Port), p.Base, p.Top(), p.LMC)
		}
		for l := p.Base; l <= p.Top(); l++ {
			if o, ok := held[l]; ok {
				t.Fatalf("LID 0x%x held by %s and %s", l, o, f.PortString(p.Port))
			}
			held[l] = f.PortString(p.Port)
		}
	}
	var fresh []lft.PortLIDs
	for _, p := range lids.Ports() {
		want := uint8(lmc)
		if p.Port.Port == 0 {
			want = 0
		}
		if p.LMC != want {
			t.Fatalf("%s: LMC %d, want %d", f.PortString(p.Port), p.LMC, want)
		}
		if r, ok := cache[f.PortGUID(p.Port)]; ok && r[1]-r[0] == 1<<want-1 && r[1] <= limit {
			if r[0] != p.Base {
				t.Fatalf("%s: LIDs 0x%x–0x%x, not the 0x%x–0x%x in force", f.PortString(p.Port), p.Base, p.Top(), r[0], r[1])
			}
			hold(p)
			continue
		}
		fresh = append(fresh, p)
	}
	for _, p := range fresh {
		step := lft.LID(1) << p.LMC
		for b := step; b < p.Base; b += step {
			free := true
			for l := b; l < b+step; l++ {
				_, taken := held[l]
				free = free && !taken
			}
			if free {
				t.Fatalf("%s: LIDs 0x%x–0x%x where 0x%x–0x%x was free", f.PortString(p.Port), p.Base, p.Top(), b, b+step-1)
			}
		}
		hold(p)
	}
}

// TestKeptLIDsBeyondTheTablesMove: LIDs in force beyond smaller tables give
// way for the ports beyond them, and a fabric that cannot fit beside the
// LIDs kept and reserved is refused naming a port, with advice.
func TestKeptLIDsBeyondTheTablesMove(t *testing.T) {
	all := switchesWithHCAs(t, 4, 12)
	lids, err := lft.AssignLIDs(all, lft.LIDOptions{LMC: 2})
	if err != nil {
		t.Fatal(err)
	}
	keep := cacheOf(all, lids, nil)
	less, err := all.Without(all.IDsOf(fabric.HCA)[:1], nil)
	if err != nil {
		t.Fatal(err)
	}
	// the first HCA is gone and its block stays reserved: the last HCA's,
	// beyond smaller tables, has no free block to move to
	if _, err := lft.AssignLIDs(less, lft.LIDOptions{LMC: 2, LFTCap: int(lids.Top()) - 3, Keep: keep}); err == nil || !strings.Contains(err.Error(), `"h`) || !strings.Contains(err.Error(), "smaller LMC") {
		t.Errorf("tables too small beside the kept LIDs: %v", err)
	}
	// without the gone HCA in the cache, its block is free for the last
	delete(keep, all.PortGUID(fabric.PortRef{Node: all.IDsOf(fabric.HCA)[0], Port: 1}))
	small, err := lft.AssignLIDs(less, lft.LIDOptions{LMC: 2, LFTCap: int(lids.Top()) - 3, Keep: keep})
	if err != nil {
		t.Fatal(err)
	}
	judgeKept(t, less, small, keep, 2, lids.Top()-4)
	if small.Top() >= lids.Top() {
		t.Errorf("the last HCA port kept LIDs up to 0x%x beyond the tables", small.Top())
	}
}

// TestGUID2LIDReadsBackAsTheTablesLIDs: the cache WriteGUID2LID writes
// reads back as CacheOf the same tables; a malformed cache is refused at
// its line.
func TestGUID2LIDReadsBackAsTheTablesLIDs(t *testing.T) {
	f := switchesWithHCAs(t, 3, 7)
	res, err := pipeline.Run(f, pipeline.Config{Layers: 4, VLs: 4, Seed: 1, LMC: -1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := lft.WriteGUID2LID(&b, res.Tables); err != nil {
		t.Fatal(err)
	}
	got, err := lft.ReadGUID2LID(strings.NewReader(b.String()), "guid2lid")
	if err != nil {
		t.Fatal(err)
	}
	if want := lft.CacheOf(res.Tables); !maps.Equal(got, want) {
		t.Fatalf("read %v, want %v", got, want)
	}
	for _, c := range []struct{ text, want string }{
		{"0x1 0x0001 0x0001\n\n0x2 0x0002\n", "2 fields"},
		{"0xzz 0x0001 0x0001\n", "port GUID"},
		{"0x1 0x0001 0x0001\n0x1 0x0004 0x0007\n", "listed twice"},
		{"0x1 0x0004 0x0007\n\n0x2 0x0006 0x0006\n", "port 0x0000000000000001's too"},
		{"0x1 0x0000 0x0003\n", "unicast LID"},
		{"0x1 0xc000 0xc003\n", "unicast LID"},
		{"0x1 0x0007 0x0004\n", "below the min"},
	} {
		_, err := lft.ReadGUID2LID(strings.NewReader(c.text), "cache")
		var pe *fabric.ParseError
		if !errors.As(err, &pe) || pe.File != "cache" || pe.Line == 0 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a ParseError with %q", c.text, err, c.want)
		}
	}
}
