package fabric

import (
	"fmt"
	"strings"
	"testing"
)

// TestIBNetDiscoverOptionsOutputs: the output of ibnetdiscover -s (its
// progress lines, one per node found, before the topology) reads as the
// topology alone; the output of ibnetdiscover -l (a node list, no cables)
// is refused once, at its first line, naming the options that make one.
func TestIBNetDiscoverOptionsOutputs(t *testing.T) {
	f := ringFabric(t, 5)
	var topo, progress, list strings.Builder
	if err := WriteIBNetDiscover(&topo, f); err != nil {
		t.Fatal(err)
	}
	for i, n := range f.Nodes() {
		kind := map[Kind]string{Switch: "Switch", HCA: "Channel Adapter"}[n.Kind]
		fmt.Fprintf(&progress, "DR path slid 0; dlid 0; 0,%d -> new %s {%016x} portnum 0 lid 0-0 \"\"\n", i, kind, uint64(n.GUID))
		fmt.Fprintf(&list, "%s\t : %s ports %d devid 0x0 vendid 0x0 \"%s\"\n", map[Kind]string{Switch: "Switch", HCA: "Ca"}[n.Kind], n.GUID, n.Ports, n.Name)
	}
	plain, err := ReadIBNetDiscover(strings.NewReader(topo.String()), "topo")
	if err != nil {
		t.Fatal(err)
	}
	withProgress, err := ReadIBNetDiscover(strings.NewReader(progress.String()+topo.String()), "s.txt")
	if err != nil {
		t.Fatalf("-s output: %v", err)
	}
	if fmt.Sprint(describe(plain)) != fmt.Sprint(describe(withProgress)) {
		t.Fatal("-s output reads as another fabric")
	}
	_, err = ReadIBNetDiscover(strings.NewReader(list.String()), "l.txt")
	if err == nil || strings.Count(err.Error(), "\n") > 0 || !strings.HasPrefix(err.Error(), "l.txt:1: ") || !strings.Contains(err.Error(), "without those options") {
		t.Fatalf("-l output: %v", err)
	}
}
