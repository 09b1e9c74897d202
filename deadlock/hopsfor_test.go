package deadlock_test

import (
	"math/rand/v2"
	"testing"

	"slimroute/deadlock"
	"slimroute/fabric"
	"slimroute/internal/disguise"
	"slimroute/layers"
	"slimroute/slimfly"
)

// TestHopsForIsWhatAssignHopsGives makes templates of Slim Flies q = 4,
// 5 and 7, routes disguised copies with them (drawn names, GUIDs, port
// numbers and order) and requires HopsFor — the template's hop-indexed
// assignment read onto the copy — to give every route's SL and every
// (switch, in port, out port, SL) the VL that AssignHops gives the copy's
// routing. A routing the jobs' pass moved is no longer the template's:
// HopsFor refuses it.
func TestHopsForIsWhatAssignHopsGives(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	for _, q := range []int{4, 5, 7} {
		plain, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := layers.NewTemplate(plain, layers.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		of, err := deadlock.AssignHops(tmpl.Routing(), deadlock.Options{})
		if err != nil {
			t.Fatal(err)
		}
		found, err := disguise.Fabric(plain, rng)
		if err != nil {
			t.Fatal(err)
		}
		r, err := layers.Compute(found, layers.Options{Seed: 1, Template: tmpl})
		if err != nil {
			t.Fatal(err)
		}
		got, ok := deadlock.HopsFor(of, r, tmpl)
		if !ok {
			t.Fatalf("q=%d: HopsFor refuses the template's own routing", q)
		}
		want, err := deadlock.AssignHops(r, deadlock.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sameAssignment(t, q, r, got, want)
		if _, ok := deadlock.HopsFor(of, r, nil); ok {
			t.Errorf("q=%d: HopsFor takes a routing without a template", q)
		}
		moved := withJobs(t, found, tmpl, rng)
		if _, ok := deadlock.HopsFor(of, moved, tmpl); ok {
			t.Errorf("q=%d: HopsFor takes a routing the jobs' pass moved", q)
		}
	}
}

// sameAssignment compares two hop-indexed assignments of r.
func sameAssignment(t *testing.T, q int, r *layers.Routing, got, want *deadlock.Assignment) {
	t.Helper()
	if got.VLs != want.VLs || got.SLs != want.SLs {
		t.Fatalf("q=%d: %d VLs and %d SLs, AssignHops %d and %d", q, got.VLs, got.SLs, want.VLs, want.SLs)
	}
	for k := range r.NumLayers() {
		for d := range r.NumDests() {
			for s := range r.NumSwitches() {
				if g, w := got.SL(k, s, d), want.SL(k, s, d); g != w {
					t.Fatalf("q=%d: layer %d, switch %d to destination %d: SL %d, AssignHops %d", q, k, s, d, g, w)
				}
			}
		}
	}
	f := r.Fabric
	for _, sw := range f.IDsOf(fabric.Switch) {
		for in := 0; in <= f.Ports(sw); in++ {
			for out := 1; out <= f.Ports(sw); out++ {
				for sl := uint8(0); sl < 16; sl++ {
					if g, w := got.VL(sw, in, out, sl), want.VL(sw, in, out, sl); g != w {
						t.Fatalf("q=%d: %s in %d out %d SL %d: VL %d, AssignHops %d", q, f.Name(sw), in, out, sl, g, w)
					}
				}
			}
		}
	}
}

// withJobs routes f with the template and a ring job over a third of its
// HCAs, drawn: the jobs' pass moves some routes.
func withJobs(t *testing.T, f *fabric.Fabric, tmpl *layers.Template, rng *rand.Rand) *layers.Routing {
	t.Helper()
	hcas := f.IDsOf(fabric.HCA)
	rng.Shuffle(len(hcas), func(i, j int) { hcas[i], hcas[j] = hcas[j], hcas[i] })
	ring := hcas[:len(hcas)/3]
	tr := &layers.Traffic{Jobs: 1}
	for i, h := range ring {
		next := ring[(i+1)%len(ring)]
		tr.Flows = append(tr.Flows, layers.Flow{From: fabric.PortRef{Node: h, Port: 1}, To: fabric.PortRef{Node: next, Port: 1}, Weight: 1})
	}
	r, err := layers.Compute(f, layers.Options{Seed: 1, Template: tmpl, Traffic: tr})
	if err != nil {
		t.Fatal(err)
	}
	if r.Traffic == nil || r.Traffic.Moves == 0 {
		t.Fatalf("the jobs' pass moved nothing: nothing to refuse")
	}
	return r
}
