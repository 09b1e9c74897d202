package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/urfave/cli/v2"

	"slimroute/fabric"
	"slimroute/internal/atomicfile"
	"slimroute/lft"
	"slimroute/lft/mad"
	"slimroute/pipeline"
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
		Flags: append(sourceFlags(),
			&cli.StringFlag{Name: "format", Value: "pcap", Usage: "pcap"},
			&cli.StringFlag{Name: "sm", Usage: "`NODE` the SM runs on (default: the first switch)"},
			&cli.IntFlag{Name: "layers", Aliases: []string{"L"}, Value: 4},
			&cli.StringFlag{Name: "deadlock", Value: "hops"},
			&cli.IntFlag{Name: "vls", Value: 8},
			&cli.Uint64Flag{Name: "seed", Value: 1},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "`FILE` to write (- for standard output)"},
		),
		Action: func(c *cli.Context) error {
			if c.String("format") != "pcap" {
				return fmt.Errorf("--format %q: want pcap", c.String("format"))
			}
			f, sm, err := fabricAndSM(c)
			if err != nil {
				return err
			}
			res, err := pipeline.Run(f, pipeline.Config{Layers: c.Int("layers"), Deadlock: c.String("deadlock"), VLs: c.Int("vls"), Seed: c.Uint64("seed"), LMC: -1})
			if err != nil {
				return err
			}
			n := 0
			write := func(w io.Writer) error {
				var err error
				n, err = mad.WriteLFTs(w, res.Tables, sm)
				return err
			}
			out, report := c.String("output"), c.App.Writer
			if out == "-" {
				err, report = write(c.App.Writer), c.App.ErrWriter // the capture is standard output
			} else {
				err = atomicfile.Write(out, 0o644, write)
			}
			if err == nil {
				fmt.Fprintf(report, "wrote %d LinearForwardingTable SMPs from %s to %s\n", n, f.Node(sm).Name, out)
			}
			return err
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
it programs and prints the resulting tables in OpenSM's LFT file layout.

Example:
   slimroute lft from-pcap --slimfly 5 lfts.pcap > lfts.txt`,
			ArgsUsage: "FILE.pcap",
			Flags: append(sourceFlags(),
				&cli.StringFlag{Name: "sm", Usage: "`NODE` the SM ran on (default: the first switch)"},
			),
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return fmt.Errorf("name one pcap file")
				}
				f, sm, err := fabricAndSM(c)
				if err != nil {
					return err
				}
				path := c.Args().First()
				fh, err := os.Open(path)
				if err != nil {
					return err
				}
				defer fh.Close()
				d, err := mad.ReadLFTs(fh, path, f, sm)
				if err != nil {
					return err
				}
				return writeDump(c.App.Writer, f, d)
			},
		}},
	}
}

// writeDump prints tables in the LFT file layout OpenSM's file engine reads.
func writeDump(w io.Writer, f *fabric.Fabric, d lft.Dump) error {
	guids := make([]fabric.GUID, 0, len(d))
	for g := range d {
		guids = append(guids, g)
	}
	sort.Slice(guids, func(i, j int) bool { return guids[i] < guids[j] })
	for _, g := range guids {
		name := ""
		if id, ok := f.NodeByGUID(g); ok {
			name = f.Node(id).Name
		}
		lids := make([]int, 0, len(d[g]))
		for l := range d[g] {
			lids = append(lids, int(l))
		}
		sort.Ints(lids)
		top := 0
		if len(lids) > 0 {
			top = lids[len(lids)-1]
		}
		fmt.Fprintf(w, "Unicast lids [0-%d] of switch guid %s ('%s'):\n", top, g, name)
		for _, l := range lids {
			fmt.Fprintf(w, "0x%04x %03d\n", l, d[g][lft.LID(l)])
		}
		fmt.Fprintf(w, "%d lids dumped\n", len(lids))
	}
	return nil
}
