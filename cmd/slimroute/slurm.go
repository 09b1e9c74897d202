package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"slimroute/internal/atomicfile"
	"slimroute/slurm"
)

func slurmTopologyCommand() *cli.Command {
	return &cli.Command{
		Name:  "slurm-topology",
		Usage: "write Slurm's topology.conf (or topology.yaml) so that Slurm packs jobs onto neighbouring switches",
		Description: `Describes the fabric to Slurm's topology plugins. Nodes are the hosts of the HCAs: the first
word of each HCA's node description ("node017 mlx5_0" is node017), or the names --hosts gives a
planned fabric. Two forms (docs/formats.md, "Slurm topology"):
   tree    topology/tree: SwitchName=LEAF Nodes=HOSTS per leaf switch, the pods (leaves sharing
           their upper switches) and one switch on top; the default for a Clos or fat tree
   block   topology/block (Slurm 23.11+): BlockName=LEAF Nodes=HOSTS per leaf switch, ordered so
           that aligned runs of 2, 4, 8 … blocks are close (HyperX lines, Dragonfly+ groups,
           Slim Fly neighbours), and BlockSizes; the default for Slim Fly, PolarFly, HyperX and
           Dragonfly+, where a tree would invent a hierarchy
--yaml writes the same as topology.yaml (Slurm 24.11+), one topology that is the cluster's default.

Examples:
   slimroute export slurm-topology --slimfly 7 --hosts node%03d -o /etc/slurm/topology.conf
   slimroute export slurm-topology --fabric ibnetdiscover.out --form tree -o -
   slimroute export slurm-topology --config testdata/specs/sf5.toml --yaml -o topology.yaml`,
		Flags: append(sourceFlags(),
			hostsFlag("the nodes then carry those names"),
			&cli.StringFlag{Name: "form", Usage: "tree or block (default: tree for a Clos or fat tree, block for the others)"},
			&cli.BoolFlag{Name: "yaml", Usage: "write topology.yaml (Slurm 24.11+) instead of topology.conf"},
			&cli.StringFlag{Name: "name", Value: "default", Usage: "with --yaml: the topology's `NAME` (partitions name it with Topology=)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "`FILE` to write (- for standard output)"},
		),
		Action: func(c *cli.Context) error {
			f, err := loadRoutingFabric(c)
			if err == nil {
				f, err = hostsNamed(c, f)
			}
			if err != nil {
				return err
			}
			t, err := slurm.Build(f)
			if err != nil {
				return err
			}
			form, err := slurmForm(c.String("form"), t)
			if err != nil {
				return err
			}
			write := func(w io.Writer) error { return slurm.WriteConf(w, t, form) }
			file := "topology.conf"
			if c.Bool("yaml") {
				write, file = func(w io.Writer) error { return slurm.WriteYAML(w, t, form, c.String("name")) }, "topology.yaml"
			}
			return writeOne(c, write, func() string { return fmt.Sprintf("%s (%s form, %s)", file, form, slurmSummary(t, form)) })
		},
	}
}

// slurmForm is the --form asked for, or the topology's own.
func slurmForm(s string, t *slurm.Topology) (slurm.Form, error) {
	switch slurm.Form(s) {
	case "":
		return t.DefaultForm(), nil
	case slurm.FormTree, slurm.FormBlock:
		return slurm.Form(s), nil
	}
	return "", fmt.Errorf("--form %q: want tree (topology/tree) or block (topology/block)", s)
}

// slurmSummary says in a few words what the file holds.
func slurmSummary(t *slurm.Topology, form slurm.Form) string {
	if form == slurm.FormBlock {
		blocks, sizes := t.Blocks()
		return fmt.Sprintf("%d blocks, BlockSizes %s", len(blocks), strings.Trim(strings.ReplaceAll(fmt.Sprint(sizes), " ", ","), "[]"))
	}
	return fmt.Sprintf("%d leaf switches, %d pods", len(t.Leaves), len(t.Pods))
}

// writeOne writes one file to -o FILE atomically, or to standard output
// for -o -, and says what it wrote (what, asked once written; on standard
// error when the file went to standard output).
func writeOne(c *cli.Context, write func(io.Writer) error, what func() string) error {
	out, report := c.String("output"), c.App.Writer
	var err error
	if out == "-" {
		err, report = write(c.App.Writer), c.App.ErrWriter
	} else {
		err = adviseOutput(atomicfile.Write(out, 0o644, write), toStandardOutput)
	}
	if err == nil {
		fmt.Fprintf(report, "wrote %s to %s\n", what(), out)
	}
	return err
}
