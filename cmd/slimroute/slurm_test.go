package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/jobs"
)

// TestExportSlurmTopologyEndToEnd: export slurm-topology on a Slim Fly
// named by --hosts writes blocks of node001…node200, each host once, to
// a file (atomically) and the same bytes to standard output with -o -
// (its report then on standard error); a 3-level Clos read from a file
// gets the tree form, the same bytes whatever the order of the file's
// nodes and cables; a bad --form and hosts Slurm cannot name are refused
// with exit 2, naming the flag or the HCAs.
func TestExportSlurmTopologyEndToEnd(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "topology.conf")
	o := runCLI("export", "slurm-topology", "--slimfly", "5", "--hosts", "node%03d", "-o", conf)
	b, err := os.ReadFile(conf)
	if o.status != 0 || err != nil || !strings.Contains(o.stdout, "50 blocks, BlockSizes 4,8,16,32,64,128,256") {
		t.Fatalf("exit %d %v: %s %s", o.status, err, o.stdout, o.stderr)
	}
	var hosts []string
	for _, ln := range strings.Split(string(b), "\n") {
		if list, ok := strings.CutPrefix(ln, "BlockName="); ok {
			h, err := jobs.ExpandHostlist(strings.TrimPrefix(strings.Fields(list)[1], "Nodes="))
			if err != nil {
				t.Fatal(err)
			}
			hosts = append(hosts, h...)
		}
	}
	if len(hosts) != 200 || !strings.Contains(string(b), "Nodes=node[001-004]\n") {
		t.Fatalf("%d hosts:\n%s", len(hosts), b)
	}
	if o := runCLI("export", "slurm-topology", "--slimfly", "5", "--hosts", "node%03d", "-o", "-"); o.stdout != string(b) || !strings.Contains(o.stderr, "wrote topology.conf") {
		t.Fatalf("-o - differs from the file, or no report on standard error: %s", o.stderr)
	}

	f, err := clos.Build(clos.Params{Levels: 3, Radix: 6, Pods: 3})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(30, 4))
	var want string
	for i, g := range []*fabric.Fabric{f, shuffled(t, f, rng), shuffled(t, f, rng)} {
		in := writeFabricAs(t, filepath.Join(dir, "clos.ibnetdiscover"), g, fabric.FormatIBNetDiscover)
		o := runCLI("export", "slurm-topology", "--fabric", in, "--yaml", "-o", "-")
		if o.status != 0 || !strings.Contains(o.stdout, "  tree:\n") || !strings.Contains(o.stdout, `children: "pod[1-3]"`) {
			t.Fatalf("exit %d: %s %s", o.status, o.stdout, o.stderr)
		}
		if i == 0 {
			want = o.stdout
		} else if o.stdout != want {
			t.Fatalf("shuffle %d: other bytes:\n%s\nwant\n%s", i, o.stdout, want)
		}
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--slimfly", "5", "--form", "ring"}, `--form "ring": want tree`},
		{[]string{"--slimfly", "5", "--hosts", "node[%d]"}, "--hosts"},
		{[]string{"--fabric", writeFabricAs(t, filepath.Join(dir, "dual.net"), dualRail(t, f), fabric.FormatIBSim)}, `both name host node1`},
	} {
		o := runCLI(append([]string{"export", "slurm-topology", "-o", filepath.Join(dir, "bad.conf")}, c.args...)...)
		if o.status != 2 || !strings.Contains(o.stderr, c.want) || fileExists(filepath.Join(dir, "bad.conf")) {
			t.Errorf("%v: exit %d, want 2 and %q: %s", c.args, o.status, c.want, o.stderr)
		}
	}
}

// dualRail names f's HCAs two to a host, as a host with two HCAs
// describes them ("node1 mlx5_0", "node1 mlx5_1").
func dualRail(t *testing.T, f *fabric.Fabric) *fabric.Fabric {
	nodes := f.Nodes()
	k := 0
	for i := range nodes {
		if nodes[i].Kind == fabric.HCA {
			nodes[i].Name = fmt.Sprintf("node%d mlx5_%d", 1+k/2, k%2)
			k++
		}
	}
	g, err := fabric.New(nodes, f.Links())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
