package fabric

import (
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// endless is an input that never ends: seeded random bytes, or text
// lines of random printable junk, counting what was read.
type endless struct {
	rng   *rand.Rand
	text  bool
	count int64
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		switch {
		case !e.text:
			p[i] = byte(e.rng.Uint32())
		case e.rng.IntN(60) == 0:
			p[i] = '\n'
		default:
			p[i] = byte(' ' + e.rng.IntN(95))
		}
	}
	e.count += int64(len(p))
	return len(p), nil
}

// TestReadersRefuseEndlessInput: every reader that keeps its whole input
// (ibsim, ibnetdiscover, JSON, node-name-map), given an input that never
// ends — random bytes or lines of junk, seeded — stops after the limit
// (lowered to 1 MiB here) with a ParseError naming the file, instead of
// reading on until memory runs out.
func TestReadersRefuseEndlessInput(t *testing.T) {
	defer func(m int64) { maxDescription = m }(maxDescription)
	maxDescription = 1 << 20
	readers := map[string]func(io.Reader, string) error{
		"ibsim":         func(r io.Reader, f string) error { _, err := ReadIBSimNet(r, f); return err },
		"ibnetdiscover": func(r io.Reader, f string) error { _, err := ReadIBNetDiscover(r, f); return err },
		"json":          func(r io.Reader, f string) error { _, err := ReadJSON(r, f); return err },
		"node-name-map": func(r io.Reader, f string) error { _, err := ReadNodeNameMap(r, f); return err },
	}
	for name, read := range readers {
		for seed := range uint64(4) {
			in := &endless{rng: rand.New(rand.NewPCG(seed, 1)), text: seed%2 == 1}
			err := read(in, "endless.txt")
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "endless.txt" {
				t.Fatalf("%s, seed %d: %v", name, seed, err)
			}
			if in.count > maxDescription+1<<20 {
				t.Fatalf("%s, seed %d: read %d bytes with a limit of %d", name, seed, in.count, maxDescription)
			}
			if strings.Contains(pe.Msg, "longer than") {
				continue
			}
			if in.count < maxDescription && pe.Line == 0 {
				t.Fatalf("%s, seed %d: refused early without a line: %v", name, seed, err)
			}
		}
	}
}
