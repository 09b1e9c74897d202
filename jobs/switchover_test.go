package jobs_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"slimroute/analysis"
	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/jobs"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
	"slimroute/transition"
)

// TestJobFileChangesSwitchOverSafely: on Slim Fly q = 5 and 7, and q = 5
// less a cable (routes of four hops, the four-hop VL rule on), over drawn
// pairs of job mixes (drawMix, scattered and compact, every pattern), the
// routing for the first mix in force, the routing for the second made
// from it (pipeline.Config.SwitchOverFrom) is judged by package
// transition — every mix of the two sets of LFT entries, path SLs and
// SL-to-VL tables while the switches are programmed and hosts keep old
// path records — free of loops, dead ends and credit loops; it changes no
// SL-to-VL table and no path SL, and LFT entries only toward the hosts of
// the two mixes; a third mix routed from it switches over safely too,
// with the path SLs of the first routing still unchanged; it keeps the pairs with three disjoint paths within a
// point of the routing without jobs, and no job of the second mix has a
// higher contention factor than under the first mix's routing. The
// second mix's mean factor under the routing without jobs, the first
// mix's, the switch-over and a full recompute for it, and how many of
// the full recomputes' switch-overs transition finds unsafe, are logged.
// A routing in force of another fabric is not started from.
func TestJobFileChangesSwitchOverSafely(t *testing.T) {
	draws := 6
	if testing.Short() {
		draws = 2
	}
	cfg := pipeline.Config{Layers: 4, Deadlock: "auto", Seed: 1, LMC: -1, Workers: 2}
	var other *pipeline.Result // a routing in force of another fabric
	for _, fc := range []struct{ q, cables int }{{5, 0}, {7, 0}, {5, 1}} {
		q := fc.q
		f, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		if fc.cables > 0 { // four-hop routes between the cable's ends: the four-hop rule on
			if f, err = failures.Draw(f, fc.cables, 0, 1); err != nil {
				t.Fatal(err)
			}
		}
		base, err := pipeline.Run(f, cfg)
		if err != nil {
			t.Fatal(err)
		}
		hosts := hostNames(f)
		pats := []string{"ring", "tree", "all-to-all", "neighbours"}
		if other != nil {
			c := cfg
			c.SwitchOverFrom = other
			if res := routeFor(t, f, c, drawMix(rand.New(rand.NewPCG(9, 9)), hosts, true, pats, false)); res.SwitchOver {
				t.Fatalf("q=%d less %d cables: routed from the routing of another fabric", q, fc.cables)
			}
		}
		other = base
		var sum [4]float64 // mean factors: without jobs, first mix's routing, switch-over, full recompute
		n, unsafe, moved := 0, 0, 0
		for draw := range draws {
			rng := rand.New(rand.NewPCG(uint64(draw), 30))
			first, second := drawMix(rng, hosts, draw%2 == 0, pats, draw%3 == 0), drawMix(rng, hosts, draw%2 == 1, pats, draw%3 == 1)
			name := fmt.Sprintf("q=%d less %d cables, draw %d", q, fc.cables, draw)
			was := routeFor(t, f, cfg, first)
			c := cfg
			c.SwitchOverFrom = was
			now := routeFor(t, f, c, second)
			if !now.SwitchOver {
				t.Fatalf("%s: the routing was not made from the one in force", name)
			}
			rep, err := transition.Check(was.Tables, now.Tables)
			if err != nil || !rep.Safe() {
				t.Fatalf("%s: the switch-over is not safe: %v\n%s", name, err, rep)
			}
			checkOnlyTowardJobs(t, name, was.Tables, now.Tables, append(first, second...))
			entries, _ := lft.Changed(was.Tables, now.Tables)
			moved += entries
			// and a third mix from there: SLs that never change keep a
			// host on a connection from the first routing safe too
			c.SwitchOverFrom = now
			third := drawMix(rng, hosts, draw%2 == 0, pats, false)
			then := routeFor(t, f, c, third)
			if rep, err := transition.Check(now.Tables, then.Tables); err != nil || !then.SwitchOver || !rep.Safe() {
				t.Fatalf("%s: the second switch-over (from the first %v) is not safe: %v\n%s", name, then.SwitchOver, err, rep)
			}
			checkOnlyTowardJobs(t, name+", the second switch-over", was.Tables, then.Tables, append(append(first, second...), third...))
			if share(t, now) < share(t, base)-1 {
				t.Errorf("%s: %.2f %% of the pairs have three disjoint paths, %.2f %% without jobs", name, share(t, now), share(t, base))
			}
			full := routeFor(t, f, cfg, second)
			if rep, err := transition.Check(was.Tables, full.Tables); err != nil || !rep.Safe() {
				unsafe++
			}
			var reps [4]*jobs.Report
			for i, r := range []*pipeline.Result{base, was, now, full} {
				if reps[i], err = jobs.Analyze(r.Tables, second, "jobs"); err != nil {
					t.Fatal(err)
				}
			}
			for i, j := range reps[2].Jobs {
				if j.Factor > reps[1].Jobs[i].Factor*(1+1e-3) {
					t.Errorf("%s, job %s: contention factor %.4f after the switch-over, %.4f under the first mix's routing", name, j.ID, j.Factor, reps[1].Jobs[i].Factor)
				}
				for k := range reps {
					sum[k] += reps[k].Jobs[i].Factor
				}
				n++
			}
		}
		t.Logf("q=%d less %d cables, %d pairs of mixes: the second mix's mean contention factor %.3f without jobs, %.3f under the first mix's routing, %.3f after the switch-over, %.3f after a full recompute (whose switch-over transition judged unsafe %d times); the switch-overs changed %d LFT entries",
			q, fc.cables, draws, sum[0]/float64(n), sum[1]/float64(n), sum[2]/float64(n), sum[3]/float64(n), unsafe, moved)
	}
}

// routeFor runs cfg on f for the traffic of js.
func routeFor(t *testing.T, f *fabric.Fabric, cfg pipeline.Config, js []jobs.Job) *pipeline.Result {
	t.Helper()
	tr, err := jobs.Traffic(f, js, "jobs")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Traffic = tr
	res, err := pipeline.Run(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// share is the percentage of pairs with three disjoint paths (package
// analysis).
func share(t *testing.T, r *pipeline.Result) float64 {
	t.Helper()
	rep, err := analysis.Analyze(r.Tables, analysis.Options{Permutations: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return 100 * float64(rep.Disjoint[3]) / float64(rep.Pairs)
}

// checkOnlyTowardJobs fails unless b differs from a in no SL-to-VL table
// and no path SL, and in LFT entries only toward LIDs of the hosts of js.
func checkOnlyTowardJobs(t *testing.T, name string, a, b *lft.Tables, js []jobs.Job) {
	t.Helper()
	if _, sl2vl := lft.Sent(a, b); sl2vl != 0 {
		t.Fatalf("%s: %d SL-to-VL tables change", name, sl2vl)
	}
	f := b.Fabric()
	ofJobs := map[lft.LID]bool{}
	for _, j := range js {
		for _, h := range j.Hosts {
			id, ok := f.NodeByName(h)
			if !ok {
				t.Fatalf("%s: no host %s", name, h)
			}
			if pl, ok := b.LIDs().Of(fabric.PortRef{Node: id, Port: 1}); ok {
				for l := pl.Base; l <= pl.Top(); l++ {
					ofJobs[l] = true
				}
			}
		}
	}
	for _, src := range b.LIDs().Ports() {
		if src.Port.Port == 0 {
			continue
		}
		for _, dst := range b.LIDs().Ports() {
			for l := dst.Base; l <= dst.Top(); l++ {
				if a.PathSL(src.Port, l) != b.PathSL(src.Port, l) {
					t.Fatalf("%s: the path SL from %s to LID %d changes", name, f.PortString(src.Port), l)
				}
			}
		}
	}
	for _, sw := range b.Switches() {
		x, y := a.LFT(sw), b.LFT(sw)
		for l := range y {
			if x[l] != y[l] && !ofJobs[lft.LID(l)] {
				t.Fatalf("%s: %s's entry for LID %d changes, no job's host holds it", name, f.Name(sw), l)
			}
		}
	}
}
