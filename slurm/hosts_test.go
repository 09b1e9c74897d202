package slurm_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"slimroute/clos"
	"slimroute/dragonflyplus"
	"slimroute/fabric"
	"slimroute/internal/disguise"
	"slimroute/slurm"
)

// renamed returns f with the HCAs named by name(i) in node order.
func renamed(t *testing.T, f *fabric.Fabric, name func(i int) string) *fabric.Fabric {
	t.Helper()
	nodes := f.Nodes()
	i := 0
	for k := range nodes {
		if nodes[k].Kind == fabric.HCA {
			nodes[k].Name = name(i)
			i++
		}
	}
	g, err := fabric.New(nodes, f.Links())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestHostNameProblemsAreNamed: HCAs described as hosts ("node003
// mlx5_0") give those hosts; two HCAs of one host, and a description
// Slurm cannot take as a name, are refused naming the HCAs and saying
// how to name the hosts.
func TestHostNameProblemsAreNamed(t *testing.T) {
	f, err := clos.Build(clos.Params{Radix: 8})
	if err != nil {
		t.Fatal(err)
	}
	good := renamed(t, f, func(i int) string {
		return []string{"node", "gpu"}[i%2] + strings.Repeat("0", 2) + string(rune('0'+i%10)) + string(rune('a'+i/10)) + " mlx5_0"
	})
	top, err := slurm.Build(good)
	if err != nil || !strings.HasPrefix(top.Leaves[0].Hosts[0], "gpu") {
		t.Fatalf("described hosts: %v %v", top, err)
	}
	for _, c := range []struct {
		name func(i int) string
		want string
	}{
		{func(i int) string { return fmt.Sprintf("MT4123 ConnectX6 #%d", i) }, `both name host MT4123`},
		{func(i int) string { return fmt.Sprintf("node%d mlx5_%d", i/2, i%2) }, `both name host node0`},
		{func(i int) string { return fmt.Sprintf("node[%d]", i) }, `names no host Slurm can use`},
		{func(i int) string { return fmt.Sprintf(" dev%d", i) }, `names no host Slurm can use`},
	} {
		_, err := slurm.Build(renamed(t, f, c.name))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--hosts") || !strings.Contains(err.Error(), "0x4348") {
			t.Errorf("want an error naming the HCAs (%s) and --hosts, got %v", c.want, err)
		}
	}
}

// TestTopologyDoesNotDependOnTheFabricsOrder: a Clos and a Dragonfly+
// listed with their nodes, cables and cable ends in drawn orders, put in
// GUID order (fabric.Canonical, as the commands read a file), give the
// same bytes in every form.
func TestTopologyDoesNotDependOnTheFabricsOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 3))
	c, _ := clos.Build(clos.Params{Levels: 3, Radix: 6, Pods: 3})
	d, _ := dragonflyplus.Build(dragonflyplus.Params{Radix: 6})
	for _, f := range []*fabric.Fabric{c, d} {
		var want []byte
		for i := 0; i < 4; i++ {
			g, err := disguise.Shuffled(f, rng)
			if err == nil {
				g, err = g.Canonical()
			}
			if err != nil {
				t.Fatal(err)
			}
			top, err := slurm.Build(g)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			for _, form := range []slurm.Form{slurm.FormTree, slurm.FormBlock} {
				_ = slurm.WriteConf(&b, top, form)
				_ = slurm.WriteYAML(&b, top, form, "x")
			}
			if i == 0 {
				want = b.Bytes()
			} else if !bytes.Equal(b.Bytes(), want) {
				t.Fatalf("shuffle %d gives other bytes:\n%s\nwant\n%s", i, b.Bytes(), want)
			}
		}
	}
}
