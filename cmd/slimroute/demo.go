package main

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"slimroute/analysis"
	"slimroute/dragonflyplus"
	"slimroute/fabric"
	"slimroute/hyperx"
	"slimroute/pipeline"
	"slimroute/polarfly"
	"slimroute/slimfly"
)

// osmCacheDir is where OpenSM keeps guid2lid unless OSM_CACHE_DIR says
// otherwise.
const osmCacheDir = "/var/cache/opensm"

// demoCommand runs the main job on the built-in default: the NSDI'24
// deployment's Slim Fly (q=5: 50 switches, 200 endpoints, 5 racks).
func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "the main job on the paper's q=5 Slim Fly: topology, 4-layer routing, VLs, verification, OpenSM files, quality",
		Description: `Builds the Slim Fly, writes <dir>/sf<q>.{net,ibnetdiscover,json,dot,node-name-map} and
stats.json, routes it in 4 layers with hop-indexed VLs, verifies the tables, writes
OpenSM's files to <dir>/route (as slimroute route does), and prints the routing's
quality (slimroute analyze).

Example:
   slimroute demo -o out/ && ibsim -n -s out/sf5.net`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "q", Aliases: []string{"slimfly"}, Value: 5, Usage: "Slim Fly prime power q = 4w+δ (3, 4, 5, 7, 8, 9, 11, 13, …); with --topology polarfly, its prime power (default 7)"},
			&cli.StringFlag{Name: "topology", Aliases: []string{"t"}, Value: "slimfly", Usage: "the design: slimfly, polarfly (q = 7), hyperx (6×6, 3 HCAs per switch) or dragonfly-plus (radix 8: 17 groups); docs/designs.md"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "out", Usage: "output `DIR`"},
		},
		Action: func(c *cli.Context) error {
			dir := c.String("output")
			d, err := demoDesign(c.String("topology"), c.Int("q"), c.IsSet("q"))
			if err != nil {
				return err
			}
			f := d.f
			st := fabric.ComputeStats(f)
			cfg := pipeline.Config{Layers: 4, Deadlock: d.deadlock, VLs: 8, Seed: 1, LMC: -1, Workers: runtime.GOMAXPROCS(0)}
			res, err := pipeline.Run(f, cfg)
			if err != nil {
				return err
			}
			sum, routed, err := routeFiles(f, cfg, res, false)
			if err != nil {
				return err
			}
			rep, err := analysis.Analyze(res.Tables, analysis.Options{Permutations: 100, Seed: 1})
			if err != nil {
				return err
			}
			topo := topologyFiles(f, d.base)
			files := append(topo, jsonFile("stats.json", st))
			for _, file := range routed {
				files = append(files, outputFile{filepath.Join("route", file.name), file.write})
			}
			if err := writeOutputs(dir, "-o", files); err != nil {
				return err
			}
			return printDemo(c.App.Writer, d, dir, fileNames(topo), st, res, sum, rep)
		},
	}
}

// topologyFiles lists topology f in every format, as
// <base>.<extension>.
func topologyFiles(f *fabric.Fabric, base string) []outputFile {
	var files []outputFile
	for _, format := range fabric.WriteFormats() {
		files = append(files, outputFile{base + format.Extension(), func(w io.Writer) error { return fabric.Write(w, f, format) }})
	}
	return files
}

// printDemo says what demo built and wrote into dir (topo: the topology's
// files, in the order of fabric.WriteFormats), for people.
func printDemo(out io.Writer, d design, dir string, topo []string, st fabric.Stats, res *pipeline.Result, sum *routeSummary, rep *analysis.Report) error {
	fmt.Fprintf(out, "%s\n", d.title)
	if err := printStats(out, st); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nfiles:\n")
	for i, format := range fabric.WriteFormats() {
		fmt.Fprintf(out, "  %-16s %s\n", format, filepath.Join(dir, topo[i]))
	}
	fmt.Fprintf(out, "  %-16s %s\n\n", "stats", filepath.Join(dir, "stats.json"))
	rdir := filepath.Join(dir, "route")
	printRoute(out, res, sum, rdir)
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	if err := printSummary(tw, d.short+" slimroute", rep, true); err != nil {
		return err
	}
	tw.Flush()
	fmt.Fprintf(out, "\nsimulate it: ibsim -n -s %s %s\n", filepath.Join(dir, d.base+".net"), strings.Join(fabric.IBSimLimits(res.Tables.Fabric()), " "))
	printProgramIt(out, res, rdir)
	return nil
}

// printProgramIt says how to put the routing into a fabric: the OpenSM
// plugin, which programs the LFTs, the path SLs and the SL2VL tables; and
// OpenSM's file engine only for a routing that is deadlock-free on one VL
// (every packet on SL 0 and one VL is then safe), since that engine loads
// the LFTs alone.
func printProgramIt(out io.Writer, res *pipeline.Result, rdir string) {
	a := res.Assignment
	fmt.Fprintf(out, "program it:  with the OpenSM plugin, which programs the LFTs, the path SLs and the SL2VL tables (docs/opensm-plugin.md):\n")
	fmt.Fprintf(out, "             make install-plugin (as root); in opensm.conf: event_plugin_name slimroute, routing_engine slimroute,updn, lmc %d, qos TRUE\n", res.LIDs.LMC())
	if a.Needed <= 1 {
		fmt.Fprintf(out, "             or, since the routing needs one VL only (all on SL 0 and VL 0): cp %s %s && opensm -R file -U %s -l %d   (as root; %s is OpenSM's default cache directory, $OSM_CACHE_DIR if you set one)\n",
			filepath.Join(rdir, "guid2lid"), osmCacheDir+"/guid2lid", filepath.Join(rdir, "opensm-lfts.txt"), res.LIDs.LMC(), osmCacheDir)
		return
	}
	fmt.Fprintf(out, "             not with OpenSM's file engine (opensm -R file): it loads the LFTs only, the SA then hands out SL 0 and the switches keep their SL2VL,\n")
	fmt.Fprintf(out, "             so the %d VLs this routing needs against credit loops are not in force\n", a.Needed)
}

// design is the fabric demo builds, with the name of its files, its titles
// and the VL scheme it is routed with.
type design struct {
	f                  *fabric.Fabric
	base, title, short string
	deadlock           string
}

// demoDesign builds demo's fabric of topology name: the Slim Fly of q (the
// paper's q = 5 by default), or a small PolarFly (q = 7 unless qSet),
// HyperX or Dragonfly+.
func demoDesign(name string, q int, qSet bool) (design, error) {
	var (
		d   design
		err error
	)
	switch name {
	case "slimfly":
		d = design{base: fmt.Sprintf("sf%d", q), title: fmt.Sprintf("Slim Fly q=%d", q), short: fmt.Sprintf("q=%d", q), deadlock: "hops"}
		d.f, err = slimfly.Build(slimfly.Params{Q: q})
	case "polarfly":
		if !qSet {
			q = 7
		}
		d = design{base: fmt.Sprintf("pf%d", q), title: fmt.Sprintf("PolarFly q=%d", q), short: fmt.Sprintf("PolarFly q=%d", q), deadlock: "auto"}
		d.f, err = polarfly.Build(polarfly.Params{Q: q})
	case "hyperx":
		d = design{base: "hx6x6", title: "HyperX 6×6, 3 HCAs per switch", short: "HyperX 6×6", deadlock: "auto"}
		d.f, err = hyperx.Build(hyperx.Params{Dims: []int{6, 6}, Endpoints: 3})
	case "dragonfly-plus":
		d = design{base: "dfp8", title: "Dragonfly+ of 8-port switches: 17 groups of 4 leaves and 4 spines", short: "Dragonfly+ radix 8", deadlock: "auto"}
		d.f, err = dragonflyplus.Build(dragonflyplus.Params{Radix: 8})
	default:
		return d, fmt.Errorf("--topology %q: want slimfly, polarfly, hyperx or dragonfly-plus", name)
	}
	if err == nil && qSet && name != "slimfly" && name != "polarfly" {
		err = fmt.Errorf("--q shapes a Slim Fly or a PolarFly; --topology %s has its own shape (drop --q, or build it with slimroute topo %s and route it with --fabric)", name, name)
	}
	return d, err
}
