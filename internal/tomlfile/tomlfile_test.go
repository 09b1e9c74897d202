package tomlfile

import (
	"errors"
	"strings"
	"testing"

	"slimroute/internal/parseerr"
)

type config struct {
	Layers int
	Seed   int
	Clos   struct{ Levels int }
}

const known = "layers, seed, [clos] levels"

func TestDecodeFillsTheValue(t *testing.T) {
	var c config
	if err := Decode(strings.NewReader("layers = 4\nseed = 7\n[clos]\nlevels = 3\n"), "c.toml", &c, known); err != nil {
		t.Fatal(err)
	}
	if c.Layers != 4 || c.Seed != 7 || c.Clos.Levels != 3 {
		t.Errorf("decoded %+v", c)
	}
}

// A syntax error is a *parseerr.Error on the line that holds the mistake,
// also when the TOML decoder only notices it at the next line's start.
func TestSyntaxErrorNamesFileAndLine(t *testing.T) {
	cases := []struct{ name, in string }{
		{"value missing at end of line", "layers = 4\nseed =\nlevels = 3\n"},
		{"unclosed string", "layers = 4\nseed = \"7\n"},
		{"bad table header", "layers = 4\n[clos\n"},
		{"text after value", "layers = 4 four\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// the bad line is the last non-empty line that the case's
			// mistake is on: found by looking for the mistake, not by a run
			want := 0
			for i, l := range strings.Split(c.in, "\n") {
				if strings.HasSuffix(l, "=") || strings.Count(l, "\"")%2 == 1 || strings.HasPrefix(l, "[") && !strings.HasSuffix(l, "]") || strings.HasSuffix(l, "four") {
					want = i + 1
				}
			}
			var v config
			err := Decode(strings.NewReader(c.in), "c.toml", &v, known)
			var pe *parseerr.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *parseerr.Error", err)
			}
			if pe.File != "c.toml" || pe.Line != want {
				t.Errorf("position %s:%d, want c.toml:%d (%v)", pe.File, pe.Line, want, err)
			}
		})
	}
}

func TestUnknownKeysAreNamedSortedWithTheKnownOnes(t *testing.T) {
	var c config
	err := Decode(strings.NewReader("zeta = 1\nlayers = 2\nalpha = 3\n[clos]\nlevel = 3\n"), "c.toml", &c, known)
	if err == nil {
		t.Fatal("no error")
	}
	want := "c.toml: unknown key alpha, clos.level, zeta; known keys: " + known
	if err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
}

func TestTypeMismatchNamesTheFile(t *testing.T) {
	var c config
	err := Decode(strings.NewReader("layers = \"four\"\n"), "c.toml", &c, known)
	if err == nil || !strings.HasPrefix(err.Error(), "c.toml:1: ") || !strings.Contains(err.Error(), "layers") {
		t.Errorf("error %v: want one starting with the file name and naming the key", err)
	}
}

// zeros is an input of NUL bytes that never ends, counting what was read.
type zeros struct{ count int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.count += int64(len(p))
	return len(p), nil
}

// TestDecodeRefusesEndlessInput: a TOML file that never ends (/dev/zero
// given as a spec) is refused once past the limit (lowered to 1 MiB
// here), naming the file, instead of read until memory runs out.
func TestDecodeRefusesEndlessInput(t *testing.T) {
	defer func(m int64) { maxBytes = m }(maxBytes)
	maxBytes = 1 << 20
	in := &zeros{}
	var c config
	err := Decode(in, "zero.toml", &c, known)
	var pe *parseerr.Error
	if !errors.As(err, &pe) || pe.File != "zero.toml" || !strings.Contains(pe.Msg, "longer than") {
		t.Fatalf("want the file refused as too long: %v", err)
	}
	if in.count > maxBytes+1<<20 {
		t.Fatalf("read %d bytes with a limit of %d", in.count, maxBytes)
	}
}

// TestTypeErrorsSpeakTOML: a value of the wrong kind is a *parseerr.Error
// at its line that names the key and what it wants in TOML's words (a
// table, an integer), not the Go types the decoder fills.
func TestTypeErrorsSpeakTOML(t *testing.T) {
	cases := []struct {
		in   string
		line int
		want string
	}{
		{"layers = 4\nclos = 3\n", 2, "clos: want a table ([clos] and keys under it), found a value"},
		{"layers = 4\n[[clos]]\nlevels = 3\n", 2, "clos: want one table [clos], found an array of them ([[clos]])"},
		{"layers = \"four\"\n", 1, "layers: want an integer value, found a string"},
		{"seed = 1\n[clos]\nlevels = 2.5\n", 3, "clos.levels: want an integer value, found a float"},
	}
	for _, c := range cases {
		var v config
		err := Decode(strings.NewReader(c.in), "c.toml", &v, known)
		var pe *parseerr.Error
		if !errors.As(err, &pe) || pe.Line != c.line || pe.Msg != c.want || strings.Contains(err.Error(), "int64") {
			t.Errorf("%q: %v, want c.toml:%d: %s", c.in, err, c.line, c.want)
		}
	}
}
