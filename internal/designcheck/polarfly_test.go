package designcheck

import (
	"fmt"
	"strings"
	"testing"

	"slimroute/fabric"
)

// field is a finite field on the integers 0..q-1, with 0 and 1 its zero
// and one.
type field struct {
	q        int
	add, mul func(a, b int) int
}

func primeField(q int) field {
	return field{q, func(a, b int) int { return (a + b) % q }, func(a, b int) int { return a * b % q }}
}

// gf4 is GF(2)[α]/(α²+α+1) with α = 2, α+1 = 3: addition is XOR.
func gf4() field {
	tab := [4][4]int{{0, 0, 0, 0}, {0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}}
	return field{4, func(a, b int) int { return a ^ b }, func(a, b int) int { return tab[a][b] }}
}

// points lists the normalised points of PG(2,q): (1,y,z), (0,1,z), (0,0,1).
func points(q int) [][3]int {
	var out [][3]int
	for y := range q {
		for z := range q {
			out = append(out, [3]int{1, y, z})
		}
	}
	for z := range q {
		out = append(out, [3]int{0, 1, z})
	}
	return append(out, [3]int{0, 0, 1})
}

func pfName(p [3]int) string { return fmt.Sprintf("pf-sw-%d-%d-%d", p[0], p[1], p[2]) }
func pfHCA(p [3]int) string  { return fmt.Sprintf("pf-hca-%d-%d-%d", p[0], p[1], p[2]) }

// polarFly builds ER_q straight from the definition: distinct points
// cabled iff their dot product is zero in the field.
func polarFly(fl field, endpoints int) fx {
	var x fx
	pts := points(fl.q)
	dot := func(a, b [3]int) int {
		return fl.add(fl.add(fl.mul(a[0], b[0]), fl.mul(a[1], b[1])), fl.mul(a[2], b[2]))
	}
	for i, p := range pts {
		x.sw = append(x.sw, pfName(p))
		for h := 1; h <= endpoints; h++ {
			x.hca = append(x.hca, [2]string{fmt.Sprintf("%s-%d", pfHCA(p), h), pfName(p)})
		}
		for _, r := range pts[i+1:] {
			if dot(p, r) == 0 {
				x.cab = append(x.cab, [2]string{pfName(p), pfName(r)})
			}
		}
	}
	return x
}

func pfCheck(q, endpoints int) func(*fabric.Fabric) error {
	return func(f *fabric.Fabric) error { return PolarFly(f, q, endpoints) }
}

func TestPolarFlyAcceptsER(t *testing.T) {
	for _, c := range []struct {
		fl        field
		endpoints int
	}{{primeField(2), 2}, {primeField(3), 2}, {gf4(), 1}, {primeField(5), 0}, {primeField(7), 3}} {
		t.Run(fmt.Sprintf("q=%d", c.fl.q), func(t *testing.T) {
			accept(t, polarFly(c.fl, c.endpoints), pfCheck(c.fl.q, c.endpoints))
		})
	}
}

func TestPolarFlyRejectsCableAndHCAMutants(t *testing.T) {
	for _, c := range []struct {
		fl        field
		endpoints int
	}{{primeField(2), 2}, {primeField(3), 2}, {gf4(), 1}} {
		t.Run(fmt.Sprintf("q=%d", c.fl.q), func(t *testing.T) {
			x := polarFly(c.fl, c.endpoints)
			rejectAll(t, append(cableMutants(x), hcaMutants(x)...), pfCheck(c.fl.q, c.endpoints))
		})
	}
}

// For prime q the names carry the arithmetic, so exchanging the names of
// any two switches (with their HCAs) must be caught: ER_q has no two
// switches with the same neighbours, so no such swap is an automorphism.
func TestPolarFlyRejectsNameSwapsForPrimeQ(t *testing.T) {
	for _, q := range []int{2, 3, 5} {
		x := polarFly(primeField(q), 1)
		pts := points(q)
		var ms []mutant
		for i, a := range pts {
			for _, b := range pts[i+1:] {
				ms = append(ms, mutant{"swap " + pfName(a) + " " + pfName(b), swapNames(x, pfName(a), pfName(b), pfHCA(a), pfHCA(b))})
			}
		}
		t.Run(fmt.Sprintf("q=%d", q), func(t *testing.T) { rejectAll(t, ms, pfCheck(q, 1)) })
	}
}

func TestPolarFlyRejectsRenames(t *testing.T) {
	x := polarFly(primeField(3), 2)
	check := pfCheck(3, 2)
	wantErr(t, rename(x, "pf-sw-1-2-2", "pf-sw-2-2-2", "pf-hca-1-2-2", "pf-hca-2-2-2"), check,
		`switch "pf-sw-2-2-2": not normalised: first nonzero coordinate 2, want 1`)
	wantErr(t, rename(x, "pf-sw-0-0-1", "pf-sw-0-0-3", "pf-hca-0-0-1", "pf-hca-0-0-3"), check,
		`switch "pf-sw-0-0-3": coordinate 3 is 3, want 0..2`)
	wantErr(t, rename(x, "pf-sw-0-1-0", "pf-sw-0-1-00", "pf-hca-0-1-0", "pf-hca-0-1-00"), check,
		`switch "pf-sw-0-1-00": name not of the form pf-sw-X-Y-Z`)
	wantErr(t, rename(x, "pf-sw-0-1-0", "pf-sw-0-0-0", "pf-hca-0-1-0", "pf-hca-0-0-0"), check,
		`switch "pf-sw-0-0-0": the zero vector is not a projective point`)
	wantErr(t, rename(x, "pf-sw-0-1-0", "pf-sw-0-1-0", "pf-hca-0-1-0", "pf-hca-0-1-9"), check,
		`switch "pf-sw-0-1-0": attached HCA "pf-hca-0-1-9-`)
	wantErr(t, rename(x, "pf-hca-1-1-1-2", "pf-hca-1-1-1-3", "", ""), check,
		`switch "pf-sw-1-1-1": attached HCA "pf-hca-1-1-1-3", want names pf-hca-1-1-1-1 … pf-hca-1-1-1-2`)
	// For a prime power the encoding of one is the builder's, but it must
	// be the same on every switch.
	y := polarFly(gf4(), 1)
	wantErr(t, rename(y, "pf-sw-0-0-1", "pf-sw-0-0-2", "pf-hca-0-0-1", "pf-hca-0-0-2"), pfCheck(4, 1),
		`switch "pf-sw-0-0-2": not normalised: first nonzero coordinate 2, want 1`)
}

// The errors name the first violation concretely.
func TestPolarFlyErrors(t *testing.T) {
	x := polarFly(primeField(3), 1)
	check := pfCheck(3, 1)
	drop := x.clone()
	drop.cab = drop.cab[1:]
	wantErr(t, drop, check, fmt.Sprintf("switches %q and %q: dot product ≡ 0 mod 3, want 1 cables, got 0", x.cab[0][0], x.cab[0][1]))
	par := x.clone()
	par.cab = append(par.cab, x.cab[0])
	wantErr(t, par, check, fmt.Sprintf("switches %q and %q: 2 parallel cables, want 1", x.cab[0][0], x.cab[0][1]))
	self := x.clone()
	self.cab[0][1] = self.cab[0][0]
	wantErr(t, self, check, fmt.Sprintf("switch %q: self cable", x.cab[0][0]))
	wantErr(t, x, pfCheck(3, 2), `fabric has 13 HCAs, want 26`)
	wantErr(t, x, pfCheck(2, 1), `fabric has 13 switches, want 7`)
	if err := PolarFly(x.build(t, nil), 6, 1); err == nil {
		t.Error("q=6 accepted; want a parameter error (6 is no prime power)")
	}
}

// For a prime power the names carry no checked arithmetic, so the graph
// checks alone must find a moved cable even when both degrees stay in
// {q, q+1}.
func TestPolarFlyGraphChecksAloneCatchMoves(t *testing.T) {
	x := polarFly(gf4(), 0)
	check := pfCheck(4, 0)
	moved := 0
	for _, m := range cableMutants(x) {
		f := m.x.build(t, nil)
		v, err := newView(f)
		if err != nil || v.singleCables() != nil {
			continue
		}
		if _, err := pfDegrees(v, 4); err == nil {
			moved++
			if check(f) == nil {
				t.Errorf("mutant with right degrees accepted: %s", m.name)
			}
		}
	}
	if moved == 0 {
		t.Fatal("no mutant kept the degree profile; the test proves nothing")
	}
	t.Logf("%d mutants with the right degree profile, all rejected by the graph checks", moved)
}

// Re-pairing two cables (a–b, c–d into a–c, b–d) keeps every degree, and
// mostly the diameter too: then only the orthogonality count (or, for odd
// q, the quadric check) can tell. The name arithmetic is switched off here
// so that the graph checks are tested on their own, prime q included.
func TestPolarFlyGraphChecksCatchDegreePreservingSwaps(t *testing.T) {
	for _, fl := range []field{primeField(3), gf4(), primeField(5)} {
		x := polarFly(fl, 0)
		byCheck := map[string]int{}
		for i, a := range x.cab {
			for _, b := range x.cab[i+1:] {
				for _, y := range repairings(x, a, b) {
					v, err := newView(y.build(t, nil))
					if err != nil {
						t.Fatal(err)
					}
					err = pfGraph(v, fl.q, false, nil)
					if err == nil {
						t.Errorf("q=%d: re-paired %v %v accepted", fl.q, a, b)
						continue
					}
					byCheck[checkKind(err.Error())]++
				}
			}
		}
		if byCheck["orthogonality"] == 0 {
			t.Errorf("q=%d: no mutant left to the orthogonality check; the test proves nothing", fl.q)
		}
		if fl.q%2 == 1 && byCheck["quadrics apart"] == 0 {
			t.Errorf("q=%d: no mutant with two quadrics cabled named as such", fl.q)
		}
		t.Logf("q=%d: rejected by %v", fl.q, byCheck)
	}
}

// repairings returns x with cables a = (a0,a1), b = (b0,b1) replaced by
// (a0,b0),(a1,b1) and by (a0,b1),(a1,b0), leaving out any that would make
// a self cable or a cable that already exists.
func repairings(x fx, a, b [2]string) []fx {
	has := map[[2]string]bool{}
	for _, c := range x.cab {
		has[c], has[[2]string{c[1], c[0]}] = true, true
	}
	var out []fx
	for _, p := range [][2][2]string{{{a[0], b[0]}, {a[1], b[1]}}, {{a[0], b[1]}, {a[1], b[0]}}} {
		if p[0][0] == p[0][1] || p[1][0] == p[1][1] || has[p[0]] || has[p[1]] {
			continue
		}
		y := x.clone()
		for i, c := range y.cab {
			switch c {
			case a:
				y.cab[i] = p[0]
			case b:
				y.cab[i] = p[1]
			}
		}
		out = append(out, y)
	}
	return out
}

// checkKind names the graph check an error of pfGraph comes from.
func checkKind(msg string) string {
	for _, k := range []struct{ sub, kind string }{
		{"orthogonal to both", "orthogonality"}, {"quadric switches", "quadrics apart"},
		{"diameter", "diameter"}, {"network degree", "degree"},
	} {
		if strings.Contains(msg, k.sub) {
			return k.kind
		}
	}
	return msg
}
