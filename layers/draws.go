package layers

import (
	"math/bits"
	"math/rand/v2"
)

// draws is the random generator of the annealing passes (regrowing,
// unloading): math/rand/v2's PCG, called directly. rand.Rand reaches its
// source through an interface, a call the compiler cannot inline, and
// that call took a fifth of the layers' time at q = 7; draws gives the
// same numbers as rand.New(rand.NewPCG(seed, stream)) on a 64-bit build
// (intN is Rand.IntN's reduction: Lemire's multiply with rejection), so
// the tables are those it gave, and the same on 32-bit builds too.
type draws struct{ pcg rand.PCG }

// seed restarts the draws at stream of seed: the same pair, the same draws.
func (r *draws) seed(seed, stream uint64) { r.pcg.Seed(seed, stream) }

// intN returns a draw from [0, n), n > 0.
func (r *draws) intN(n int) int {
	m := uint64(n)
	if m&(m-1) == 0 {
		return int(r.pcg.Uint64() & (m - 1))
	}
	hi, lo := bits.Mul64(r.pcg.Uint64(), m)
	if lo < m {
		for thresh := -m % m; lo < thresh; {
			hi, lo = bits.Mul64(r.pcg.Uint64(), m)
		}
	}
	return int(hi)
}

// uint32 returns the high 32 bits of a draw.
func (r *draws) uint32() uint32 { return uint32(r.pcg.Uint64() >> 32) }
