package slurm_test

import (
	"os"

	"slimroute/clos"
	"slimroute/slurm"
)

// A two-level Clos of radix-8 switches: the tree form, leaves under one
// switch on top.
func ExampleWriteConf() {
	f, _ := clos.Build(clos.Params{Radix: 8})
	t, _ := slurm.Build(f)
	_ = slurm.WriteConf(os.Stdout, t, t.DefaultForm())
	// Output:
	// # topology.conf for Slurm's topology/tree (TopologyPlugin=topology/tree), written by slimroute export slurm-topology:
	// # 32 hosts on 8 leaf switches.
	// SwitchName=leaf-0 Nodes=hca-0-[1-4]
	// SwitchName=leaf-1 Nodes=hca-1-[1-4]
	// SwitchName=leaf-2 Nodes=hca-2-[1-4]
	// SwitchName=leaf-3 Nodes=hca-3-[1-4]
	// SwitchName=leaf-4 Nodes=hca-4-[1-4]
	// SwitchName=leaf-5 Nodes=hca-5-[1-4]
	// SwitchName=leaf-6 Nodes=hca-6-[1-4]
	// SwitchName=leaf-7 Nodes=hca-7-[1-4]
	// SwitchName=fabric Switches=leaf-[0-7]
}
