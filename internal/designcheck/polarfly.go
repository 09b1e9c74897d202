package designcheck

import (
	"fmt"

	"slimroute/fabric"
)

// PolarFly checks that f is PolarFly: the Erdős–Rényi polarity graph ER_q
// (points of PG(2,q), u ~ v iff u·v = 0, u ≠ v) with endpoints
// single-port HCAs on every switch. From the fabric alone it checks:
// q²+q+1 switches and (q²+q+1)·endpoints HCAs; switch names pf-sw-X-Y-Z
// (coordinates 0..q-1, not all 0, first nonzero coordinate 1 — for a prime
// power q the same value on every switch, as the field's encoding is the
// builder's); each switch's HCAs named pf-hca-X-Y-Z-1 … -endpoints; single
// switch-to-switch cables, no self cables; q+1 switches of degree q (the
// quadrics), all others q+1; exactly one switch orthogonal to both of any
// two switches; for odd q no two quadrics adjacent; diameter 2. For prime q
// it also checks that switches are cabled iff their names' dot product is
// 0 mod q.
func PolarFly(f *fabric.Fabric, q, endpoints int) error {
	prime, ok := primePower(q)
	if !ok || q > fabric.MaxPorts || endpoints < 0 || endpoints > fabric.MaxPorts {
		return fmt.Errorf("PolarFly parameters q=%d endpoints=%d: want q a prime power ≤ %d and 0 ≤ endpoints ≤ %[3]d", q, endpoints, fabric.MaxPorts)
	}
	v, err := newView(f)
	if err != nil {
		return err
	}
	n := q*q + q + 1
	if err := v.wantCounts(n, n*endpoints); err != nil {
		return err
	}
	pts, err := pfPoints(v, q, prime == q)
	if err != nil {
		return err
	}
	for s := range v.ids {
		if err := v.checkHCAs(s, "pf-hca-"+joinInts(pts[s][:]), endpoints); err != nil {
			return err
		}
	}
	return pfGraph(v, q, prime == q, pts)
}

// pfGraph runs the graph checks of PolarFly once names and HCAs are right.
func pfGraph(v *view, q int, prime bool, pts [][3]int) error {
	if err := v.singleCables(); err != nil {
		return err
	}
	if prime {
		if err := pfArithmetic(v, q, pts); err != nil {
			return err
		}
	}
	quad, err := pfDegrees(v, q)
	if err != nil {
		return err
	}
	if q%2 == 1 {
		if err := pfQuadricsApart(v, quad); err != nil {
			return err
		}
	}
	if err := pfOrthogonal(v, quad); err != nil {
		return err
	}
	if d := v.diameter(); d != 2 {
		return fmt.Errorf("switch graph diameter %d, want 2", d)
	}
	return nil
}

// primePower reports whether q = p^k for a prime p and k ≥ 1, and p.
func primePower(q int) (int, bool) {
	if q < 2 {
		return 0, false
	}
	p := 2
	for q%p != 0 {
		p++
	}
	r := q
	for r%p == 0 {
		r /= p
	}
	return p, r == 1
}

// pfPoints parses every switch name as a normalised projective point.
// For prime q the first nonzero coordinate must be 1; otherwise it must be
// the same value on every switch (the encoding of the field's one). With
// q²+q+1 unique such names they are exactly the points of PG(2,q).
func pfPoints(v *view, q int, prime bool) ([][3]int, error) {
	pts := make([][3]int, len(v.ids))
	one := -1
	if prime {
		one = 1
	}
	for s := range v.ids {
		c, ok := parseName(v.name(s), "pf-sw-", 3)
		if !ok {
			return nil, fmt.Errorf("switch %q: name not of the form pf-sw-X-Y-Z", v.name(s))
		}
		first := -1
		for i, x := range c {
			if x >= q {
				return nil, fmt.Errorf("switch %q: coordinate %d is %d, want 0..%d", v.name(s), i+1, x, q-1)
			}
			if first < 0 && x != 0 {
				first = x
			}
		}
		if first < 0 {
			return nil, fmt.Errorf("switch %q: the zero vector is not a projective point", v.name(s))
		}
		if one < 0 {
			one = first
		}
		if first != one {
			return nil, fmt.Errorf("switch %q: not normalised: first nonzero coordinate %d, want %d", v.name(s), first, one)
		}
		pts[s] = [3]int{c[0], c[1], c[2]}
	}
	return pts, nil
}

// singleCables requires at most one cable between any two switches.
func (v *view) singleCables() error {
	for s := range v.ids {
		for _, t := range v.nbrs[s] {
			if m := v.mult[s][t]; m != 1 {
				return fmt.Errorf("switches %q and %q: %d parallel cables, want 1", v.name(s), v.name(t), m)
			}
		}
	}
	return nil
}

// pfArithmetic requires, for prime q, a cable between two distinct
// switches exactly when their points' dot product is 0 mod q.
func pfArithmetic(v *view, q int, pts [][3]int) error {
	for s := range v.ids {
		for t := s + 1; t < len(v.ids); t++ {
			a, b := pts[s], pts[t]
			dot := (a[0]*b[0] + a[1]*b[1] + a[2]*b[2]) % q
			want := 0
			if dot == 0 {
				want = 1
			}
			if got := v.mult[s][t]; got != want {
				return fmt.Errorf("switches %q and %q: dot product ≡ %d mod %d, want %d cables, got %d", v.name(s), v.name(t), dot, q, want, got)
			}
		}
	}
	return nil
}

// pfDegrees requires every switch to have network degree q or q+1, and
// exactly q+1 of degree q; it returns which switches are quadric.
func pfDegrees(v *view, q int) ([]bool, error) {
	quad := make([]bool, len(v.ids))
	count := 0
	for s := range v.ids {
		if d := v.deg[s]; d != q && d != q+1 {
			return nil, fmt.Errorf("switch %q: network degree %d, want %d (quadric) or %d", v.name(s), d, q, q+1)
		}
		quad[s] = v.deg[s] == q
		if quad[s] {
			count++
		}
	}
	if count != q+1 {
		return nil, fmt.Errorf("%d switches of network degree %d (quadrics), want %d", count, q, q+1)
	}
	return quad, nil
}

// pfOrthogonal requires exactly one switch orthogonal to both of any two
// distinct switches u, v: a common neighbour, or u itself when u is a
// quadric adjacent to v (and likewise v).
func pfOrthogonal(v *view, quad []bool) error {
	for u := range v.ids {
		cnt := make([]int, len(v.ids))
		for _, w := range v.nbrs[u] {
			for _, x := range v.nbrs[w] {
				cnt[x]++
			}
			if quad[u] {
				cnt[w]++ // u itself is orthogonal to u and w
			}
			if quad[w] {
				cnt[w]++ // w itself is orthogonal to u and w
			}
		}
		for x := u + 1; x < len(v.ids); x++ {
			if cnt[x] != 1 {
				return fmt.Errorf("switches %q and %q: %d switches orthogonal to both, want exactly 1", v.name(u), v.name(x), cnt[x])
			}
		}
	}
	return nil
}

// pfQuadricsApart requires, for odd q, that no two quadrics are cabled.
// (The orthogonality check implies it for every q, as two cabled quadrics
// are both orthogonal to both; checked first, it names the fault.)
func pfQuadricsApart(v *view, quad []bool) error {
	for s := range v.ids {
		for _, t := range v.nbrs[s] {
			if quad[s] && quad[t] {
				return fmt.Errorf("quadric switches %q and %q are cabled; for odd q quadrics are pairwise non-adjacent", v.name(s), v.name(t))
			}
		}
	}
	return nil
}
