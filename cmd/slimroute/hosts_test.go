package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slimroute/cabling"
	"slimroute/fabric"
)

// TestPlanWithHostNamesIdentifiesAClusterNamedFabric is the cluster
// engineer's way: a discovery where every switch has its factory
// description, every GUID is unknown and each host describes itself as
// "nodeNNN mlx5_0". cabling verify against a plan without host names
// says, in one finding, to make the plan with --hosts; the plan made with
// --hosts node%03d (and with the same hosts as a CSV of rack positions)
// identifies every node and finds the fabric as planned; an exchanged
// pair of hosts is then a finding that names both hosts.
func TestPlanWithHostNamesIdentifiesAClusterNamedFabric(t *testing.T) {
	dir := t.TempDir()
	plain, hosted := filepath.Join(dir, "plain"), filepath.Join(dir, "hosted")
	for _, args := range [][]string{
		{"cabling", "plan", "--slimfly", "5", "-o", plain},
		{"cabling", "plan", "--slimfly", "5", "--hosts", "node%03d", "-o", hosted},
	} {
		if o := runCLI(args...); o.status != 0 {
			t.Fatalf("%v: exit %d: %s", args, o.status, o.stderr)
		}
	}
	planned, err := readPlanFabric(hosted)
	if err != nil {
		t.Fatal(err)
	}
	found := asDiscovered(t, planned, nil)
	discovered := filepath.Join(dir, "found.txt")
	writeFabricAs(t, discovered, found, fabric.FormatIBNetDiscover)

	o := runCLI("cabling", "verify", "--plan", plain, "--discovered", discovered, "--json")
	var rep cabling.Report
	if err := json.Unmarshal([]byte(o.stdout), &rep); err != nil || o.status != 1 {
		t.Fatalf("plan without hosts: exit %d, %v: %s", o.status, err, o.stderr)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Kind != cabling.Unanchored || !strings.Contains(rep.Findings[0].Instruction, "cabling plan --hosts") {
		t.Fatalf("plan without hosts: want one unanchored finding that names --hosts: %s", rep.Summary())
	}

	// the same hosts as a CSV of rack positions
	var csv strings.Builder
	csv.WriteString("rack,u,host\n")
	for _, n := range planned.Nodes() {
		if n.Kind == fabric.HCA {
			fmt.Fprintf(&csv, "%d,%d,%s\n", n.Place.Rack, n.Place.U, n.Name)
		}
	}
	hostsCSV, fromCSV := filepath.Join(dir, "hosts.csv"), filepath.Join(dir, "from-csv")
	if err := os.WriteFile(hostsCSV, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := runCLI("cabling", "plan", "--slimfly", "5", "--hosts", hostsCSV, "-o", fromCSV); o.status != 0 {
		t.Fatalf("--hosts %s: exit %d: %s", hostsCSV, o.status, o.stderr)
	}
	for _, plan := range []string{hosted, fromCSV} {
		if o := runCLI("cabling", "verify", "--plan", plan, "--discovered", discovered); o.status != 0 || !strings.Contains(o.stdout, "as planned") {
			t.Errorf("plan %s: exit %d:\n%s%s", filepath.Base(plan), o.status, o.stdout, o.stderr)
		}
	}

	// node007 and node150 in each other's ports: one finding, which names
	// the two planned cables by the IDs on their labels
	swapped := filepath.Join(dir, "swapped.txt")
	writeFabricAs(t, swapped, asDiscovered(t, planned, map[string]string{"node007": "node150", "node150": "node007"}), fabric.FormatIBNetDiscover)
	o = runCLI("cabling", "verify", "--plan", hosted, "--discovered", swapped)
	if o.status != 1 || !strings.Contains(o.stdout, "node007") || !strings.Contains(o.stdout, "node150") || !strings.Contains(o.stdout, "[planned cables: R0") {
		t.Errorf("two hosts exchanged: exit %d, want a finding naming node007, node150 and their planned cables:\n%s%s", o.status, o.stdout, o.stderr)
	}

	// a bad inventory names the line and what to write
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("rack,u,host\n1,1,node1\n1,x,node2\n"), 0o644)
	if o := runCLI("cabling", "plan", "--slimfly", "5", "--hosts", bad, "-o", filepath.Join(dir, "bad")); o.status != 2 || !strings.Contains(o.stderr, "--hosts: "+bad+":3:") {
		t.Errorf("bad CSV: exit %d: %s", o.status, o.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad")); err == nil {
		t.Errorf("a refused plan left its directory")
	}
}

// asDiscovered returns plan as a cluster's discovery shows it: switches
// with a factory description, every GUID new, hosts described as
// "HOST mlx5_0"; swap renames hosts (the devices in each other's ports).
func asDiscovered(t *testing.T, plan *fabric.Fabric, swap map[string]string) *fabric.Fabric {
	t.Helper()
	nodes := plan.Nodes()
	for i := range nodes {
		nodes[i].GUID, nodes[i].Attrs, nodes[i].Place = fabric.GUID(0x0c42a10000000000|uint64(i+1)<<8), nil, fabric.Placement{}
		switch {
		case nodes[i].Kind == fabric.Switch:
			nodes[i].Name = fmt.Sprintf("MF0;switch-%06x:MQM8700/U1", 0xa000+i)
		case swap[nodes[i].Name] != "":
			nodes[i].Name = swap[nodes[i].Name] + " mlx5_0"
		default:
			nodes[i].Name += " mlx5_0"
		}
	}
	f, err := fabric.New(nodes, plan.Links())
	if err != nil {
		t.Fatal(err)
	}
	return f
}
