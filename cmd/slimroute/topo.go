package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/internal/atomicfile"
	"slimroute/slimfly"
	"slimroute/spec"
)

func formatList() string {
	s := make([]string, len(fabric.WriteFormats()))
	for i, f := range fabric.WriteFormats() {
		s[i] = string(f)
	}
	return strings.Join(s, "|")
}

func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: string(fabric.FormatIBSim), Usage: "output format: " + formatList()},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (atomically; - is standard output) instead of standard output"},
	}
}

// sourceFlags select the fabric a command works on.
func sourceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "build the fabric described by the TOML spec `FILE`"},
		&cli.StringFlag{Name: "fabric", Usage: "read the fabric from `FILE` (ibsim .net, slimroute .json, ibnetdiscover output, or OpenSM's opensm-subnet.lst)"},
		&cli.StringFlag{Name: "in-format", Usage: "format of --fabric: ibsim|ibnetdiscover|json|opensm-subnet (default: recognised from the file's content)"},
		&cli.IntFlag{Name: "slimfly", Aliases: []string{"q"}, Usage: "build the Slim Fly of prime power `Q` (3, 4, 5, 7, 8, 9, 11, 13, …), with --endpoints and --radix or their defaults"},
		&cli.IntFlag{Name: "endpoints", Usage: "with --slimfly: HCAs per switch (default: ⌈k′/2⌉, half the network degree k′ = (3q−δ)/2)"},
		&cli.IntFlag{Name: "radix", Usage: "with --slimfly: switch port count, refused if k′+p ports do not fit (default: k′+p, the ports the fabric uses)"},
	}
}

// loadFabric builds or reads the fabric the source flags name.
func loadFabric(c *cli.Context) (*fabric.Fabric, error) {
	n := 0
	for _, name := range []string{"config", "fabric", "slimfly"} {
		if c.IsSet(name) {
			n++
		}
	}
	if n != 1 {
		return nil, errors.New("name one fabric: --config FILE, --fabric FILE or --slimfly Q")
	}
	for _, name := range []string{"endpoints", "radix"} {
		if c.IsSet(name) && !c.IsSet("slimfly") {
			return nil, fmt.Errorf("--%s shapes the Slim Fly of --slimfly Q; a fabric from --config or --fabric has its own (drop --%s, or build it with --slimfly)", name, name)
		}
	}
	switch {
	case c.IsSet("config"):
		return buildFromSpecFile(c.String("config"))
	case c.IsSet("fabric"):
		return readFabricFile(c.String("fabric"), c.String("in-format"))
	default:
		return slimfly.Build(slimfly.Params{Q: c.Int("slimfly"), Endpoints: c.Int("endpoints"), Radix: c.Int("radix")})
	}
}

// loadRoutingFabric is loadFabric for the commands that route: a fabric
// read from a file is put in GUID order (fabric.Canonical, as the OpenSM
// plugin does), so that the order of its nodes, cables and cable ends in
// the file changes nothing of the routing.
func loadRoutingFabric(c *cli.Context) (*fabric.Fabric, error) {
	f, err := loadFabric(c)
	if err != nil || !c.IsSet("fabric") {
		return f, err
	}
	return f.Canonical()
}

// readFabricFile reads a fabric file in format, or when format is "" in
// the format its content shows (its name when the content does not tell).
// A file that does not parse gets the format it was read as named, and
// how to name another.
func readFabricFile(path, format string) (*fabric.Fabric, error) {
	if format != "" && !slices.Contains(fabric.ReadFormats(), fabric.Format(format)) {
		return nil, fmt.Errorf("--in-format %q: want one of %s", format, readFormatList())
	}
	fh, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	br := bufio.NewReaderSize(fh, 64<<10)
	head, _ := br.Peek(64 << 10)
	sniffed := fabric.Sniff(head)
	hint := fmt.Sprintf("(read as %s, as --in-format asked", format)
	if format == "" {
		if bytes.IndexByte(head, 0) >= 0 {
			return nil, fmt.Errorf("%s: binary content, not a fabric file (want an ibsim net file, ibnetdiscover output or slimroute JSON)", path)
		}
		format, hint = string(sniffed), fmt.Sprintf("(read as %s, recognised from the content", sniffed)
		if sniffed == "" {
			detected, byName := fabric.DetectFormat(path)
			format, hint = string(detected), fmt.Sprintf("(read as %s, from the file name", detected)
			if !byName {
				hint = fmt.Sprintf("(read as %s: neither the content nor the name (.net, .ibsim, .json) tells", detected)
			}
		}
	}
	f, err := fabric.Read(br, path, fabric.Format(format))
	if err != nil {
		if sniffed != "" && string(sniffed) != format {
			return nil, fmt.Errorf("%w\n%s, but the content looks like %s: try --in-format %s)", err, hint, sniffed, sniffed)
		}
		return nil, fmt.Errorf("%w\n%s; if it is another format, name it with --in-format %s)", err, hint, readFormatList())
	}
	return f, nil
}

func readFormatList() string {
	s := make([]string, len(fabric.ReadFormats()))
	for i, f := range fabric.ReadFormats() {
		s[i] = string(f)
	}
	return strings.Join(s, "|")
}

func buildFromSpecFile(path string) (*fabric.Fabric, error) {
	fh, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	s, err := spec.Parse(fh, path)
	if err != nil {
		return nil, err
	}
	f, err := spec.Build(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// emit writes f in the --format to -o or standard output.
func emit(c *cli.Context, f *fabric.Fabric) error {
	format := fabric.Format(c.String("format"))
	known := false
	for _, w := range fabric.WriteFormats() {
		known = known || w == format
	}
	if !known {
		return fmt.Errorf("--format %q: want one of %s", format, formatList())
	}
	if out := c.String("output"); out != "" && out != "-" {
		err := atomicfile.Write(out, 0o644, func(w io.Writer) error { return fabric.Write(w, f, format) })
		return adviseOutput(err, toStandardOutput)
	}
	return fabric.Write(c.App.Writer, f, format)
}

func topoCommand() *cli.Command {
	return &cli.Command{
		Name:  "topo",
		Usage: "build a topology and write it in the formats InfiniBand tools read",
		Description: `Builds a fabric from a spec file (--config) or converts a fabric file (--fabric),
writing it as an ibsim net file, ibnetdiscover topology, JSON, DOT or node-name-map.

Examples:
   slimroute topo --config fabric.toml --format ibnetdiscover -o expected.topo
   slimroute topo --fabric ibnetdiscover.out --format json -o fabric.json`,
		Flags: append(sourceFlags(), outputFlags()...),
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return fmt.Errorf("unknown topo command %q: want slimfly, clos, polarfly, hyperx, dragonfly-plus, kary or stats", c.Args().First())
			}
			f, err := loadFabric(c)
			if err != nil {
				return err
			}
			return emit(c, f)
		},
		Subcommands: []*cli.Command{
			{
				Name:  "slimfly",
				Usage: "build a Slim Fly (McKay–Miller–Širáň graph) for a prime power q = 4w+δ",
				Description: `Builds 2q² switches of network degree (3q−δ)/2 and diameter 2, with p HCAs each.
Switch names are sw-s-x-y, HCA names hca-s-x-y-i; rack x holds (0,x,·) and (1,x,·).

Examples:
   slimroute topo slimfly --q 5 --format ibsim -o sf5.net      # the NSDI'24 deployment
   slimroute topo slimfly --q 7 --radix 36 --format ibnetdiscover`,
				Flags: append([]cli.Flag{
					&cli.IntFlag{Name: "q", Aliases: []string{"slimfly"}, Value: 5, Usage: "prime power 4w+δ, δ in {-1,0,1}: 3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, …"},
					&cli.IntFlag{Name: "endpoints", Aliases: []string{"p"}, Usage: "HCAs per switch (default: ⌈k′/2⌉, half the network degree k′ = (3q−δ)/2)"},
					&cli.IntFlag{Name: "radix", Usage: "switch port count, refused if k′+p ports do not fit (default: k′+p, the ports the fabric uses)"},
				}, outputFlags()...),
				Action: func(c *cli.Context) error {
					f, err := slimfly.Build(slimfly.Params{Q: c.Int("q"), Endpoints: c.Int("endpoints"), Radix: c.Int("radix")})
					if err != nil {
						return err
					}
					return emit(c, f)
				},
			},
			{
				Name:  "clos",
				Usage: "build a two- or three-level folded Clos (fat tree)",
				Description: `Zero values take the defaults of a non-blocking fabric of the given radix.

Examples:
   slimroute topo clos --radix 36                          # 36 leaves × 18 hosts, 18 spines
   slimroute topo clos --radix 40 --oversubscription 3:1   # 30 hosts and 10 up-links per leaf
   slimroute topo clos --levels 3 --radix 16 --pods 4`,
				Flags: append([]cli.Flag{
					&cli.IntFlag{Name: "levels", Value: 2, Usage: "2 (leaf/spine) or 3 (leaf/spine/core)"},
					&cli.IntFlag{Name: "radix", Value: 36, Usage: "switch port count"},
					&cli.StringFlag{Name: "oversubscription", Usage: "hosts:uplinks per leaf, e.g. 3:1 (default: 1:1)"},
					&cli.IntFlag{Name: "hosts-per-leaf", Usage: "HCAs per leaf switch; set with --leaf-uplinks (default: from --radix and --oversubscription)"},
					&cli.IntFlag{Name: "leaf-uplinks", Usage: "cables from each leaf up to the spines (default: from --radix and --oversubscription)"},
					&cli.IntFlag{Name: "leaves", Usage: "all leaves (2 levels) or leaves per pod (3 levels) (default: as many as the spines' down-ports take)"},
					&cli.IntFlag{Name: "spines", Usage: "all spines (2 levels) or spines per pod (3 levels) (default: one per leaf up-link)"},
					&cli.IntFlag{Name: "pods", Usage: "pods, 3 levels only (default: as many as the cores' ports take)"},
					&cli.IntFlag{Name: "spine-uplinks", Usage: "cables from each spine up to the cores, 3 levels only (default: the spine ports the leaves leave free)"},
					&cli.IntFlag{Name: "cores", Usage: "core switches in all, a multiple of --spines, 3 levels only (default: as few as take every spine up-link, with all their ports used)"},
				}, outputFlags()...),
				Action: func(c *cli.Context) error {
					f, err := clos.Build(clos.Params{
						Levels: c.Int("levels"), Radix: c.Int("radix"), Oversubscription: c.String("oversubscription"),
						HostsPerLeaf: c.Int("hosts-per-leaf"), LeafUplinks: c.Int("leaf-uplinks"), Leaves: c.Int("leaves"),
						Spines: c.Int("spines"), Pods: c.Int("pods"), SpineUplinks: c.Int("spine-uplinks"), Cores: c.Int("cores"),
					})
					var pe *clos.ParamError
					if errors.As(err, &pe) {
						return fmt.Errorf("--%s %d: %s", strings.ReplaceAll(pe.Key, "_", "-"), pe.Value, pe.Want)
					}
					if err != nil {
						return err
					}
					return emit(c, f)
				},
			},
			polarflyCommand(),
			hyperxCommand(),
			dragonflyPlusCommand(),
			{
				Name:  "kary",
				Usage: "build a k-ary n-tree (k^n hosts, n levels of 2k-port switches)",
				Description: `Example:
   slimroute topo kary --k 4 --n 3 --format dot -o tree.dot`,
				Flags: append([]cli.Flag{
					&cli.IntFlag{Name: "k", Value: 4, Usage: "arity: switches of 2k ports, k down and k up"},
					&cli.IntFlag{Name: "n", Value: 3, Usage: "levels of switches; the tree has k^n hosts"},
				}, outputFlags()...),
				Action: func(c *cli.Context) error {
					f, err := clos.KAryNTree(c.Int("k"), c.Int("n"))
					if err != nil {
						return err
					}
					return emit(c, f)
				},
			},
			{
				Name:  "stats",
				Usage: "print switch, endpoint and link counts, degree, diameter, average distance and Moore-bound efficiency",
				Description: `Examples:
   slimroute topo stats --slimfly 5
   slimroute topo stats --fabric ibnetdiscover.out --json`,
				Flags: append(sourceFlags(), &cli.BoolFlag{Name: "json", Usage: "print JSON"}),
				Action: func(c *cli.Context) error {
					f, err := loadFabric(c)
					if err != nil {
						return err
					}
					st := fabric.ComputeStats(f)
					if c.Bool("json") {
						b, _ := json.MarshalIndent(st, "", "  ")
						_, err := fmt.Fprintf(c.App.Writer, "%s\n", b)
						return err
					}
					return printStats(c.App.Writer, st)
				},
			},
		},
	}
}

func printStats(w io.Writer, st fabric.Stats) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "switches\t%d\n", st.Switches)
	fmt.Fprintf(tw, "HCAs\t%d\n", st.HCAs)
	fmt.Fprintf(tw, "endpoints (cabled HCA ports)\t%d\n", st.Endpoints)
	fmt.Fprintf(tw, "inter-switch links\t%d (%d parallel)\n", st.SwitchLinks, st.ParallelLinks)
	fmt.Fprintf(tw, "endpoint links\t%d\n", st.EndpointLinks)
	fmt.Fprintf(tw, "network degree\t%s\n", span(st.MinDegree, st.MaxDegree))
	fmt.Fprintf(tw, "endpoints per switch\t%s\n", span(st.MinEndpoints, st.MaxEndpoints))
	if st.Diameter < 0 {
		fmt.Fprintf(tw, "diameter\tdisconnected (%d components)\n", st.Components)
	} else {
		fmt.Fprintf(tw, "diameter\t%d\n", st.Diameter)
	}
	fmt.Fprintf(tw, "average distance\t%.4f\n", st.AverageDistance)
	if st.MooreBound > 0 && st.MinEndpoints > 0 { // a direct network: every switch has endpoints
		fmt.Fprintf(tw, "Moore bound (degree %d, diameter %d)\t%d\n", st.MaxDegree, st.Diameter, st.MooreBound)
		fmt.Fprintf(tw, "Moore-bound efficiency\t%.1f%%\n", 100*st.MooreEfficiency)
	}
	return tw.Flush()
}

func span(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d..%d", lo, hi)
}
