package designcheck

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"slimroute/fabric"
)

// fx is a hand-made fabric described by names only, so that mutants are
// easy to make: switches, HCAs (each with the switch it is cabled to) and
// switch-to-switch cables. Ports are numbered when it is built.
type fx struct {
	sw  []string
	hca [][2]string // {HCA name, switch name}
	cab [][2]string // {switch name, switch name}
}

func (x fx) clone() fx {
	return fx{
		sw:  append([]string(nil), x.sw...),
		hca: append([][2]string(nil), x.hca...),
		cab: append([][2]string(nil), x.cab...),
	}
}

// build makes the fabric of x: switches then HCAs, ports numbered in the
// order the HCAs and cables are listed. A non-nil rng shuffles the node
// and cable order first, which must not change any verdict.
func (x fx) build(t *testing.T, rng *rand.Rand) *fabric.Fabric {
	t.Helper()
	x = x.clone()
	if rng != nil {
		rng.Shuffle(len(x.sw), func(i, j int) { x.sw[i], x.sw[j] = x.sw[j], x.sw[i] })
		rng.Shuffle(len(x.hca), func(i, j int) { x.hca[i], x.hca[j] = x.hca[j], x.hca[i] })
		rng.Shuffle(len(x.cab), func(i, j int) { x.cab[i], x.cab[j] = x.cab[j], x.cab[i] })
	}
	id := make(map[string]fabric.NodeID)
	used := make(map[string]int)
	for i, n := range x.sw {
		id[n] = fabric.NodeID(i)
	}
	port := func(sw string) fabric.PortRef {
		used[sw]++
		return fabric.PortRef{Node: id[sw], Port: used[sw]}
	}
	var links []fabric.Link
	for i, h := range x.hca {
		id[h[0]] = fabric.NodeID(len(x.sw) + i)
		links = append(links, fabric.Link{A: fabric.PortRef{Node: id[h[0]], Port: 1}, B: port(h[1])})
	}
	for _, c := range x.cab {
		links = append(links, fabric.Link{A: port(c[0]), B: port(c[1])})
	}
	var nodes []fabric.Node
	for _, n := range x.sw {
		nodes = append(nodes, fabric.Node{Kind: fabric.Switch, Name: n, Ports: max(used[n], 1)})
	}
	for _, h := range x.hca {
		nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: h[0], Ports: 1})
	}
	f, err := fabric.New(nodes, links)
	if err != nil {
		t.Fatalf("fixture does not build: %v", err)
	}
	return f
}

// mutant is a named variant of a correct fixture that the judge must
// reject.
type mutant struct {
	name string
	x    fx
}

// cableMutants returns, for every switch-to-switch cable: the fixture
// without it, with a parallel copy of it, and with either end moved to
// every other switch (the other end included, giving a self cable).
func cableMutants(x fx) []mutant {
	var out []mutant
	for i, c := range x.cab {
		m := x.clone()
		m.cab = append(m.cab[:i], m.cab[i+1:]...)
		out = append(out, mutant{fmt.Sprintf("drop cable %v", c), m})
		m = x.clone()
		m.cab = append(m.cab, c)
		out = append(out, mutant{fmt.Sprintf("parallel cable %v", c), m})
		for end := range 2 {
			for _, w := range x.sw {
				if w == c[end] {
					continue
				}
				m = x.clone()
				m.cab[i][end] = w
				out = append(out, mutant{fmt.Sprintf("move end %s of %v to %s", c[end], c, w), m})
			}
		}
	}
	return out
}

// hcaMutants returns, for every HCA: the fixture without it and with it
// moved to the next switch; for every two HCAs listed in a row on
// different switches, the fixture with them exchanged (every count stays
// right, only the names betray it); and for every switch, one extra HCA.
func hcaMutants(x fx) []mutant {
	var out []mutant
	for i, h := range x.hca {
		m := x.clone()
		m.hca = append(m.hca[:i], m.hca[i+1:]...)
		out = append(out, mutant{"remove HCA " + h[0], m})
		m = x.clone()
		for k, s := range x.sw {
			if s == h[1] {
				m.hca[i][1] = x.sw[(k+1)%len(x.sw)]
			}
		}
		out = append(out, mutant{"rehome HCA " + h[0] + " to " + m.hca[i][1], m})
	}
	for i := 1; i < len(x.hca); i++ {
		if a, b := x.hca[i-1], x.hca[i]; a[1] != b[1] {
			m := x.clone()
			m.hca[i-1][1], m.hca[i][1] = b[1], a[1]
			out = append(out, mutant{"exchange HCAs " + a[0] + " " + b[0], m})
		}
	}
	for _, s := range x.sw {
		m := x.clone()
		m.hca = append(m.hca, [2]string{"extra-hca-on-" + s, s})
		out = append(out, mutant{"extra HCA on " + s, m})
	}
	return out
}

// rename returns x with node old renamed to new wherever it appears.
// With hcas, the HCAs whose names start with hcaOld+"-" are renamed to
// start with hcaNew+"-" too.
func rename(x fx, old, new, hcaOld, hcaNew string) fx {
	m := x.clone()
	for i, s := range m.sw {
		if s == old {
			m.sw[i] = new
		}
	}
	for i, h := range m.hca {
		if h[0] == old {
			m.hca[i][0] = new
		}
		if h[1] == old {
			m.hca[i][1] = new
		}
		if hcaOld != "" && strings.HasPrefix(h[0], hcaOld+"-") {
			m.hca[i][0] = hcaNew + h[0][len(hcaOld):]
		}
	}
	for i, c := range m.cab {
		for e := range 2 {
			if c[e] == old {
				m.cab[i][e] = new
			}
		}
	}
	return m
}

// swapNames exchanges the names of switches a and b and, if hcaA and hcaB
// are given, the names of their HCAs, so that only the cabling betrays the
// swap.
func swapNames(x fx, a, b, hcaA, hcaB string) fx {
	m := rename(x, a, "\x00tmp", hcaA, "\x00tmph")
	m = rename(m, b, a, hcaB, hcaA)
	return rename(m, "\x00tmp", b, "\x00tmph", hcaB)
}

// accept requires check to pass on x, built as listed and shuffled.
func accept(t *testing.T, x fx, check func(*fabric.Fabric) error) {
	t.Helper()
	if err := check(x.build(t, nil)); err != nil {
		t.Fatalf("correct fixture rejected: %v", err)
	}
	rng := rand.New(rand.NewSource(1))
	for range 5 {
		if err := check(x.build(t, rng)); err != nil {
			t.Fatalf("correct fixture, nodes and cables shuffled, rejected: %v", err)
		}
	}
}

// rejectAll requires check to fail on every mutant and logs how many it
// rejected and one sample error per kind of mutant.
func rejectAll(t *testing.T, ms []mutant, check func(*fabric.Fabric) error) {
	t.Helper()
	seen := make(map[string]bool)
	for _, m := range ms {
		err := check(m.x.build(t, nil))
		if err == nil {
			t.Errorf("mutant accepted: %s", m.name)
			continue
		}
		kind := strings.Fields(m.name)[0]
		if !seen[kind] {
			seen[kind] = true
			t.Logf("%s → %v", m.name, err)
		}
	}
	t.Logf("%d mutants, all rejected unless reported above", len(ms))
}

// wantErr requires check to fail on x with an error containing want.
func wantErr(t *testing.T, x fx, check func(*fabric.Fabric) error, want string) {
	t.Helper()
	err := check(x.build(t, nil))
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got error %v, want one containing %q", err, want)
	}
}
