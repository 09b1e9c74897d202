package lft_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
)

// TestLIDsFromTheFabricNameWhatIsWrong draws fabrics (1..30 switches,
// 1..200 HCA ports), records an SM's LID plan at LMC 0..3 in their
// descriptions and reads it back (FromFabric): the same LIDs. Then it
// damages one HCA port's LID — off its LMC's alignment, or onto another
// port's range — and expects a FabricLIDsError naming the port (both
// ports for a shared LID) and, for alignment, the LMC and how to get LIDs
// that fit.
func TestLIDsFromTheFabricNameWhatIsWrong(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 0))
	for i := 0; i < 100; i++ {
		S, H, lmc := 1+rng.IntN(30), 1+rng.IntN(200), rng.IntN(4)
		plain := switchesWithHCAs(t, S, H)
		plan, err := lft.AssignLIDs(plain, lft.LIDOptions{LMC: lmc})
		if err != nil {
			t.Fatal(err)
		}
		ports := plan.Ports()
		back, err := lft.AssignLIDs(recorded(t, plain, ports), lft.LIDOptions{LMC: lmc, FromFabric: true})
		if err != nil {
			t.Fatalf("case %d: the recorded plan: %v", i, err)
		}
		for _, p := range ports {
			if q, ok := back.Of(p.Port); !ok || q != p {
				t.Fatalf("case %d: %+v read back as %+v", i, p, q)
			}
		}
		k := S + rng.IntN(H) // an HCA port
		damaged := append([]lft.PortLIDs(nil), ports...)
		var want []string
		if other := S + rng.IntN(H); rng.IntN(2) == 0 && lmc > 0 {
			damaged[k].Base++
			want = []string{plain.PortString(ports[k].Port), fmt.Sprintf("not aligned to LMC %d", lmc), fmt.Sprintf("-l %d", lmc)}
		} else if other != k {
			damaged[k].Base = ports[other].Base
			want = []string{plain.PortString(ports[k].Port), plain.PortString(ports[other].Port), "held by both"}
		} else {
			continue
		}
		_, err = lft.AssignLIDs(recorded(t, plain, damaged), lft.LIDOptions{LMC: lmc, FromFabric: true})
		var fe *lft.FabricLIDsError
		if !errors.As(err, &fe) {
			t.Fatalf("case %d: damaged LIDs: %v", i, err)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Fatalf("case %d: %v\n  does not say %q", i, err, w)
			}
		}
	}
}

// recorded returns f with the LID plan ports in its descriptions.
func recorded(t *testing.T, f *fabric.Fabric, ports []lft.PortLIDs) *fabric.Fabric {
	t.Helper()
	g, err := lft.RecordLIDs(f, ports)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
