package lft_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
)

// TestKeptLIDsStayAndNewPortsTakeTheLowestFree: generated chains of
// fabrics drawn from one set of switches and HCAs (some of each gone at
// every step, others back), each step's LIDs assigned keeping the last
// step's plan, at the LMC in force or, now and then, another one. Judged
// port by port against the plan in force: a port in both keeps its LIDs
// (an HCA port only at the same LMC), no LID is held twice, every block is
// aligned and below the limit, and every other port, in AssignLIDs' order,
// holds the lowest aligned block free at its turn.
func TestKeptLIDsStayAndNewPortsTakeTheLowestFree(t *testing.T) {
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 7))
		all := switchesWithHCAs(t, 1+rng.IntN(10), rng.IntN(50))
		lmc := rng.IntN(4)
		prev, prevLIDs := (*fabric.Fabric)(nil), (*lft.LIDs)(nil)
		for step := range 4 {
			f := drawSubFabric(t, all, rng)
			opts := lft.LIDOptions{LMC: lmc}
			if step > 0 && rng.IntN(4) == 0 {
				opts.LMC = rng.IntN(4)
			}
			if prev != nil {
				opts.Keep = &lft.LIDPlan{Fabric: prev, LIDs: prevLIDs}
			}
			lids, err := lft.AssignLIDs(f, opts)
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			if prev != nil {
				judgeKept(t, f, lids, prev, prevLIDs, opts.LMC, lft.MaxUnicastLID)
			}
			prev, prevLIDs, lmc = f, lids, opts.LMC
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

// judgeKept checks lids, of fabric f, against the plan in force (prev,
// prevLIDs) as TestKeptLIDsStayAndNewPortsTakeTheLowestFree says.
func judgeKept(t *testing.T, f *fabric.Fabric, lids *lft.LIDs, prev *fabric.Fabric, prevLIDs *lft.LIDs, lmc int, limit lft.LID) {
	t.Helper()
	held := map[lft.LID]string{}
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
		old, ok := lft.PortLIDs{}, false
		if id, has := prev.NodeByGUID(f.GUID(p.Port.Node)); has {
			old, ok = prevLIDs.Of(fabric.PortRef{Node: id, Port: p.Port.Port})
		}
		if ok && old.LMC == want && old.Top() <= limit {
			if old.Base != p.Base {
				t.Fatalf("%s: LIDs 0x%x–0x%x, not the 0x%x–0x%x in force", f.PortString(p.Port), p.Base, p.Top(), old.Base, old.Top())
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

// TestKeptLIDsBeyondTheTablesMove: a plan in force whose LIDs do not fit
// smaller tables gives way for the ports beyond them, and a fabric that
// cannot fit beside the kept LIDs is refused naming a port, with advice.
func TestKeptLIDsBeyondTheTablesMove(t *testing.T) {
	all := switchesWithHCAs(t, 4, 12)
	lids, err := lft.AssignLIDs(all, lft.LIDOptions{LMC: 2})
	if err != nil {
		t.Fatal(err)
	}
	keep := &lft.LIDPlan{Fabric: all, LIDs: lids}
	less, err := all.Without(all.IDsOf(fabric.HCA)[:1], nil) // its block is free
	if err != nil {
		t.Fatal(err)
	}
	small, err := lft.AssignLIDs(less, lft.LIDOptions{LMC: 2, LFTCap: int(lids.Top()) - 3, Keep: keep})
	if err != nil {
		t.Fatal(err)
	}
	judgeKept(t, less, small, all, lids, 2, lids.Top()-4)
	if small.Top() >= lids.Top() {
		t.Errorf("the last HCA port kept LIDs up to 0x%x beyond the tables", small.Top())
	}
	if _, err := lft.AssignLIDs(less, lft.LIDOptions{LMC: 2, LFTCap: int(lids.Top()) - 7, Keep: keep}); err == nil || !strings.Contains(err.Error(), `"h`) || !strings.Contains(err.Error(), "smaller LMC") {
		t.Errorf("tables too small beside the kept LIDs: %v", err)
	}
}
