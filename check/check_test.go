package check

import (
	"bytes"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

// TestCheckGivesOneVerdict judges the tables of a q = 5 Slim Fly routed on
// the defaults (hop-indexed VLs): no problem as routed; a problem for each
// part that is not — too few VLs offered, the path SLs left at 0 (a
// credit loop), the wiring against a plan with two cables exchanged.
func TestCheckGivesOneVerdict(t *testing.T) {
	f, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(f, pipeline.Config{LMC: -1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	base := Input{Found: res.Tables, Plan: f, VLs: 8, Permutations: 2}
	if r := Check(base, 2); !r.OK || r.Quality == nil || r.Quality.ThreeDisjoint == 0 || r.Wiring == nil || !r.Wiring.Clean() {
		t.Fatalf("as routed: %+v", r)
	}
	fewVLs := base
	fewVLs.VLs = res.Assignment.VLs - 1
	sl0 := base
	var lfts bytes.Buffer
	if err := lft.WriteOpenSMLFTs(&lfts, res.Tables, 2); err != nil {
		t.Fatal(err)
	}
	if sl0.Found, err = lft.ReadOpenSMLFTs(&lfts, "lfts", f); err != nil {
		t.Fatal(err)
	}
	moved := base
	moved.Plan = exchanged(t, f)
	// the SA's answers: as the path SLs say, and one SL off
	var agree, differ []PathRecord
	for _, p := range res.Tables.LIDs().Ports() {
		if p.Port.Port == 0 || len(agree) == 40 {
			continue
		}
		d := res.Tables.LIDs().Top()
		sl := res.Tables.PathSL(p.Port, d)
		agree = append(agree, PathRecord{SLID: uint16(p.Base), DLID: uint16(d), SL: sl})
	}
	differ = append(differ, agree...)
	differ[0].SL ^= 1
	withSA, offSA := base, base
	withSA.SA, offSA.SA = agree, differ
	if r := Check(withSA, 2); !r.OK || r.SARecords != len(agree) || len(agree) == 0 {
		t.Errorf("the SA agreeing: ok %v, %d records, problems %q", r.OK, r.SARecords, r.Problems)
	}
	for _, c := range []struct {
		name string
		in   Input
		want string
	}{
		{"too few VLs", fewVLs, "VLs: paths take VL"},
		{"every path on SL 0", sl0, "routing: a credit loop"},
		{"two cables exchanged in the plan", moved, "wiring: "},
		{"the SA handing out another SL", offSA, "path SLs: the SA hands out other SLs than those judged in 1 of"},
	} {
		r := Check(c.in, 2)
		if r.OK || len(r.Problems) != 1 || !strings.HasPrefix(r.Problems[0], c.want) {
			t.Errorf("%s: ok %v, problems %q; want one starting %q", c.name, r.OK, r.Problems, c.want)
		}
	}
}

// exchanged returns f with the far ends of two host cables of one switch
// exchanged.
func exchanged(t *testing.T, f *fabric.Fabric) *fabric.Fabric {
	t.Helper()
	links := f.Links()
	var hosts []int
	for i, l := range links {
		if l.A.Node == 0 && f.Node(l.B.Node).Kind == fabric.HCA {
			hosts = append(hosts, i)
		}
	}
	a, b := hosts[0], hosts[1]
	links[a].B, links[b].B = links[b].B, links[a].B
	g, err := fabric.New(f.Nodes(), links)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
