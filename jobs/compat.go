package jobs

// Compatible says whether jobs a and b can communicate without ever
// overlapping: whether some shift s of b's iterations against a's leaves
// no instant at which both are in a communication phase. known is false
// when either job lacks phases.
//
// Over time, a's phase [a0, a1) recurs at every multiple of a.Period and
// b's [b0, b1) at every multiple of b.Period, so the two meet at offsets
// that differ by the multiples of g = gcd(a.Period, b.Period): with b
// shifted by s they overlap iff some multiple of g lies strictly between
// a0 − b1 − s and a1 − b0 − s, which depends on s mod g alone and rules
// out the residues a0 − b1 < r < a1 − b0 (mod g). The jobs are compatible
// iff some residue is left: O(phases² + g).
func Compatible(a, b Job) (ok, known bool) {
	if len(a.Phases) == 0 || len(b.Phases) == 0 {
		return false, false
	}
	g := gcd(a.Period, b.Period)
	cover := make([]int, g+1) // difference array of the ruled-out residues
	for _, pa := range a.Phases {
		for _, pb := range b.Phases {
			lo, hi := pa[0]-pb[1]+1, pa[1]-pb[0]-1 // residues lo..hi are ruled out
			if hi-lo+1 >= g {
				return false, true
			}
			if lo > hi {
				continue
			}
			lo, hi = ((lo%g)+g)%g, ((hi%g)+g)%g
			cover[lo]++
			cover[hi+1]--
			if hi < lo { // wraps past g − 1
				cover[0]++
			}
		}
	}
	for r, c := 0, 0; r < g; r++ {
		if c += cover[r]; c == 0 {
			return true, true
		}
	}
	return false, true
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
