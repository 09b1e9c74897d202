package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"slimroute/analysis"
	"slimroute/fabric"
	"slimroute/jobs"
	"slimroute/layers"
	"slimroute/lft"
)

func analyzeCommand() *cli.Command {
	return &cli.Command{
		Name:  "analyze",
		Usage: "measure a layered routing: path lengths, disjoint paths against their ceiling, forwarding index, link loads",
		Description: `Routes the fabric with slimroute's layered engine, or reads the forwarding tables
OpenSM dumped (--lfts), and reports the same figures for either. Disjoint paths stand
beside their ceiling: the most link-disjoint paths the graph allows each pair within
the length bounds (the routing's; for --lfts, --min-len/--max-len or the default).

Examples:
   slimroute analyze --slimfly 7 --layers 4
   slimroute analyze --fabric sf7.net --lfts dump/opensm-lfts.dump --json
   slimroute analyze --slimfly 5 --svg plots/
   slimroute analyze --fabric fabric.ibnetdiscover --lfts opensm-lfts.dump --jobs <(squeue -h -o "%i %N")`,
		Flags: append(append(sourceFlags(), layerFlags()...),
			&cli.IntFlag{Name: "permutations", Value: 100, Usage: "random permutations to sample"},
			&cli.StringFlag{Name: "lfts", Usage: "analyze OpenSM's LFT dump `FILE` (opensm-lfts.dump) instead of routing"},
			&cli.IntFlag{Name: "lft-layers", Usage: "with --lfts: layers = 2^LMC (default: from the LIDs per port)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.StringFlag{Name: "summary", Usage: "print one tab-separated line of key figures labelled `NAME` (for comparison tables)"},
			&cli.BoolFlag{Name: "summary-header", Usage: "with --summary: print the column names first"},
			&cli.StringFlag{Name: "svg", Usage: "also write path-lengths.svg, link-loads.svg, disjoint-paths.svg and shift-loads.svg (and with --jobs jobs.svg: each job's links in its colour, shared ones black) to `DIR`"},
			&cli.StringFlag{Name: "jobs", Usage: "also measure the jobs of `FILE` (one per line: ID, Slurm node list, pattern, options; docs/formats.md): per job the busiest link alone and with the others, the links shared and with whom"},
		),
		Action: func(c *cli.Context) error {
			f, err := loadRoutingFabric(c)
			if err != nil {
				return err
			}
			tab, r, engine, err := tablesFor(c, f)
			if err != nil {
				return err
			}
			var stats []layers.LayerStats
			// the ceiling's bounds: the routing's, or for another engine's
			// tables --min-len/--max-len or the default rule
			bounds := layers.Bounds{Min: c.Int("min-len"), Max: c.Int("max-len")}
			if r != nil {
				stats, bounds = r.Stats, r.Bounds
			}
			rep, err := analysis.Analyze(tab, analysis.Options{Permutations: c.Int("permutations"), Seed: c.Uint64("seed"), Layers: c.Int("lft-layers"), Bounds: bounds, Workers: runtime.GOMAXPROCS(0)})
			if err != nil {
				return lftsError(c.String("lfts"), err)
			}
			jobRep, err := analyzeJobs(c.String("jobs"), tab)
			if err != nil {
				return err
			}
			if dir := c.String("svg"); dir != "" {
				if err := writeCharts(dir, rep, jobRep, engine); err != nil {
					return err
				}
			}
			if name := c.String("summary"); name != "" {
				return printSummary(c.App.Writer, name, rep, c.Bool("summary-header"))
			}
			if c.Bool("json") {
				out := struct {
					Engine string              `json:"engine"`
					Layers []layers.LayerStats `json:"layer_stats,omitempty"`
					*analysis.Report
					Jobs *jobs.Report `json:"jobs,omitempty"`
				}{engine, stats, rep, jobRep}
				b, err := json.MarshalIndent(out, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(c.App.Writer, "%s\n", b)
				return err
			}
			if err := printReport(c.App.Writer, engine, rep, stats); err != nil || jobRep == nil {
				return err
			}
			return printJobs(c.App.Writer, jobRep)
		},
	}
}

// lftsError names, for a refusal of the tables read from --lfts FILE,
// the file or the flag that asked for the layers, and what would read
// them.
func lftsError(file string, err error) error {
	var layers *analysis.LayersError
	var noEntry *analysis.NoEntryError
	switch {
	case file == "":
		return err
	case errors.As(err, &layers) && layers.Asked != 0:
		return fmt.Errorf("--lft-layers %d: %s: %v; give --lft-layers %d, or leave it out to take it from the tables", layers.Asked, file, err, layers.LIDs)
	case errors.As(err, &noEntry) || layers != nil:
		return fmt.Errorf("%s: %w; analyze needs tables that route every LID: slimroute verify, given the same fabric and --lfts %s, lists the LIDs these do not", file, err, file)
	}
	return fmt.Errorf("%s: %w", file, err)
}

// tablesFor is the forwarding state analyze measures on fabric f:
// OpenSM's dump (--lfts FILE), or slimroute's layers computed with the
// layer flags and programmed (then also the routing). engine names it.
func tablesFor(c *cli.Context, f *fabric.Fabric) (*lft.Tables, *layers.Routing, string, error) {
	if path := c.String("lfts"); path != "" {
		fh, err := openInput(path)
		if err != nil {
			return nil, nil, "", err
		}
		defer fh.Close()
		tab, err := lft.ReadOpenSMLFTs(fh, path, f)
		return tab, nil, "tables from " + path, err
	}
	r, err := layers.Compute(f, layerOptions(c))
	if err != nil {
		return nil, nil, "", err
	}
	tab, err := programLayers(f, r)
	return tab, r, fmt.Sprintf("slimroute layers (%s in layers ≥ 1)", r.Bounds), err
}

// programLayers programs a routing's forwarding tables (LMC log2 of its
// layers, VLs not needed) for the analysis.
func programLayers(f *fabric.Fabric, r *layers.Routing) (*lft.Tables, error) {
	lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: layers.LMC(r.NumLayers())})
	if err != nil {
		return nil, err
	}
	return lft.Build(f, lids, r, nil, runtime.GOMAXPROCS(0))
}

// writeCharts writes the report's charts into dir as one set.
func writeCharts(dir string, rep *analysis.Report, jobRep *jobs.Report, engine string) error {
	charts := []struct {
		file  string
		draw  func(io.Writer, *analysis.Report, string) error
		title string
	}{
		{"path-lengths.svg", analysis.PathLengthChart, "Path lengths per layer — "},
		{"link-loads.svg", analysis.LoadChart, "Channel loads, all-to-all — "},
		{"disjoint-paths.svg", analysis.CeilingChart, "Disjoint paths against the ceiling — "},
		{"shift-loads.svg", analysis.ShiftChart, "Shift permutations — "},
	}
	var files []outputFile
	for _, ch := range charts {
		files = append(files, outputFile{ch.file, func(w io.Writer) error { return ch.draw(w, rep, ch.title+engine) }})
	}
	if jobRep != nil {
		files = append(files, outputFile{"jobs.svg", func(w io.Writer) error { return jobs.WriteSVG(w, jobRep, "Jobs and the links they share — "+engine) }})
	}
	return writeOutputs(dir, "--svg", files)
}

func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(of))
}

func printReport(w io.Writer, engine string, rep *analysis.Report, stats []layers.LayerStats) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "engine\t%s\n", engine)
	fmt.Fprintf(tw, "switches / endpoints / channels\t%d / %d / %d\n", rep.Switches, rep.Endpoints, rep.Channels)
	fmt.Fprintf(tw, "pairs (source switch, destination endpoint)\t%d\n\n", rep.Pairs)
	fmt.Fprintf(tw, "layer\tpath lengths (hops: pairs)\tin bounds\tfallback\tEFI max\tEFI mean (= lower bound)\n")
	for k, h := range rep.PathLengths {
		in, fb := "-", "-"
		if k < len(stats) {
			in, fb = fmt.Sprint(stats[k].InBounds), fmt.Sprint(stats[k].Fallback)
		}
		e := rep.EFI[k]
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%.0f\t%.1f\n", k, hopCounts(h), in, fb, e.Max, e.Mean)
	}
	printDisjoint(tw, rep)
	fmt.Fprintf(tw, "\ntraffic (flows split over layers)\tsamples\tmax link load\tmean max load\teffective bandwidth\n")
	for _, p := range rep.Patterns {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\n", p.Name, p.Samples, p.MaxLoad, p.MeanMaxLoad, p.EffectiveBandwidth)
	}
	if sh := rep.Shifts; sh != nil {
		fmt.Fprintf(tw, "\nshift permutations (%d shifts, rank order)\tmax link load\tworst shift\tmean max load\tshifts at link rate\n", sh.Shifts)
		for _, l := range append(sh.Layers, sh.All) {
			name := fmt.Sprintf("layer %d", l.Layer)
			if l.Layer < 0 {
				name = "all layers (flows split)"
			}
			fmt.Fprintf(tw, "%s\t%.3f\t%d\t%.3f\t%d\n", name, l.MaxLoad, l.WorstShift, l.MeanMaxLoad, l.AtLinkRate)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return printShort(w, rep)
}

// printDisjoint prints the disjoint-path figures beside their ceiling.
func printDisjoint(tw io.Writer, rep *analysis.Report) {
	ce := rep.Ceiling
	if ce == nil {
		fmt.Fprintf(tw, "\nlink-disjoint paths over the layers\tpairs\tswitch pairs (all endpoints)\n")
		for n := 1; n < len(rep.Disjoint); n++ {
			fmt.Fprintf(tw, "≥ %d\t%s\t%s\n", n, pct(rep.Disjoint[n], rep.Pairs), pct(rep.SwitchPairDisjoint[n], rep.SwitchPairs))
		}
		fmt.Fprintf(tw, "ceiling not computed: %s\n", rep.CeilingError)
		return
	}
	fmt.Fprintf(tw, "\nlink-disjoint paths over the layers\tpairs\tceiling (%s)\tin bounds\tof ceiling\tswitch pairs (all endpoints)\tswitch-pair ceiling\n", ce.Bounds)
	for n := 1; n < len(rep.Disjoint); n++ {
		fmt.Fprintf(tw, "≥ %d\t%s\t%s\t%s\t%s\t%s\t%s\n", n, pct(rep.Disjoint[n], rep.Pairs), pct(ce.Possible[n], rep.Pairs),
			pct(ce.Achieved[n], rep.Pairs), ratio(ce.Achieved[n], ce.Possible[n]),
			pct(rep.SwitchPairDisjoint[n], rep.SwitchPairs), pct(ce.SwitchPossible[n], rep.SwitchPairs))
	}
	fmt.Fprintf(tw, "\nby distance (have / ceiling allows)\tpairs\tshort of ceiling")
	for n := 2; n < len(ce.Possible); n++ {
		fmt.Fprintf(tw, "\t≥ %d", n)
	}
	fmt.Fprintln(tw)
	for _, cl := range ce.Classes {
		fmt.Fprintf(tw, "%s\t%d\t%s", cl.Name, cl.Pairs, pct(cl.Short, cl.Pairs))
		for n := 2; n < len(cl.Possible); n++ {
			fmt.Fprintf(tw, "\t%d / %d", cl.Achieved[n], cl.Possible[n])
		}
		fmt.Fprintln(tw)
	}
}

// printShort lists the first pairs short of their ceiling.
func printShort(w io.Writer, rep *analysis.Report) error {
	if rep.Ceiling == nil || len(rep.Ceiling.ShortPairs) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nfirst pairs short of their ceiling (%d in all; --json lists %d):\n", rep.Ceiling.Short, len(rep.Ceiling.ShortPairs))
	for i, p := range rep.Ceiling.ShortPairs {
		if i == 10 {
			break
		}
		fmt.Fprintf(w, "  %s -> %s (%s): %d disjoint, ceiling %d\n", p.Source, p.Destination, analysis.ClassName(p.Distance), p.Achieved, p.Ceiling)
	}
	return nil
}

func ratio(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

// printSummary prints the figures the comparison scripts tabulate.
func printSummary(w io.Writer, name string, rep *analysis.Report, header bool) error {
	share := func(n, of int) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(max(of, 1))) }
	at := func(x []int, i int) int {
		if i < len(x) {
			return x[i]
		}
		return 0
	}
	efiMax := 0.0
	for _, e := range rep.EFI {
		efiMax = max(efiMax, e.Max)
	}
	var perm analysis.PatternLoad
	for _, p := range rep.Patterns {
		if p.Name == "random permutations" {
			perm = p
		}
	}
	if header {
		fmt.Fprintln(w, "engine\tlayers\tpairs >=2 disjoint\tpairs >=3 disjoint\tswitch pairs >=3\tmax EFI\tperm mean max load\tperm eff. bandwidth")
	}
	_, err := fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%.0f\t%.3f\t%.3f\n", name, rep.Layers,
		share(at(rep.Disjoint, 2), rep.Pairs), share(at(rep.Disjoint, 3), rep.Pairs),
		share(at(rep.SwitchPairDisjoint, 3), rep.SwitchPairs), efiMax, perm.MeanMaxLoad, perm.EffectiveBandwidth)
	return err
}
