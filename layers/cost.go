package layers

import (
	"math"
	"math/bits"
)

// Integer costs.
//
// Every choice between routes in this package is taken on integers: a
// compiler may fuse a float multiply and add into one instruction (Go
// allows it; amd64 with GOAMD64=v3 and arm64 do it), which rounds
// differently, so float scores made the tables depend on how the binary
// was built — an OpenSM host on ARM would have programmed other tables
// than the command line predicted on x86. Fractions are fixed point in
// units of 1/pathUnit (a cost of pathUnit is one disjoint path, a share
// of pathUnit a whole tree), factors are per mille, and products go
// through mulDiv's 128-bit intermediate.

// cost is a price in units of 1/pathUnit disjoint path.
type cost = int64

// pathUnit is one disjoint path (or, for a share, one whole tree).
const pathUnit = 1 << 20

// costCeil bounds what mulDiv returns, so that sums of a few costs
// cannot overflow.
const costCeil = math.MaxInt64 >> 4

// permille is a factor in thousandths.
type permille int64

// mulDiv returns ⌊a × b / c⌋ for a, b ≥ 0 and c > 0 (0 otherwise), at
// most costCeil.
func mulDiv(a, b, c int64) int64 {
	if a <= 0 || b <= 0 || c <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return costCeil
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(min(q, costCeil))
}

// The annealing keeps a loss of x at temperature T with probability
// e^(−x/T): acceptance[i] is 2^32 × e^(−i/acceptSteps), built by integer
// multiplication from e^(−1/acceptSteps) in 64-bit fixed point, so every
// build holds the same table. Losses beyond acceptMax × T are refused
// (e^−20 ≈ 2·10^−9).
const (
	acceptSteps = 256
	acceptMax   = 20
	// expStep is ⌊2^64 × e^(−1/256)⌉.
	expStep = 0xff007fd55ffdde39
)

var acceptance = func() []uint32 {
	t := make([]uint32, acceptSteps*acceptMax)
	v := uint64(math.MaxUint64) // 1 in 64-bit fixed point, less an ulp
	for i := range t {
		t[i] = uint32(v >> 32)
		v, _ = bits.Mul64(v, expStep)
	}
	return t
}()

// accepts tells whether a loss (loss > 0, in cost units) is kept at
// temperature temp (cost units, > 0) given a uniform 32-bit draw.
func accepts(loss, temp cost, draw uint32) bool {
	i := mulDiv(loss, acceptSteps, temp)
	return i < int64(len(acceptance)) && draw < acceptance[i]
}
