package fabric_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/slimfly"
)

// headerPorts matches the port count of a Switch/Hca/Ca record header in
// an ibsim net file and in ibnetdiscover output.
var headerPorts = regexp.MustCompile(`^(Switch|Hca|Ca)([ \t]+)([0-9]+)`)

// TestMalformedHeaderPortCountIsRefusedAtItsLine replaces, in seeded
// draws, the port count of a record header of a Slim Fly's ibsim net file
// and ibnetdiscover dump with something that is not a count of 1..254 —
// a sign, a fraction, a unit, an exponent, hex, out of range — and
// requires a *fabric.ParseError at that header's line (never a count read
// from the digits in it). Counts spelt another valid way read the same
// fabric.
func TestMalformedHeaderPortCountIsRefusedAtItsLine(t *testing.T) {
	f, err := slimfly.Build(slimfly.Params{Q: 3})
	if err != nil {
		t.Fatal(err)
	}
	var net, ibnd bytes.Buffer
	fabric.WriteIBSimNet(&net, f)
	fabric.WriteIBNetDiscover(&ibnd, f)
	readers := []struct {
		name string
		text string
		read func(string) (*fabric.Fabric, error)
	}{
		{"ibsim", net.String(), func(s string) (*fabric.Fabric, error) { return fabric.ReadIBSimNet(strings.NewReader(s), "n.net") }},
		{"ibnetdiscover", ibnd.String(), func(s string) (*fabric.Fabric, error) {
			return fabric.ReadIBNetDiscover(strings.NewReader(s), "n.net")
		}},
	}
	bad := []func(n string) string{
		func(n string) string { return "-" + n },
		func(n string) string { return n + ".9" },
		func(n string) string { return n + "x" },
		func(n string) string { return n + "e9" },
		func(n string) string { return "1e9" },
		func(n string) string { return "0x" + n },
		func(n string) string { return "+" + n },
		func(n string) string { return "0" },
		func(n string) string { return "255" },
		func(n string) string { return "4294967297" },
		func(n string) string { return "x" },
		func(n string) string { return "" },
	}
	rng := rand.New(rand.NewPCG(9, 1))
	for _, r := range readers {
		lines := strings.Split(r.text, "\n")
		var headers []int
		for i, l := range lines {
			if headerPorts.MatchString(l) {
				headers = append(headers, i)
			}
		}
		for draw := range 60 {
			i := headers[rng.IntN(len(headers))]
			m := headerPorts.FindStringSubmatchIndex(lines[i])
			n := lines[i][m[6]:m[7]]
			mutated := bad[draw%len(bad)](n)
			out := append([]string(nil), lines...)
			out[i] = lines[i][:m[6]] + mutated + lines[i][m[7]:]
			_, err := r.read(strings.Join(out, "\n"))
			var pe *fabric.ParseError
			if !errors.As(err, &pe) || pe.File != "n.net" || pe.Line != i+1 {
				t.Fatalf("%s: header %q → %q: error %v; want a *ParseError at n.net:%d", r.name, lines[i], out[i], err, i+1)
			}
			if !strings.Contains(pe.Msg, "1..254") {
				t.Fatalf("%s: %q: %v does not give the range", r.name, out[i], err)
			}
		}
		// a leading zero is still the same count
		i := headers[0]
		m := headerPorts.FindStringSubmatchIndex(lines[i])
		out := append([]string(nil), lines...)
		out[i] = lines[i][:m[6]] + "0" + lines[i][m[6]:]
		g, err := r.read(strings.Join(out, "\n"))
		if err != nil {
			t.Fatalf("%s: %q: %v", r.name, out[i], err)
		}
		if want, _ := r.read(r.text); fmt.Sprint(g.Nodes()) != fmt.Sprint(want.Nodes()) {
			t.Fatalf("%s: %q read another fabric", r.name, out[i])
		}
	}
}
