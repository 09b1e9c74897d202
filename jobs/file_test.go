package jobs

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestReadAJobFile(t *testing.T) {
	js, err := Read(strings.NewReader(`# id nodes pattern options
1234 node[001-004] ring weight=2 period=200 phases=0-40,100-140
1235 node[005-007]     # squeue's two columns: a ring
1236 node[008-011] all-to-all
1237 node[012-015] tree
1238 node[016-018] neighbors
`), "jobs.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != 5 || js[0].Weight != 2 || js[0].Period != 200 || len(js[0].Phases) != 2 || js[1].Pattern != "ring" || js[4].Pattern != "neighbours" || js[3].Line != 5 {
		t.Fatalf("%+v", js)
	}
	// each rank sends its weight in every pattern
	for _, j := range js {
		sent := make([]float64, len(j.Hosts))
		for _, f := range j.Flows() {
			sent[f.From] += f.Weight
		}
		for r, s := range sent {
			if s < j.Weight-1e-9 || s > j.Weight+1e-9 {
				t.Errorf("job %s (%s): rank %d sends %g, want %g", j.ID, j.Pattern, r, s, j.Weight)
			}
		}
	}
}

func TestBadJobLinesNameTheirLine(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"1\n", "jobs:1: \"1\": want a job ID and its nodes"},
		{"\n1 n[1-2] star\n", "jobs:2: pattern \"star\""},
		{"1 n[1-2]\n1 n[3-4]\n", "jobs:2: job 1 again (first on line 1)"},
		{"1 n[1-2] weight=-1\n", "jobs:1: weight=-1"},
		{"1 n[1-2] phases=0-4\n", "jobs:1: phases without a period"},
		{"1 n[1-2] period=10 phases=0-40\n", "jobs:1: phase 0-40 ends after the period 10"},
		{"1 n[1-2] period=0\n", "jobs:1: period=0"},
		{"1 n[1-2] colour=red\n", "jobs:1: option \"colour=red\""},
		{"1 n[2-1]\n", "jobs:1: host list \"n[2-1]\""},
		{"1 n1 " + strings.Repeat("x", 2<<20) + "\n", "jobs: bufio.Scanner: token too long"},
	} {
		if _, err := Read(strings.NewReader(c.text), "jobs"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40q: %v, want %q", c.text, err, c.want)
		}
	}
}

// TestCompatibleAgreesWithASimulation: for 3,000 drawn pairs of periodic
// jobs (periods 1..24, up to 3 phases), Compatible agrees with trying every
// shift over the joint cycle instant by instant.
func TestCompatibleAgreesWithASimulation(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	draw := func() Job {
		j := Job{Period: 1 + rng.IntN(24)}
		for k := 0; k < 1+rng.IntN(3); k++ {
			a := rng.IntN(j.Period)
			j.Phases = append(j.Phases, [2]int{a, a + 1 + rng.IntN(j.Period-a)})
		}
		return j
	}
	yes := 0
	for c := 0; c < 3000; c++ {
		a, b := draw(), draw()
		got, known := Compatible(a, b)
		if want := simulate(a, b); !known || got != want {
			t.Fatalf("%+v and %+v: Compatible %v (known %v), the simulation %v", a, b, got, known, want)
		}
		if got {
			yes++
		}
	}
	if yes == 0 || yes == 3000 {
		t.Fatalf("%d of 3000 pairs compatible: the draw tests one answer only", yes)
	}
}

// simulate tries every shift of b against a over the joint cycle.
func simulate(a, b Job) bool {
	active := func(j Job, t int) bool {
		t %= j.Period
		for _, p := range j.Phases {
			if p[0] <= t && t < p[1] {
				return true
			}
		}
		return false
	}
	cycle := a.Period * b.Period
	for s := 0; s < b.Period; s++ {
		clash := false
		for t := 0; t < cycle && !clash; t++ {
			clash = active(a, t) && active(b, t+b.Period-s)
		}
		if !clash {
			return true
		}
	}
	return false
}
