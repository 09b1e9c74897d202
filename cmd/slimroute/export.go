package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/urfave/cli/v2"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/lft/mad"
	"slimroute/pipeline"
	"slimroute/verify"
)

// fabricAndSM loads the fabric and finds the node the SM runs on (--sm).
func fabricAndSM(c *cli.Context) (*fabric.Fabric, fabric.NodeID, error) {
	f, err := loadFabric(c)
	if err != nil {
		return nil, 0, err
	}
	sm, err := smNode(f, c.String("sm"))
	return f, sm, err
}

func smNode(f *fabric.Fabric, name string) (fabric.NodeID, error) {
	if name == "" {
		sw := f.IDsOf(fabric.Switch)
		if len(sw) == 0 {
			return 0, fmt.Errorf("the fabric has no switch")
		}
		return sw[0], nil
	}
	id, ok := f.NodeByName(name)
	if !ok {
		return 0, fmt.Errorf("--sm %q: no such node", name)
	}
	return id, nil
}

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:  "export",
		Usage: "write the management packets that would program the routing (pcap)",
		Description: `Routes the fabric as slimroute route does and writes, as a pcap file (ERF records of
InfiniBand packets, which tshark decodes), the directed-route SubnSet(LinearForwardingTable)
SMPs an SM at --sm would send: one per switch and 64-LID block.

Example:
   slimroute export --slimfly 5 --format pcap -o lfts.pcap && tshark -r lfts.pcap`,
		Flags: append(append(sourceFlags(), pipelineFlags()...),
			&cli.StringFlag{Name: "format", Value: "pcap", Usage: "pcap (the only format)"},
			&cli.StringFlag{Name: "sm", Usage: "`NODE` the SM runs on (default: the first switch)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "`FILE` to write (- for standard output)"},
		),
		Subcommands: []*cli.Command{slurmTopologyCommand()},
		Action: func(c *cli.Context) error {
			if c.String("format") != "pcap" {
				return fmt.Errorf("--format %q: want pcap", c.String("format"))
			}
			f, sm, err := fabricAndSM(c)
			if err != nil {
				return err
			}
			cfg, err := pipelineConfig(c)
			if err != nil {
				return err
			}
			res, err := pipeline.Run(f, cfg)
			if err != nil {
				return fabricLIDs(c, err)
			}
			n := 0
			write := func(w io.Writer) error {
				var err error
				n, err = mad.WriteLFTs(w, res.Tables, sm)
				return err
			}
			return writeOne(c, write, func() string { return fmt.Sprintf("%d LinearForwardingTable SMPs from %s", n, f.Node(sm).Name) })
		},
	}
}

func lftCommand() *cli.Command {
	return &cli.Command{
		Name:  "lft",
		Usage: "forwarding-table tools",
		Description: `Example:
   slimroute lft from-pcap --slimfly 5 lfts.pcap`,
		Subcommands: []*cli.Command{{
			Name:  "from-pcap",
			Usage: "read the LFTs that a capture of SubnSet(LinearForwardingTable) SMPs programs",
			Description: `Follows each directed-route SMP from the SM's node (--sm) through the fabric to the switch
it programs and prints the resulting tables in OpenSM's LFT file layout. The LIDs are
assigned as route assigns them (--lmc, --lft-cap, --lids-from-fabric): give the settings
the packets were made with. The tables are checked with the verifier (every LID reachable
from every HCA and switch, no loop): with other settings than the packets', they are not,
and the command says so (exit 2) instead of printing wrong tables.

Example:
   slimroute lft from-pcap --slimfly 5 lfts.pcap > lfts.txt`,
			ArgsUsage: "FILE.pcap",
			Flags: append(sourceFlags(),
				&cli.StringFlag{Name: "sm", Usage: "`NODE` the SM ran on (default: the first switch)"},
				&cli.IntFlag{Name: "lmc", Value: 2, Usage: "LMC of the HCA ports when the packets were made (route's default for 4 layers: 2)"},
				&cli.IntFlag{Name: "lft-cap", Usage: "LFT capacity (LinearFDBCap) of the smallest switch; 0: the full unicast LID space"},
				&cli.BoolFlag{Name: "lids-from-fabric", Usage: "use the LIDs recorded in --fabric instead of assigning"},
			),
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return fmt.Errorf("slimroute lft from-pcap: want one capture FILE.pcap, got %d arguments %q (e.g. slimroute lft from-pcap --slimfly 5 lfts.pcap)", c.NArg(), c.Args().Slice())
				}
				f, sm, err := fabricAndSM(c)
				if err != nil {
					return err
				}
				path := c.Args().First()
				fh, err := openInput(path)
				if err != nil {
					return err
				}
				defer fh.Close()
				lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: c.Int("lmc"), LFTCap: c.Int("lft-cap"), FromFabric: c.Bool("lids-from-fabric")})
				if err != nil {
					return fabricLIDs(c, err)
				}
				t, err := mad.ReadLFTs(fh, path, f, sm, lids)
				if err != nil {
					return err
				}
				if _, err := verify.Check(t, runtime.GOMAXPROCS(0)); err != nil {
					return fmt.Errorf("%s: the tables these packets program, read with --sm %s and this LID plan, are broken — give the settings the packets were made with (--sm, --lmc, --lft-cap, --lids-from-fabric): %w", path, f.Name(sm), err)
				}
				return lft.WriteOpenSMLFTs(c.App.Writer, t, runtime.GOMAXPROCS(0))
			},
		}},
	}
}
