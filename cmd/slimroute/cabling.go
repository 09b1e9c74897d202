package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"slimroute/cabling"
	"slimroute/fabric"
	"slimroute/internal/atomicfile"
)

// exitStatus makes the command exit with a status, after printing nothing
// more than it already has.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func cablingCommand() *cli.Command {
	return &cli.Command{
		Name:  "cabling",
		Usage: "cable plans before deployment, and wiring checks against ibnetdiscover",
		Description: `Examples:
   slimroute cabling plan --slimfly 5 -o plan/
   slimroute cabling verify --plan plan/ --discovered ibnetdiscover.out`,
		Subcommands: []*cli.Command{
			{
				Name:  "plan",
				Usage: "write the cable list, rack sheets and diagram, cable labels, NetBox imports and the expected topology",
				Description: `Writes into DIR:
   cables.csv             one row per cable: ID, both ends (rack, U, node, port), intra-/inter-rack,
                          kind (copper/optical) and length class
   racks.html             a printable sheet per rack: cable totals, then each switch from the top
                          with its ports, the far end's rack, U, node and port, and a box to tick
   racks.svg              the racks with their switches and hosts, and the cables between racks
   labels.csv, labels.html  one label per cable naming both ends, printed once for each end
   netbox-devices.csv, netbox-interfaces.csv, netbox-cables.csv
                          NetBox bulk imports (devices, then interfaces, then cables)
   bom.json, node-name-map, expected.ibnetdiscover, fabric.net (ibsim), fabric.json (what
   cabling verify compares against)
Nodes the fabric does not place at a rack unit get a default layout: switches from the top of
the rack, hosts from the bottom (see --rack-units; a spec's [racks] units places switches).
Every sheet carries the plan's ID, a hash of the cable list: same plan, same ID.

Example:
   slimroute cabling plan --config testdata/specs/sf5.toml -o plan/`,
				Flags: append(sourceFlags(),
					&cli.Float64Flag{Name: "rack-pitch", Value: cabling.DefaultGeometry().RackPitch, Usage: "distance between neighbouring racks (m)"},
					&cli.IntFlag{Name: "racks-per-row", Usage: "racks in a row (default: all racks in one row)"},
					&cli.Float64Flag{Name: "row-pitch", Value: cabling.DefaultGeometry().RowPitch, Usage: "distance between rows (m)"},
					&cli.IntFlag{Name: "rack-units", Value: cabling.DefaultGeometry().RackUnits, Usage: "rack height in units, for the default layout"},
					&cli.Float64Flag{Name: "copper-max", Value: cabling.DefaultGeometry().CopperMax, Usage: "longest copper cable (m); longer runs are optical"},
					&cli.StringFlag{Name: "site", Value: "slimroute", Usage: "NetBox site the devices go to (netbox-devices.csv)"},
					&cli.StringFlag{Name: "rate", Usage: "planned link rate such as 4xEDR; verify reports cables that train slower"},
					hostsFlag("cabling verify then knows a host by its node description (\"node017 mlx5_0\")"),
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "write the plan's files to `DIR`"},
				),
				Action: func(c *cli.Context) error {
					f, err := loadFabric(c)
					if err != nil {
						return err
					}
					if r := c.String("rate"); r != "" {
						if f, err = withRate(f, r); err != nil {
							return err
						}
					}
					if strings.TrimSpace(c.String("site")) == "" {
						return fmt.Errorf("--site is empty: give the NetBox site the devices go to, e.g. --site hall-2")
					}
					g := cabling.DefaultGeometry()
					g.RackPitch, g.RacksPerRow, g.RowPitch, g.CopperMax = c.Float64("rack-pitch"), c.Int("racks-per-row"), c.Float64("row-pitch"), c.Float64("copper-max")
					g.RackUnits = c.Int("rack-units")
					p, err := cabling.MakePlan(f, g)
					if err != nil {
						return err
					}
					if spec := c.String("hosts"); spec != "" {
						if p, err = withHosts(p, spec, g); err != nil {
							return err
						}
					}
					f = p.Fabric // with the default layout's rack units
					dir := c.String("output")
					files := []outputFile{
						{"cables.csv", func(w io.Writer) error { return cabling.WriteCSV(w, p) }},
						{"racks.html", func(w io.Writer) error { return cabling.WriteHTML(w, p) }},
						{"racks.svg", func(w io.Writer) error { return cabling.WriteSVG(w, p) }},
						{"labels.csv", func(w io.Writer) error { return cabling.WriteLabelsCSV(w, p) }},
						{"labels.html", func(w io.Writer) error { return cabling.WriteLabelsHTML(w, p) }},
						{"netbox-devices.csv", func(w io.Writer) error { return cabling.WriteNetBoxDevices(w, p, c.String("site")) }},
						{"netbox-interfaces.csv", func(w io.Writer) error { return cabling.WriteNetBoxInterfaces(w, p) }},
						{"netbox-cables.csv", func(w io.Writer) error { return cabling.WriteNetBoxCables(w, p) }},
						{"node-name-map", func(w io.Writer) error { return fabric.WriteNodeNameMap(w, f) }},
						{"expected.ibnetdiscover", func(w io.Writer) error { return fabric.WriteIBNetDiscover(w, f) }},
						{"fabric.net", func(w io.Writer) error { return fabric.WriteIBSimNet(w, f) }},
						{"fabric.json", func(w io.Writer) error { return fabric.WriteJSON(w, f) }},
						jsonFile("bom.json", p.BillOfMaterials()),
					}
					if err := writeOutputs(dir, "-o", files); err != nil {
						return err
					}
					tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
					fmt.Fprintf(tw, "plan %s: %d cables; rack units: %s; bill of materials:\n", p.ID, len(p.Cables), p.Layout)
					for _, b := range p.BillOfMaterials() {
						fmt.Fprintf(tw, "  %s\t%g m\t%d\n", b.Kind, b.Length, b.Count)
					}
					tw.Flush()
					fmt.Fprintf(c.App.Writer, "wrote %s/{%s}\n", filepath.Clean(dir), strings.Join(fileNames(files), ","))
					return nil
				},
			},
			{
				Name:  "verify",
				Usage: "compare an ibnetdiscover dump with the plan and say which cables to fix",
				Description: `Identifies the discovered nodes (by node description, after a node-name-map if given —
a host also by the host name its description begins with, "node017 mlx5_0", when the plan
was made with --hosts — then by GUID, then by the hosts and neighbouring switches cabled to them, so switches with
factory descriptions are found too; where a description and a GUID name different planned nodes,
the cables decide), then compares every port with the plan. Every port that
is not as planned is in exactly one finding, in rack order, with the fewest physical steps
that put it right: exchange two plugs (or k−1 exchanges for k rotated plugs), move a plug,
connect, remove or replace a cable. Switches whose cables fit two planned switches equally
well are reported as ambiguous rather than guessed; a switch whose host cables and switch cables
disagree is named after its switch cables (its hosts are then moved), and every switch found by
its cables is named with its GUID, so that the installer finds the device meant. A device found by its cables keeps
whatever description it has (a host name, a replacement's factory description) — unless it
is the name of another planned node: that is a "misnamed" finding; and where the other hosts
carry their planned names or GUIDs, a host found only by its cable is an "unconfirmed" finding
(another host may be in its port). With --json, each finding also lists
its steps as actions (op, a, b: node and port) that a script can replay.
Exit status: 0 as planned, 1 findings, 2 could not check.

Example:
   ibnetdiscover > found.txt && slimroute cabling verify --plan plan/ --discovered found.txt`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "plan", Required: true, Usage: "`DIR` written by cabling plan"},
					&cli.StringFlag{Name: "discovered", Required: true, Usage: "ibnetdiscover output `FILE`"},
					&cli.StringFlag{Name: "node-name-map", Usage: "rename discovered nodes by GUID first"},
					&cli.StringFlag{Name: "rate", Usage: "the link rate every cable should train at, such as 4xEDR, instead of the plan's (ibsim trains every link at 4xSDR); \"any\" reports no cable as degraded"},
					&cli.BoolFlag{Name: "json", Usage: "print JSON"},
					&cli.StringFlag{Name: "html", Usage: "also write the findings as a printable task list to `FILE`: a page per rack with the rack drawn and the nodes to work on marked, each task with a box to tick and its planned cables"},
				},
				Action: func(c *cli.Context) error {
					plan, rep, err := verifyCabling(c)
					if err == nil && c.String("html") != "" {
						err = adviseOutput(atomicfile.Write(c.String("html"), 0o644, func(w io.Writer) error { return cabling.WriteTasksHTML(w, plan, rep) }), "name a file to write, such as --html tasks.html")
						if err != nil {
							err = fmt.Errorf("--html %s: %w", c.String("html"), err)
						}
					}
					if err != nil {
						fmt.Fprintln(c.App.ErrWriter, "slimroute: could not check: "+indentRest(err.Error()))
						return exitStatus(2)
					}
					if c.Bool("json") {
						b, _ := json.MarshalIndent(rep, "", "  ")
						fmt.Fprintf(c.App.Writer, "%s\n", b)
					} else {
						fmt.Fprint(c.App.Writer, rep.Summary())
						for _, f := range rep.Findings {
							fmt.Fprintf(c.App.Writer, "  [%s] %s\n", f.Kind, f.Instruction)
						}
					}
					if !rep.Clean() {
						return exitStatus(1)
					}
					return nil
				},
			},
		},
	}
}

// verifyCabling compares the discovery with the plan of cabling verify's
// flags and returns the plan's fabric and the report.
func verifyCabling(c *cli.Context) (*fabric.Fabric, *cabling.Report, error) {
	open := openInput
	plan, err := readPlanFabric(c.String("plan"))
	if err != nil {
		return nil, nil, err
	}
	df, err := open(c.String("discovered"))
	if err != nil {
		return nil, nil, err
	}
	defer df.Close()
	found, err := fabric.ReadIBNetDiscover(df, df.Name())
	if err != nil {
		return nil, nil, err
	}
	if m := c.String("node-name-map"); m != "" {
		mf, err := open(m)
		if err != nil {
			return nil, nil, err
		}
		defer mf.Close()
		nnm, err := fabric.ReadNodeNameMap(mf, m)
		if err != nil {
			return nil, nil, err
		}
		if found, err = found.Renamed(nnm); err != nil {
			return nil, nil, err
		}
	}
	if r := c.String("rate"); r != "" {
		if plan, err = withRate(plan, r); err != nil {
			return nil, nil, err
		}
	}
	rep := cabling.Verify(plan, found)
	cables, err := readPlanCables(c.String("plan"))
	if err != nil {
		return nil, nil, err
	}
	rep.WithCables(cables)
	return plan, rep, nil
}

// readPlanCables reads cables.csv of a plan directory, for the findings'
// cable IDs; none when the directory has no cables.csv.
func readPlanCables(dir string) ([]cabling.Cable, error) {
	file := filepath.Join(dir, "cables.csv")
	if !exists(file) {
		return nil, nil
	}
	fh, err := openInput(file)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return cabling.ReadCSV(fh, file)
}

// withRate returns f with every cable's rate set to rate (such as 4xEDR),
// or to none with "any".
func withRate(f *fabric.Fabric, rate string) (*fabric.Fabric, error) {
	var w fabric.Width
	var s fabric.Speed
	if rate != "any" {
		var err error
		if w, s, err = fabric.ParseRate(rate); err != nil {
			return nil, fmt.Errorf("--rate: %w, or any", err)
		}
	}
	links := append([]fabric.Link(nil), f.Links()...)
	for i := range links {
		links[i].Width, links[i].Speed = w, s
	}
	return fabric.New(f.Nodes(), links)
}

// withHosts makes plan p again with its HCAs named after the hosts of
// --hosts spec: a pattern (it holds a %), else a file.
func withHosts(p *cabling.Plan, spec string, g cabling.Geometry) (*cabling.Plan, error) {
	var hosts cabling.Hosts
	var err error
	if strings.Contains(spec, "%") {
		hosts, err = cabling.HostPattern(spec)
	} else {
		var fh *os.File
		if fh, err = os.Open(spec); err != nil {
			return nil, fmt.Errorf("--hosts: %w (give a file of host names, or a pattern such as node%%03d)", err)
		}
		defer fh.Close()
		hosts, err = cabling.ReadHosts(fh, spec)
	}
	if err != nil {
		return nil, fmt.Errorf("--hosts: %w", err)
	}
	named, err := cabling.NameHosts(p.Fabric, hosts)
	if err != nil {
		return nil, fmt.Errorf("--hosts: %w", err)
	}
	return cabling.MakePlan(named, g)
}

// hostsFlag is --hosts, which names a planned fabric's HCAs after the
// cluster's hosts (withHosts); why says what the names are for.
func hostsFlag(why string) cli.Flag {
	return &cli.StringFlag{Name: "hosts", Usage: "name the HCAs after the cluster's hosts: a pattern such as node%03d (numbered from 1 in rack order: rack by rack, from the lowest unit up), a `FILE` with one host name per line in that order, or a CSV file with the header rack,u,host; " + why}
}

// hostsNamed is f with its HCAs named as --hosts asks (as cabling plan
// --hosts names them, in the default rack layout), or f without it.
func hostsNamed(c *cli.Context, f *fabric.Fabric) (*fabric.Fabric, error) {
	spec := c.String("hosts")
	if spec == "" {
		return f, nil
	}
	g := cabling.DefaultGeometry()
	p, err := cabling.MakePlan(f, g)
	if err == nil {
		p, err = withHosts(p, spec, g)
	}
	if err != nil {
		return nil, err
	}
	return p.Fabric, nil
}
