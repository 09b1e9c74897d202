package pipeline

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"slimroute/analysis"
	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/hyperx"
	"slimroute/internal/disguise"
	"slimroute/internal/failures"
	"slimroute/internal/hcavl"
	"slimroute/lft"
	"slimroute/polarfly"
	"slimroute/slimfly"
	"slimroute/verify"
)

// damaged is a generated Slim Fly in service: some switch-to-switch
// cables and some hosts missing.
type damaged struct {
	q, switches, cables, hosts int
	seed                       uint64
}

func (d damaged) String() string {
	return fmt.Sprintf("q=%d/%d switches/%d cables/%d hosts/seed %d", d.q, d.switches, d.cables, d.hosts, d.seed)
}

// build draws d's fabric, its nodes listed in a random order (the
// routing sees them in GUID order, as the command line and the plugin
// give them).
func (d damaged) build(t testing.TB) *fabric.Fabric {
	t.Helper()
	sf, err := slimfly.Build(slimfly.Params{Q: d.q})
	if err != nil {
		t.Fatal(err)
	}
	f, err := failures.Draw(sf, d.cables, d.switches, d.seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(d.seed, 0x4057))
	hcas := f.IDsOf(fabric.HCA)
	var gone []fabric.NodeID
	for _, i := range rng.Perm(len(hcas))[:d.hosts] {
		gone = append(gone, hcas[i])
	}
	if f, err = f.Without(gone, nil); err != nil {
		t.Fatal(err)
	}
	if f, err = disguise.Shuffled(f, rng); err != nil {
		t.Fatal(err)
	}
	if f, err = f.Canonical(); err != nil {
		t.Fatal(err)
	}
	return f
}

// draws generates damaged Slim Flies: q = 7, 8 and 9, a switch missing
// in every third, up to 1 % of the cables (maxMissing) and up to 6 hosts,
// something missing in each.
func draws(n int) []damaged {
	rng := rand.New(rand.NewPCG(3, 0xda))
	var out []damaged
	for i := range n {
		q := []int{7, 8, 9}[i%3]
		cables := q * q * (3*q + 1) / 2 // about the design's cables
		d := damaged{q: q, switches: min(1, i%4/3), cables: rng.IntN(cables*maxMissing/1000 + 1), hosts: rng.IntN(7), seed: uint64(i + 1)}
		if d.switches+d.cables+d.hosts == 0 {
			d.cables = 1
		}
		out = append(out, d)
	}
	return out
}

// TestSlimFliesInServiceRouteAsTheirDesign: generated Slim Flies with
// cables and hosts missing (draws) are routed as their design and
// repaired: Run says so, with as many cables and hosts added as were
// taken; the tables pass the verifier (run here again, on the tables
// alone) on 4 VLs, give every LID of the fabric and no other, and the
// HCAs' SL2VL tables match the switches'; the same fabric listed in
// another order gives the same bytes.
func TestSlimFliesInServiceRouteAsTheirDesign(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 4
	}
	for _, d := range draws(n) {
		t.Run(d.String(), func(t *testing.T) {
			f := d.build(t)
			cfg := Config{Layers: 4, VLs: 4, Seed: 1, LMC: -1, Workers: 2}
			res, err := Run(f, cfg)
			if err != nil {
				t.Fatal(err)
			}
			c := res.Completed
			if c == nil {
				t.Fatal("routed in full, not as its design")
			}
			if c.Switches != d.switches || c.Cables != d.cables || c.HCAs < d.hosts {
				t.Fatalf("%v: added %d switches, %d cables and %d HCAs", d, c.Switches, c.Cables, c.HCAs)
			}
			rep, err := verify.Check(res.Tables, 1)
			if err != nil || !rep.Acyclic() || rep.VLs > 4 {
				t.Fatalf("verifier: %v, acyclic %v, %d VLs", err, rep != nil && rep.Acyclic(), rep.VLs)
			}
			if m := hcavl.Mismatch(res.Tables, 4); m != "" {
				t.Fatal(m)
			}
			want, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Tables.LIDs(); fmt.Sprint(got.Ports()) != fmt.Sprint(want.Ports()) {
				t.Fatalf("the tables' LIDs are not the fabric's:\n%v\n%v", got.Ports(), want.Ports())
			}
			again, err := Run(d.build(t), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := tablesText(t, res.Tables), tablesText(t, again.Tables); !bytes.Equal(a, b) {
				t.Fatal("the same fabric listed in another order was routed otherwise")
			}
		})
	}
}

// tablesText is the LFTs, path SLs and SL2VL tables of t as route
// writes them.
func tablesText(t *testing.T, tab *lft.Tables) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := lft.WriteOpenSMLFTs(&b, tab, 2); err != nil {
		t.Fatal(err)
	}
	if err := lft.WritePathSL(&b, tab, 2); err != nil {
		t.Fatal(err)
	}
	if err := lft.WriteSL2VL(&b, tab); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDesignRoutingKeepsTheQuality: on Slim Fly q = 7 and 9 with a few
// cables missing, up to the most routed as the design (seeded draws),
// the tables made as the design and repaired leave at most 1 point fewer
// pairs with three disjoint paths than routing the damaged fabric itself,
// which takes 10 to 30 times as long (the bound the issue sets a repair
// against a full recompute).
func TestDesignRoutingKeepsTheQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("routes damaged Slim Flies in full: seconds each")
	}
	cfg := Config{Layers: 4, VLs: 4, Seed: 1, LMC: -1, Workers: 2}
	for _, c := range []struct{ q, cables, switches int }{{7, 1, 0}, {7, 5, 0}, {7, 0, 1}, {9, 2, 0}, {9, 10, 0}} {
		sf, err := slimfly.Build(slimfly.Params{Q: c.q})
		if err != nil {
			t.Fatal(err)
		}
		cables := c.cables
		f, err := failures.Draw(sf, cables, c.switches, uint64(cables+1))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(f, cfg)
		if err != nil || res.Completed == nil {
			t.Fatalf("%d cables: %v, completed %v", cables, err, res != nil && res.Completed != nil)
		}
		lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: 2})
		if err != nil {
			t.Fatal(err)
		}
		full, err := route(f, lids, cfg, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		a, b := disjoint3(t, res.Tables), disjoint3(t, full.Tables)
		t.Logf("q=%d, %d switches and %d cables missing: as the design %.2f %%, in full %.2f %% of pairs with ≥ 3 disjoint paths", c.q, c.switches, cables, a, b)
		if a < b-1 {
			t.Errorf("q=%d, %d switches and %d cables missing: %.2f %% against %.2f %% routed in full", c.q, c.switches, cables, a, b)
		}
	}
}

func disjoint3(t *testing.T, tab *lft.Tables) float64 {
	t.Helper()
	rep, err := analysis.Analyze(tab, analysis.Options{Permutations: 1, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return 100 * float64(rep.Disjoint[3]) / float64(rep.Pairs)
}

// TestWhatIsNotRoutedAsItsDesign: an intact Slim Fly (its layers see the
// symmetry), one of q = 5, ones with more than maxMissing of its cables
// or more than maxSwitches of its switches gone, and a damaged one under the dfsssp
// scheme (which a repair does not keep deadlock-free) are routed in full;
// so are a Clos, a PolarFly and a HyperX of three dimensions less a cable,
// and a clique of switches (a HyperX of one dimension) less a host.
func TestWhatIsNotRoutedAsItsDesign(t *testing.T) {
	build := func(q, cables, switches int) *fabric.Fabric {
		sf, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		f, err := failures.Draw(sf, cables, switches, 1)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	drawn := func(f *fabric.Fabric, err error) *fabric.Fabric { // f less a cable
		if err != nil {
			t.Fatal(err)
		}
		g, err := failures.Draw(f, 1, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	lessAHost := func(f *fabric.Fabric, err error) *fabric.Fabric {
		if err != nil {
			t.Fatal(err)
		}
		g, err := f.Without(f.IDsOf(fabric.HCA)[:1], nil)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for _, c := range []struct {
		name   string
		f      *fabric.Fabric
		scheme string
	}{
		{"intact q=7", build(7, 0, 0), "auto"},
		{"q=5 less a cable", build(5, 1, 0), "auto"},
		{"q=7 less two switches", build(7, 0, 2), "auto"},
		{"q=7 less 1.1 % of its cables", build(7, 6, 0), "auto"},
		{"q=7 less a cable, dfsssp", build(7, 1, 0), "dfsssp"},
		{"a two-level Clos less a cable", drawn(clos.Build(clos.Params{Levels: 2, Radix: 12})), "auto"},
		{"PolarFly q=7 less a cable", drawn(polarfly.Build(polarfly.Params{Q: 7})), "auto"},
		{"a HyperX 4×4×4 less a cable", drawn(hyperx.Build(hyperx.Params{Dims: []int{4, 4, 4}})), "auto"},
		{"a clique of 5 switches less a host", lessAHost(hyperx.Build(hyperx.Params{Dims: []int{5}})), "auto"},
	} {
		if g, _ := completed(c.f); g != nil && c.scheme == "auto" {
			t.Errorf("%s: completed", c.name)
		}
		if c.scheme == "dfsssp" {
			res := runCompleted(c.f, nil, Config{Deadlock: c.scheme}, func(string) {})
			if res != nil {
				t.Errorf("%s: routed as its design", c.name)
			}
		}
	}
}

// TestHyperXInServiceRoutesAsItsDesign: HyperX of two dimensions with
// cables and hosts missing (seeded) are routed as their grid and
// repaired: on 4 VLs, verified, with the fabric's LIDs, the same bytes in
// another order; on the 12 × 8 the pairs with three disjoint paths stay
// within a point of routing the damaged fabric as it is. (The 16 × 16
// less a cable routed as it is needs DFSSSP on 8 VLs and 25 s.)
func TestHyperXInServiceRoutesAsItsDesign(t *testing.T) {
	for _, c := range []struct {
		dims          []int
		endpoints     int
		cables, hosts int
		compare       bool
	}{{[]int{12, 8}, 7, 2, 3, true}, {[]int{16, 16}, 0, 5, 2, false}} {
		name := fmt.Sprintf("%v less %d cables and %d hosts", c.dims, c.cables, c.hosts)
		build := func(seed uint64) *fabric.Fabric {
			hx, err := hyperx.Build(hyperx.Params{Dims: c.dims, Endpoints: c.endpoints})
			if err != nil {
				t.Fatal(err)
			}
			f, err := failures.Draw(hx, c.cables, 0, 5)
			if err != nil {
				t.Fatal(err)
			}
			return lessHostsListedOtherwise(t, f, c.hosts, seed)
		}
		f := build(1)
		cfg := Config{Layers: 4, VLs: 4, Seed: 1, LMC: -1, Workers: 2}
		res, err := Run(f, cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Completed == nil || res.Completed.Cables != c.cables || res.Completed.HCAs < c.hosts {
			t.Fatalf("%s: completed %+v", name, res.Completed)
		}
		if rep, err := verify.Check(res.Tables, 1); err != nil || !rep.Acyclic() || rep.VLs > 4 {
			t.Fatalf("%s: verifier %v", name, err)
		}
		checkLIDsAndOrder(t, name, f, res, build(2), cfg)
		if c.compare {
			lids, _ := lft.AssignLIDs(f, lft.LIDOptions{LMC: 2})
			full, err := route(f, lids, cfg, func(string) {})
			if err != nil {
				t.Fatal(err)
			}
			a, b := disjoint3(t, res.Tables), disjoint3(t, full.Tables)
			t.Logf("%s: as the design %.2f %%, as it is %.2f %% of pairs with ≥ 3 disjoint paths", name, a, b)
			if a < b-1 {
				t.Errorf("%s: %.2f %% against %.2f %%", name, a, b)
			}
		}
	}
}

// lessHostsListedOtherwise returns f less its first hosts HCAs, listed in
// the order seed draws (disguise.Shuffled) and read as a discovery is
// (Canonical).
func lessHostsListedOtherwise(t *testing.T, f *fabric.Fabric, hosts int, seed uint64) *fabric.Fabric {
	t.Helper()
	f, err := f.Without(f.IDsOf(fabric.HCA)[:hosts], nil)
	if err != nil {
		t.Fatal(err)
	}
	if f, err = disguise.Shuffled(f, rand.New(rand.NewPCG(seed, 1))); err != nil {
		t.Fatal(err)
	}
	if f, err = f.Canonical(); err != nil {
		t.Fatal(err)
	}
	return f
}

// checkLIDsAndOrder checks that res, routed from f, has f's own LIDs and
// the same tables as routing other (f listed in another order) with cfg,
// and returns f's LIDs.
func checkLIDsAndOrder(t *testing.T, name string, f *fabric.Fabric, res *Result, other *fabric.Fabric, cfg Config) *lft.LIDs {
	t.Helper()
	want, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: 2})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Tables.LIDs().Ports()) != fmt.Sprint(want.Ports()) {
		t.Fatalf("%s: the tables' LIDs are not the fabric's", name)
	}
	again, err := Run(other, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tablesText(t, res.Tables), tablesText(t, again.Tables)) {
		t.Fatalf("%s: listed in another order, routed otherwise", name)
	}
	return want
}
