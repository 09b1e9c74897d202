package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"slimroute/analysis"
	"slimroute/fabric"
	"slimroute/internal/atomicfile"
	"slimroute/pipeline"
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
			&cli.IntFlag{Name: "q", Value: 5, Usage: "Slim Fly prime power q = 4w+δ (3, 4, 5, 7, 8, 9, 11, 13, …)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "out", Usage: "output `DIR`"},
		},
		Action: func(c *cli.Context) error {
			q := c.Int("q")
			f, err := slimfly.Build(slimfly.Params{Q: q})
			if err != nil {
				return err
			}
			dir := c.String("output")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			st := fabric.ComputeStats(f)
			fmt.Fprintf(c.App.Writer, "Slim Fly q=%d\n", q)
			if err := printStats(c.App.Writer, st); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "\nfiles:\n")
			for _, format := range fabric.WriteFormats() {
				path := filepath.Join(dir, fmt.Sprintf("sf%d%s", q, format.Extension()))
				if err := atomicfile.Write(path, 0o644, func(w io.Writer) error { return fabric.Write(w, f, format) }); err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "  %-16s %s\n", format, path)
			}
			path := filepath.Join(dir, "stats.json")
			err = atomicfile.Write(path, 0o644, func(w io.Writer) error {
				b, _ := json.MarshalIndent(st, "", "  ")
				_, err := fmt.Fprintf(w, "%s\n", b)
				return err
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "  %-16s %s\n\n", "stats", path)
			res, err := pipeline.Run(f, pipeline.Config{Layers: 4, Deadlock: "hops", Seed: 1, LMC: -1, Workers: runtime.GOMAXPROCS(0)})
			if err != nil {
				return err
			}
			rdir := filepath.Join(dir, "route")
			sum, err := writeRoute(rdir, f, res, false)
			if err != nil {
				return err
			}
			printRoute(c.App.Writer, res, sum, rdir)
			rep, err := analysis.Analyze(res.Tables, analysis.Options{Permutations: 100, Seed: 1})
			if err != nil {
				return err
			}
			fmt.Fprintln(c.App.Writer)
			tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
			if err := printSummary(tw, fmt.Sprintf("q=%d slimroute", q), rep, true); err != nil {
				return err
			}
			tw.Flush()
			fmt.Fprintf(c.App.Writer, "\nsimulate it: ibsim -n -s %s %s\n", filepath.Join(dir, fmt.Sprintf("sf%d.net", q)), strings.Join(fabric.IBSimLimits(f), " "))
			fmt.Fprintf(c.App.Writer, "program it:  cp %s %s && opensm -R file -U %s -l %d   (as root; %s is OpenSM's default cache directory, $OSM_CACHE_DIR if you set one)\n",
				filepath.Join(rdir, "guid2lid"), osmCacheDir+"/guid2lid", filepath.Join(rdir, "opensm-lfts.txt"), res.LIDs.LMC(), osmCacheDir)
			return nil
		},
	}
}
