package lft

import (
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/slimfly"
)

// TestOtherLIDsNamesTheFirstPortThatDiffers: the same plan twice, and a
// fabric without an HCA port (whose plan then differs in the count of
// ports, and from that port's LIDs on), and another LMC, each compared as
// the switch-over's checks compare them, ports matched by node GUID.
func TestOtherLIDsNamesTheFirstPortThatDiffers(t *testing.T) {
	f, err := slimfly.Build(slimfly.Params{Q: 3})
	if err != nil {
		t.Fatal(err)
	}
	plan := func(f *fabric.Fabric, lmc int) *LIDs {
		l, err := AssignLIDs(f, LIDOptions{LMC: lmc})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	a := plan(f, 2)
	if d := OtherLIDs(f, a, f, plan(f, 2)); d != "" {
		t.Errorf("the same plan: %q", d)
	}
	less, err := f.Without([]fabric.NodeID{f.IDsOf(fabric.HCA)[0]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := OtherLIDs(f, a, less, plan(less, 2)); !strings.Contains(d, "ports, not") {
		t.Errorf("a plan without an HCA: %q", d)
	}
	hca := f.Name(f.IDsOf(fabric.HCA)[0])
	if d := OtherLIDs(f, a, f, plan(f, 1)); !strings.Contains(d, `"`+hca+`"`) {
		t.Errorf("LMC 1 against 2: %q, want the first HCA, %s", d, hca)
	}
}
