package cabling

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/slimfly"
)

// placedPlan is the q = 5 Slim Fly laid out in racks, as cabling plan
// makes it.
func placedPlan(t *testing.T) *fabric.Fabric {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	p, err := MakePlan(f, DefaultGeometry())
	if err != nil {
		t.Fatal(err)
	}
	return p.Fabric
}

// hcasInRackOrder lists f's HCAs by rack, unit and name, as the judge of
// the tests below sees rack order.
func hcasInRackOrder(f *fabric.Fabric) []fabric.Node {
	var out []fabric.Node
	for _, n := range f.Nodes() {
		if n.Kind == fabric.HCA {
			out = append(out, n)
		}
	}
	slices.SortStableFunc(out, func(a, b fabric.Node) int {
		if a.Place.Rack != b.Place.Rack {
			return a.Place.Rack - b.Place.Rack
		}
		if a.Place.U != b.Place.U {
			return a.Place.U - b.Place.U
		}
		switch { // then by plan name, numbers as numbers
		case naturalLess(a.Name, b.Name):
			return -1
		case naturalLess(b.Name, a.Name):
			return 1
		}
		return 0
	})
	return out
}

// TestHostsNameThePlansHCAs names the q = 5 plan's HCAs three ways — a
// pattern, a shuffled list in rack order, a CSV of rack positions in a
// random row order — and wants each HCA named as asked, in its place,
// with the same cables, and nothing else renamed.
func TestHostsNameThePlansHCAs(t *testing.T) {
	plan := placedPlan(t)
	hcas := hcasInRackOrder(plan)
	rng := rand.New(rand.NewPCG(5, 9))
	want := make([]string, len(hcas)) // per HCA in rack order: its host
	for i := range want {
		want[i] = fmt.Sprintf("gpu-%d", rng.Uint32())
	}
	var list, csv strings.Builder
	list.WriteString("# hosts in rack order\n\n")
	csv.WriteString("rack,u,host\n")
	var rows []string
	for i, n := range hcas {
		fmt.Fprintln(&list, want[i])
		rows = append(rows, fmt.Sprintf("%d,%d,%s", n.Place.Rack, n.Place.U, want[i]))
	}
	csv.WriteString(strings.Join(rows, "\n"))
	fromList, err := ReadHosts(strings.NewReader(list.String()), "hosts.txt")
	if err != nil {
		t.Fatal(err)
	}
	fromCSV, err := ReadHosts(strings.NewReader(csv.String()), "hosts.csv")
	if err != nil {
		t.Fatal(err)
	}
	pattern, err := HostPattern("node%03d")
	if err != nil {
		t.Fatal(err)
	}
	numbered := make([]string, len(hcas))
	for i := range numbered {
		numbered[i] = fmt.Sprintf("node%03d", i+1)
	}
	for _, c := range []struct {
		name  string
		hosts Hosts
		want  []string
	}{{"list", fromList, want}, {"csv", fromCSV, want}, {"pattern", pattern, numbered}} {
		named, err := NameHosts(plan, c.hosts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i, n := range hcas {
			id, ok := named.NodeByName(c.want[i])
			if !ok {
				t.Fatalf("%s: no node %q (for %s)", c.name, c.want[i], n.Name)
			}
			got := named.Node(id)
			if got.GUID != n.GUID || got.Place != n.Place {
				t.Errorf("%s: %q is GUID %s at %v, want %s's GUID %s at %v", c.name, c.want[i], got.GUID, got.Place, n.Name, n.GUID, n.Place)
			}
		}
		for _, n := range plan.Nodes() {
			if id, ok := named.NodeByGUID(n.GUID); !ok || (n.Kind == fabric.Switch && named.Node(id).Name != n.Name) {
				t.Errorf("%s: switch %s renamed or lost", c.name, n.Name)
			}
		}
		if named.NumLinks() != plan.NumLinks() {
			t.Errorf("%s: %d cables, the plan has %d", c.name, named.NumLinks(), plan.NumLinks())
		}
	}
}

// TestBadHostsNameTheirFault: every kind of bad inventory gives an error
// that names the file and line, or the counts, and what to write.
func TestBadHostsNameTheirFault(t *testing.T) {
	plan := placedPlan(t)
	hcas := hcasInRackOrder(plan)
	first := hcas[0].Place
	for _, c := range []struct {
		name, text string
		want       string
	}{
		{"too few", "a\nb\n", "lists 2 host names, the plan has 200 HCAs"},
		{"a comma in a list", "a\nb,c\n", "hosts.txt:2:"},
		{"a space", "node 1\n", "hosts.txt:1: host name \"node 1\": no spaces"},
		{"empty", "# nothing\n\n", "hosts.txt: no host names"},
		{"bad rack", "rack,u,host\nx,1,a\n", "hosts.txt:2: \"x,1,a\": rack \"x\""},
		{"bad unit", "rack,u,host\n1,100000,a\n", "hosts.txt:2: \"1,100000,a\": unit"},
		{"a missing position", "rack,u,host\n" + fmt.Sprintf("%d,%d,a\n", first.Rack, first.U), "add a row"},
		{"an empty position", "rack,u,host\n" + csvAll(hcas) + "9,40,extra\n", fmt.Sprintf("hosts.txt:%d: no planned HCA left in rack 9, unit 40", len(hcas)+2)},
		{"twice", "rack,u,host\n" + strings.Replace(csvAll(hcas), "h1\n", "h0\n", 1), "host name \"h0\" is used twice"},
		{"a switch's name", "rack,u,host\n" + strings.Replace(csvAll(hcas), ",h0\n", ",sw-0-0-0\n", 1), "\"sw-0-0-0\" is used twice (also for a switch)"},
	} {
		h, err := ReadHosts(strings.NewReader(c.text), "hosts.txt")
		if err == nil {
			_, err = NameHosts(plan, h)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v (want %q)", c.name, err, c.want)
		}
	}
	for _, p := range []string{"node%03d%d", "node", "node%s", "n ode%d"} {
		if _, err := HostPattern(p); err == nil {
			t.Errorf("pattern %q accepted", p)
		}
	}
}

// csvAll is a hosts CSV naming every HCA h0, h1, … in rack order.
func csvAll(hcas []fabric.Node) string {
	var b strings.Builder
	for i, n := range hcas {
		fmt.Fprintf(&b, "%d,%d,h%d\n", n.Place.Rack, n.Place.U, i)
	}
	return b.String()
}
