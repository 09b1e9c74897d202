package fabric

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// portLine is the grammar of an ibsim port line, written from the format:
// [port] "remote id"[remote port], then options w=/s= (each once, in
// range), then a comment.
var portLine = regexp.MustCompile(`^\[[ \t]*\d+[ \t]*\][ \t]*"[^"]+"(\[[ \t]*\d+[ \t]*\])?([ \t]+(w=(0*[1-9]|0*1[0-5])|s=0*[1-7]))?([ \t]+(s=0*[1-7]))?[ \t]*(#.*)?$`)

// TestIBSimPortLineEditsAreReadOrRefusedAtTheirLine: over seeded edits of
// one port line of a ring fabric's ibsim net file — a character from a
// set of likely typos ([ ] " x # = w s digits, blanks, letters) inserted
// at a random place after the local port — the reader reads no line the
// grammar (portLine) refuses, and either reads the same fabric (the edit
// was a blank, a comment, a harmless digit…) or
// refuses the file with errors each at the edited line or naming it (the
// other end of a cable whose remote port changed). Before, junk after the remote node id ("sw"x1]) read as
// remote port 1, and a refused line's other end was reported as "listed
// on one side only" with advice to add a line that was there.
func TestIBSimPortLineEditsAreReadOrRefusedAtTheirLine(t *testing.T) {
	f := ringFabric(t, 6)
	var b bytes.Buffer
	if err := WriteIBSimNet(&b, f); err != nil {
		t.Fatal(err)
	}
	want := describe(f)
	lines := strings.Split(b.String(), "\n")
	var ports []int
	for i, l := range lines {
		if strings.HasPrefix(l, "[") {
			ports = append(ports, i)
		}
	}
	typos := "[]\"x#=ws019 \tQ-"
	read, refused := 0, 0
	for seed := range uint64(2000) {
		rng := rand.New(rand.NewPCG(seed, 3))
		i := ports[rng.IntN(len(ports))]
		l := lines[i]
		at := strings.IndexByte(l, ']') + 1 + rng.IntN(len(l)-strings.IndexByte(l, ']'))
		edited := l[:at] + string(typos[rng.IntN(len(typos))]) + l[at:]
		text := strings.Join(append(append(append([]string(nil), lines[:i]...), edited), lines[i+1:]...), "\n")
		g, err := ReadIBSimNet(strings.NewReader(text), "ring.net")
		if err == nil && !portLine.MatchString(edited) {
			t.Fatalf("seed %d: %q read, though not a port line", seed, edited)
		}
		if err == nil {
			if got := describe(g); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("seed %d: %q read as another fabric", seed, edited)
			}
			read++
			continue
		}
		refused++
		for _, e := range strings.Split(err.Error(), "\n") {
			if !strings.HasPrefix(e, fmt.Sprintf("ring.net:%d:", i+1)) && !strings.Contains(e, fmt.Sprintf("line %d ", i+1)) {
				t.Fatalf("seed %d: %q (line %d) refused as %v", seed, edited, i+1, err)
			}
		}
	}
	t.Logf("%d edits read as the same fabric, %d refused at their line", read, refused)
}
