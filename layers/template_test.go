package layers

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"slimroute/internal/laps"
	"slimroute/slimfly"
)

// TestTemplateGivesTheRoutingOfASearch makes templates of Slim Flies as
// built and routes disguised copies with them: where the fabric fits, the
// template's pass is the only search-free one run (then the traffic
// pass, given the jobs' traffic) and the tables are those Compute finds
// without it; where it does not (another seed, a
// cable avoided, another q), Compute searches and finds the same tables
// as without the template.
func TestTemplateGivesTheRoutingOfASearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 3))
	qs := []int{4, 5, 7}
	if testing.Short() {
		qs = []int{4, 5}
	}
	var other *Template // the previous q's
	for _, q := range qs {
		plain := builtSlimFly(t, q)
		o := Options{Seed: 1, Workers: 2}
		tpl, err := NewTemplate(plain, o)
		if err != nil {
			t.Fatal(err)
		}
		f := disguised(t, plain, rng)
		cases := []struct {
			name string
			opts Options
			fits bool
		}{
			{"the same options", o, true},
			{"one worker", Options{Seed: 1}, true},
			{"another seed", Options{Seed: 2, Workers: 2}, false},
			{"a cable avoided", Options{Seed: 1, Workers: 2, AvoidLinks: []int{rng.IntN(f.NumLinks())}}, false},
			{"regrowing off", Options{Seed: 1, Workers: 2, NoRegrow: true}, false},
			{"the jobs' traffic", Options{Seed: 1, Workers: 2, Traffic: drawTraffic(rng, f)}, true},
		}
		for _, c := range cases {
			want, err := Compute(f, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			c.opts.Template = tpl
			got, err := Compute(f, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			used := slices.ContainsFunc(got.Passes, func(l laps.Lap) bool { return l.Name == "template" })
			if used != c.fits {
				t.Errorf("q=%d, %s: template used %v, want %v", q, c.name, used, c.fits)
			}
			if !sameTables(got, want) {
				t.Errorf("q=%d, %s: the tables differ from those found without the template", q, c.name)
			}
		}
		if other != nil {
			r, err := Compute(f, Options{Seed: 1, Template: other})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Passes) > 0 && r.Passes[len(r.Passes)-1].Name == "template" {
				t.Errorf("q=%d routed with the template of a Slim Fly of %d switches", q, other.Switches())
			}
		}
		other = tpl
	}
}

// sameTables tells whether a and b, routings of one fabric, have the same
// next switch everywhere and the same statistics.
func sameTables(a, b *Routing) bool {
	if a.NumLayers() != b.NumLayers() || a.NumDests() != b.NumDests() || fmt.Sprint(a.Stats) != fmt.Sprint(b.Stats) {
		return false
	}
	for k := 0; k < a.NumLayers(); k++ {
		for d := 0; d < a.NumEndpoints(); d++ {
			for s := 0; s < a.NumSwitches(); s++ {
				if a.NextSwitch(k, s, d) != b.NextSwitch(k, s, d) {
					return false
				}
			}
		}
	}
	return true
}

// TestTemplateSharesTreesAsASearch routes Slim Fly q = 16 with its
// template and without: a fabric this large shares each destination
// switch's trees among its endpoints (Options.Trees, by the fabric's
// size and group), and the template's routing shares them as the search
// does — the sweep that takes the template builds no group to decide it.
func TestTemplateSharesTreesAsASearch(t *testing.T) {
	f, err := slimfly.Build(slimfly.Params{Q: 16})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Layers: 4, Seed: 1, Workers: 2}
	tp, err := NewTemplate(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Compute(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Template = tp
	got, err := Compute(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want.Trees <= 0 {
		t.Fatalf("q = 16 routed with %d trees per destination switch: shares none, tests nothing", want.Trees)
	}
	if got.Trees != want.Trees || !slices.Equal(got.share, want.share) {
		t.Fatalf("with the template %d trees per destination switch, without %d (or other sharers)", got.Trees, want.Trees)
	}
	for k := range want.next {
		if !slices.Equal(got.next[k], want.next[k]) {
			t.Fatalf("layer %d: the template's tables differ from the search's", k)
		}
	}
}
