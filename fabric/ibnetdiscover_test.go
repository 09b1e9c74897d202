package fabric_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/slimfly"
)

// ibndDump is the Slim Fly of q as ibnetdiscover output.
func ibndDump(t *testing.T, q int) *bytes.Buffer {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: q})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := fabric.WriteIBNetDiscover(&b, f); err != nil {
		t.Fatal(err)
	}
	return &b
}

// A malformed port line is reported at its line, naming the node of the
// record it is in (by its description), never another node or comment text.
func TestIBNetDiscoverNamesTheNodeOfABadPortLine(t *testing.T) {
	b := ibndDump(t, 3)
	lines := strings.Split(b.String(), "\n")
	rng := rand.New(rand.NewPCG(3, 4))
	breakers := []func(string) string{
		func(string) string { return "[99]\t\"S-0000000000000001\"[1]" },                // no such port
		func(l string) string { _, c, _ := strings.Cut(l, "#"); return "[1]\t\t#" + c }, // remote id lost, comment kept
		func(l string) string { k := strings.LastIndex(l, "\"["); return l[:k+2] },      // cut after the remote id
		func(l string) string { return l[:strings.IndexByte(l, ']')+1] + "(zz) \"x\"[1]" },
	}
	desc := ""
	for i, l := range lines {
		if strings.HasPrefix(l, "Switch") || strings.HasPrefix(l, "Ca") {
			_, c, _ := strings.Cut(l, "#")
			desc = strings.Split(c, "\"")[1]
		}
		if !strings.HasPrefix(l, "[") || rng.IntN(4) != 0 {
			continue
		}
		for k, br := range breakers {
			if k == 3 && !strings.HasPrefix(l, "[1](") {
				continue // the port GUID is an HCA port line's
			}
			bad := append([]string(nil), lines...)
			bad[i] = br(l)
			_, err := fabric.ReadIBNetDiscover(strings.NewReader(strings.Join(bad, "\n")), "found.txt")
			want := fmt.Sprintf("found.txt:%d: port ", i+1)
			if why := []string{"the node has ports", "missing remote node id", "missing or bad remote port", ""}[k]; !strings.Contains(strings.SplitN(fmt.Sprint(err), "\n", 2)[0], why) {
				t.Fatalf("line %d %q → %q: error %v; want %q", i+1, l, bad[i], err, why)
			}
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(strings.SplitN(err.Error(), "\n", 2)[0], fmt.Sprintf("of %q", desc)) {
				t.Fatalf("line %d %q → %q: error %v; want %q naming %q", i+1, l, bad[i], err, want, desc)
			}
		}
	}
}

// A dump cut short anywhere is refused with a short list that says so,
// not one message per cable to a node whose record was cut off.
func TestIBNetDiscoverCutShortSaysSo(t *testing.T) {
	b := ibndDump(t, 5)
	whole := b.Bytes()
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		n := 100 + rng.IntN(len(whole)*9/10)
		_, err := fabric.ReadIBNetDiscover(bytes.NewReader(whole[:n]), "found.txt")
		if err == nil {
			t.Fatalf("cut at byte %d of %d: accepted", n, len(whole))
		}
		msg := err.Error()
		if strings.Count(msg, "unknown node") > 3 || strings.Count(msg, "\n") > 20 {
			t.Fatalf("cut at byte %d: %d lines:\n%s", n, strings.Count(msg, "\n")+1, msg)
		}
		if strings.Count(msg, "port lines") > 0 && !strings.Contains(msg, "cut short") {
			t.Fatalf("cut at byte %d: %s", n, msg)
		}
	}
}

// An LMC outside 0..7 or a LID that is not a 16-bit number, in a switch's
// header or an HCA port's line, is refused at its line (seeded draws of
// the lines of a q=3 dump); `route --lids-from-fabric` would otherwise
// assign LIDs the file does not say.
func TestIBNetDiscoverRefusesBadLMCAndLIDAtTheirLine(t *testing.T) {
	lines := strings.Split(ibndDump(t, 3).String(), "\n")
	rng := rand.New(rand.NewPCG(10, 7))
	breakers := []struct{ from, to, want string }{
		{" lmc 0", " lmc 8", "LMC is 0..7"},
		{" lmc 0", " lmc 255", "LMC is 0..7"},
		{" lmc 0", " lmc x", "LMC is 0..7"},
		{" lmc 0", " lmc -1", "LMC is 0..7"},
		{" lid 0 lmc", " lid x lmc", "lid"},
		{" lid 0 lmc", " lid 70000 lmc", "lid"},
	}
	tried := 0
	for i, l := range lines {
		if !strings.Contains(l, " lmc 0") || rng.IntN(3) != 0 {
			continue
		}
		b := breakers[tried%len(breakers)]
		tried++
		bad := append([]string(nil), lines...)
		bad[i] = strings.Replace(l, b.from, b.to, 1)
		_, err := fabric.ReadIBNetDiscover(strings.NewReader(strings.Join(bad, "\n")), "found.txt")
		var pe *fabric.ParseError
		if !errors.As(err, &pe) || pe.Line != i+1 || !strings.Contains(pe.Msg, b.want) {
			t.Fatalf("line %d %q: error %v; want found.txt:%d saying %q", i+1, bad[i], err, i+1, b.want)
		}
	}
	if tried < 12 {
		t.Fatalf("only %d lines tried", tried)
	}
}
