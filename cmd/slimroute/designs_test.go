package main

import (
	"strings"
	"testing"

	"slimroute/fabric"
)

// TestTopoBuildsTheOtherDesigns: topo polarfly, hyperx and dragonfly-plus
// write the fabric their flags describe, and refuse bad shapes naming the
// flag and what fits.
func TestTopoBuildsTheOtherDesigns(t *testing.T) {
	for _, c := range []struct {
		args           []string
		switches, hcas int
	}{
		{[]string{"topo", "polarfly", "--q", "5"}, 31, 31 * 3},
		{[]string{"topo", "polarfly", "--q", "4", "--endpoints", "2"}, 21, 42},
		{[]string{"topo", "hyperx", "--dims", "3x4", "--trunk", "2"}, 12, 12 * 3},
		{[]string{"topo", "hyperx", "--dims", "2,2,2", "--endpoints", "1"}, 8, 8},
		{[]string{"topo", "dragonfly-plus", "--radix", "8", "--groups", "9"}, 9 * 8, 9 * 16},
	} {
		out, err := runApp(t, append(c.args, "--format", "json")...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		f, err := fabric.Read(strings.NewReader(out), "out.json", fabric.FormatJSON)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if st := fabric.ComputeStats(f); st.Switches != c.switches || st.HCAs != c.hcas {
			t.Errorf("%v: %d switches and %d HCAs, want %d and %d", c.args, st.Switches, st.HCAs, c.switches, c.hcas)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"topo", "polarfly", "--q", "6"}, "try q in {2, 3, 4, 5, 7, 8, 9, 11, 13}"},
		{[]string{"topo", "polarfly", "--q", "1000"}, "--q 1000: out of range"},
		{[]string{"topo", "hyperx", "--dims", "12x8x"}, `--dims "12x8x": want 1 to 6 sizes joined by x`},
		{[]string{"topo", "hyperx", "--dims", "12xa"}, `"a" is not a number of switches`},
		{[]string{"topo", "hyperx", "--dims", "200x200"}, "398 network ports per switch"},
		{[]string{"topo", "dragonfly-plus", "--radix", "8", "--groups", "6"}, "use groups in [2 3 5 9 17]"},
		{[]string{"topo", "dragonfly-plus", "--radix", "40"}, "use groups=101"},
	} {
		if _, err := runApp(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}
