// Package gf is arithmetic in the finite field GF(q), q a prime power, as
// the algebraic designs (Slim Fly, PolarFly) need it: small fields whose
// elements are the integers 0..q−1, built the same way on every run.
package gf

import "fmt"

// Field is the finite field GF(q), q = p^n. Elements are the integers
// 0..q-1: element e stands for the polynomial Σ d_i·x^i whose coefficients
// d_i are the base-p digits of e. Addition is digit-wise mod p;
// multiplication goes through discrete logarithms to the primitive element.
type Field struct {
	Q, P, N int
	// Poly holds the coefficients c_0..c_{n-1} of the monic primitive
	// polynomial x^n + c_{n-1}x^{n-1} + … + c_0 defining the field (for n=1
	// it is empty and the field is the integers mod p).
	Poly []int
	exp  []int // exp[k] = ξ^k for k in 0..q-2
	log  []int // log[e] = k with ξ^k = e, for e != 0
}

// MaxOrder bounds q before New allocates its q-sized tables (a design
// that fits one InfiniBand subnet needs far less).
const MaxOrder = 1 << 16

// New builds GF(q) for a prime power q. Its primitive element ξ is the
// smallest primitive root for prime q, and x for q = p^n with n > 1, where
// the primitive polynomial is the first in lexicographic order of
// (c_0, …, c_{n-1}) — so the field, and everything built on it, is the same
// on every run.
func New(q int) (*Field, error) {
	if q > MaxOrder {
		return nil, fmt.Errorf("q=%d: slimroute builds fields of at most %d elements", q, MaxOrder)
	}
	p, n, ok := PrimePower(q)
	if !ok {
		return nil, fmt.Errorf("q=%d is not a prime power; GF(q) exists only for q = p^n with p prime", q)
	}
	f := &Field{Q: q, P: p, N: n, exp: make([]int, q-1), log: make([]int, q)}
	if n == 1 {
		for g := 1; g < p; g++ {
			if f.tryGenerator(func(e int) int { return e * g % p }) {
				return f, nil
			}
		}
		return nil, fmt.Errorf("no primitive root mod %d", p) // unreachable for primes
	}
	coef := make([]int, n)
	for {
		poly := append([]int(nil), coef...)
		if poly[0] != 0 && f.tryGenerator(func(e int) int { return f.mulX(e, poly) }) {
			f.Poly = poly
			return f, nil
		}
		// next coefficient vector in lexicographic order (c_0 fastest)
		i := 0
		for i < n {
			coef[i]++
			if coef[i] < p {
				break
			}
			coef[i] = 0
			i++
		}
		if i == n {
			return nil, fmt.Errorf("no primitive polynomial of degree %d over GF(%d)", n, p) // unreachable
		}
	}
}

// tryGenerator fills exp/log from repeated multiplication by a candidate
// generator and reports whether its powers reach every nonzero element.
func (f *Field) tryGenerator(times func(int) int) bool {
	seen := make([]bool, f.Q)
	e := 1
	for k := 0; k < f.Q-1; k++ {
		if e == 0 || seen[e] {
			return false
		}
		seen[e] = true
		f.exp[k] = e
		f.log[e] = k
		e = times(e)
	}
	return e == 1
}

// mulX multiplies element e by x modulo the monic polynomial poly.
func (f *Field) mulX(e int, poly []int) int {
	d := f.digits(e)
	top := d[f.N-1]
	for i := f.N - 1; i > 0; i-- {
		d[i] = d[i-1]
	}
	d[0] = 0
	// x^n = -(c_{n-1}x^{n-1} + … + c_0)
	for i := 0; i < f.N; i++ {
		d[i] = ((d[i]-top*poly[i])%f.P + f.P) % f.P
	}
	return f.undigits(d)
}

func (f *Field) digits(e int) []int {
	d := make([]int, f.N)
	for i := range d {
		d[i] = e % f.P
		e /= f.P
	}
	return d
}

func (f *Field) undigits(d []int) int {
	e := 0
	for i := len(d) - 1; i >= 0; i-- {
		e = e*f.P + d[i]
	}
	return e
}

// Add returns a + b.
func (f *Field) Add(a, b int) int {
	if f.N == 1 {
		return (a + b) % f.P
	}
	r, mul := 0, 1
	for i := 0; i < f.N; i++ {
		r += ((a%f.P + b%f.P) % f.P) * mul
		a, b, mul = a/f.P, b/f.P, mul*f.P
	}
	return r
}

// Neg returns -a.
func (f *Field) Neg(a int) int {
	r, mul := 0, 1
	for i := 0; i < f.N; i++ {
		r += ((f.P - a%f.P) % f.P) * mul
		a, mul = a/f.P, mul*f.P
	}
	return r
}

// Sub returns a - b.
func (f *Field) Sub(a, b int) int { return f.Add(a, f.Neg(b)) }

// Mul returns a·b.
func (f *Field) Mul(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	return f.exp[(f.log[a]+f.log[b])%(f.Q-1)]
}

// Inv returns 1/a for a ≠ 0 (0 for a = 0).
func (f *Field) Inv(a int) int {
	if a == 0 {
		return 0
	}
	return f.exp[(f.Q-1-f.log[a])%(f.Q-1)]
}

// Pow returns ξ^k for the field's primitive element ξ (k may be any integer).
func (f *Field) Pow(k int) int {
	m := f.Q - 1
	return f.exp[((k%m)+m)%m]
}

// PrimePower reports whether q = p^n with p prime.
func PrimePower(q int) (p, n int, ok bool) {
	if q < 2 {
		return 0, 0, false
	}
	for p = 2; p*p <= q; p++ {
		if q%p == 0 {
			break
		}
	}
	if p*p > q {
		return q, 1, true // q is prime
	}
	for n = 0; q%p == 0; n++ {
		q /= p
	}
	return p, n, q == 1
}
