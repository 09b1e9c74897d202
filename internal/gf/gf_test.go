package gf

import "testing"

func TestFieldAxioms(t *testing.T) {
	for _, q := range []int{2, 3, 4, 5, 7, 8, 9, 16, 25, 27, 32, 49, 64, 81, 121, 128} {
		f, err := New(q)
		if err != nil {
			t.Fatalf("q=%d: %v", q, err)
		}
		// every nonzero element has an inverse, ξ generates the group, and
		// multiplication distributes over addition (checked exhaustively
		// for small q, on a sample otherwise)
		step := 1
		if q > 32 {
			step = 7
		}
		for a := 0; a < q; a += 1 {
			if f.Add(a, f.Neg(a)) != 0 {
				t.Fatalf("q=%d: %d + (-%d) != 0", q, a, a)
			}
			if a != 0 && f.Mul(a, f.Inv(a)) != 1 {
				t.Fatalf("q=%d: %d·Inv(%d) = %d", q, a, a, f.Mul(a, f.Inv(a)))
			}
			if a != 0 {
				found := false
				for b := 1; b < q; b++ {
					if f.Mul(a, b) == 1 {
						found = true
					}
				}
				if !found {
					t.Fatalf("q=%d: %d has no inverse", q, a)
				}
			}
			for b := 0; b < q; b += step {
				for c := 0; c < q; c += step {
					if f.Mul(a, f.Add(b, c)) != f.Add(f.Mul(a, b), f.Mul(a, c)) {
						t.Fatalf("q=%d: %d·(%d+%d) is not distributive", q, a, b, c)
					}
				}
			}
		}
		seen := map[int]bool{}
		for k := 0; k < q-1; k++ {
			seen[f.Pow(k)] = true
		}
		if len(seen) != q-1 || seen[0] {
			t.Fatalf("q=%d: ξ generates %d elements, want %d", q, len(seen), q-1)
		}
	}
}

func TestNotPrimePowers(t *testing.T) {
	for _, q := range []int{0, 1, 6, 10, 12, 15, 18, 20, 24, 26, 28, 30} {
		if _, err := New(q); err == nil {
			t.Errorf("q=%d accepted as a prime power", q)
		}
	}
}
