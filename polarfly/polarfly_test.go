package polarfly_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/designcheck"
	"slimroute/internal/refusal"
	"slimroute/polarfly"
)

// TestEveryPolarFlyIsERq: every prime power q up to 32, with the default
// endpoints and with a drawn count and radix, builds a fabric the
// independent judge (internal/designcheck, written from the definition of
// ER_q alone) accepts: counts, degrees, the quadrics, one common
// orthogonal point per pair, diameter 2 and the naming.
func TestEveryPolarFlyIsERq(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, q := range []int{2, 3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25, 27, 29, 31, 32} {
		for _, p := range []polarfly.Params{{Q: q}, {Q: q, Endpoints: 1 + rng.IntN(8), Radix: q + 10 + rng.IntN(4)}} {
			t.Run(fmt.Sprintf("q=%d/p=%d", q, p.Endpoints), func(t *testing.T) {
				f, err := polarfly.Build(p)
				if err != nil {
					t.Fatal(err)
				}
				hosts := p.Endpoints
				if hosts == 0 {
					hosts = (q + 2) / 2
				}
				if err := designcheck.PolarFly(f, q, hosts); err != nil {
					t.Fatal(err)
				}
				checkClusters(t, f, q)
			})
		}
	}
}

// checkClusters: the racks are the design's clusters — q racks; in each,
// one centre joined to every other switch of its rack, q + 1 switches (one
// rack also holds the quadric whose neighbours are the centres).
func checkClusters(t *testing.T, f *fabric.Fabric, q int) {
	t.Helper()
	racks := map[int][]fabric.NodeID{}
	for _, sw := range f.IDsOf(fabric.Switch) {
		racks[f.Node(sw).Place.Rack] = append(racks[f.Node(sw).Place.Rack], sw)
	}
	if len(racks) != q {
		t.Fatalf("%d racks, want q = %d", len(racks), q)
	}
	for r, sws := range racks {
		if len(sws) != q+1 && len(sws) != q+2 {
			t.Fatalf("rack %d holds %d switches, want %d (or %d with the quadric)", r, len(sws), q+1, q+2)
		}
		if !hasCentre(f, sws) {
			t.Fatalf("rack %d: no switch is joined to all the others", r)
		}
	}
}

// hasCentre says whether some switch of sws is cabled to every other one,
// but at most one.
func hasCentre(f *fabric.Fabric, sws []fabric.NodeID) bool {
	in := map[fabric.NodeID]bool{}
	for _, s := range sws {
		in[s] = true
	}
	for _, c := range sws {
		n := 0
		for p := 1; p <= f.Ports(c); p++ {
			if peer, ok := f.Peer(fabric.PortRef{Node: c, Port: p}); ok && in[peer.Node] {
				n++
			}
		}
		if n >= len(sws)-2 {
			return true
		}
	}
	return false
}

var adviceEndpoints = regexp.MustCompile(`at most (\d+) endpoints per switch`)

// TestTooLargeIsRefusedBeforeAllocation: a q beyond one subnet, not a
// prime power, or too many endpoints for the radix or the LIDs is refused
// within 64 KiB, and the endpoints advised then build.
func TestTooLargeIsRefusedBeforeAllocation(t *testing.T) {
	cases := []polarfly.Params{{Q: math.MaxInt}, {Q: polarfly.MaxQ() + 1}, {Q: 1000003}, {Q: 6}, {Q: 0}, {Q: 13, Radix: 20},
		{Q: 127, Endpoints: 3}, {Q: 7, Endpoints: -1}, {Q: 7, Radix: 300}}
	refusal.Check(t, cases, func(p polarfly.Params) error { _, err := polarfly.Build(p); return err },
		refusal.Advice[polarfly.Params]{Pattern: adviceEndpoints, Follow: func(p polarfly.Params, n int) polarfly.Params { p.Endpoints = n; return p }})
	if _, err := polarfly.Build(polarfly.Params{Q: polarfly.MaxQ(), Endpoints: 1}); err != nil {
		t.Errorf("the largest q with one endpoint per switch: %v", err)
	}
}
