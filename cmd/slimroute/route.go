package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"slimroute/fabric"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/verify"
)

// routeSummary is summary.json: everything in it depends only on the input.
type routeSummary struct {
	Fabric   fabric.Stats        `json:"fabric"`
	Layers   int                 `json:"layers"`
	Trees    int                 `json:"trees_per_switch"` // -1: one per endpoint
	Bounds   string              `json:"bounds"`
	Stats    []layers.LayerStats `json:"layer_stats"`
	Deadlock struct {
		Scheme        string `json:"scheme"`
		VLsNeeded     int    `json:"vls_needed"`
		VLsUsed       int    `json:"vls_used"`
		SLsUsed       int    `json:"sls_used"`
		Packing       string `json:"packing,omitempty"`
		Spare         string `json:"spare_sl2vl,omitempty"` // kept for a repair's routes, used by none
		RoutesOnCycle int    `json:"routes_on_cycle,omitempty"`
	} `json:"deadlock"`
	LIDs struct {
		LMC   int `json:"lmc"`
		Ports int `json:"ports"`
		Top   int `json:"top_lid"`
	} `json:"lids"`
	Verify      *verify.Report `json:"verify"`
	Unreachable []string       `json:"unreachable,omitempty"`
	Settings    *routeSettings `json:"settings"` // what the run asked for (--previous reads it)
	// Jobs says what routing for the jobs of --jobs did
	Jobs *jobsRouted `json:"jobs,omitempty"`
	// Completed says the fabric, a Slim Fly with cables or hosts missing,
	// was routed as its design and the tables repaired for it (the
	// layers and deadlock figures are then the design's)
	Completed *pipeline.Completion `json:"completed,omitempty"`
	// AgainstPrevious says, for a full recompute where --previous asked
	// for a repair, what it changes against that routing
	AgainstPrevious *againstPrevious `json:"against_previous,omitempty"`
	Files           []string         `json:"files"`
}

func routeCommand() *cli.Command {
	return &cli.Command{
		Name:  "route",
		Usage: "compute layered routes, make them deadlock-free, verify them, and write OpenSM's files",
		Description: `Runs the pipeline fabric → layers → VL assignment → forwarding tables, checks the
result with the independent verifier (every LID reachable, no loop, no CDG cycle),
and only then writes, atomically, into DIR:
   opensm-lfts.txt   LFTs for opensm -R file -U (every switch, every LID and offset)
   guid2lid          OpenSM's LID cache, to pin the planned LIDs (OSM_CACHE_DIR)
   path-sl.txt       slimroute's path SLs (per source switch and DLID)
   sl2vl.txt         SL2VL per switch (in, out), in ibdmchk's -d format
   ibdmchk/          with --ibdmchk: subnet.lst, fdbs, mcfdbs, psl, sl2vl, ibdmchk's
                     verification inputs (multi-layer routings as an equivalent LMC-0 view)
   summary.json      layers, VLs, SLs, LIDs, verifier report (deterministic)
   timings.json      time per stage

Examples:
   slimroute route --slimfly 5 --layers 4 --deadlock hops -o out/route
   slimroute route --fabric ibnetdiscover.out --lids-from-fabric --deadlock dfsssp --vls 4 -o out/
   slimroute route --fabric after-failure.out --vls 4 --previous out/route -o out/repaired
   slimroute route --fabric now.out --jobs new-jobs.txt --previous out/jobs -o out/jobs2`,
		Flags: append(append(sourceFlags(), pipelineFlags()...),
			&cli.StringFlag{Name: "profile", Usage: "write cpu.pprof and heap.pprof of this run to `DIR` (go tool pprof)"},
			&cli.BoolFlag{Name: "ibdmchk", Usage: "also write ibdmchk's verification inputs to DIR/ibdmchk (large: one line per HCA, layer and LID)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the files to `DIR`", Required: true},
			&cli.StringFlag{Name: "jobs", Usage: "route for the traffic of the jobs in `FILE` (a job file, docs/formats.md; e.g. squeue -h -o \"%i %N\" > jobs.txt): the trees their flows take are moved so that their loads spread and their flows part, sharing between compatible jobs preferred, layer 0 minimal and every other pair's disjoint paths kept; no job's contention factor rises (slimroute analyze --jobs FILE measures it)"},
			&cli.StringFlag{Name: "previous", Usage: "repair the routing route wrote into `DIR` for this fabric (cables or switches gone): change only the entries whose paths crossed what is gone, keep the rest, and route an HCA new, replaced or recabled as the HCA with the lowest port GUID that stays on its switch; recompute in full, keeping every port's LIDs, when that cannot be done (a switch or a cable between switches added, no VL left, SL2VL tables naming a VL --vls lacks, a routing flag given that differs from the previous routing's); flags left out take the previous routing's values (its summary.json); DIR missing or a file in it that does not read is an error. With --jobs: route the new jobs from DIR's routing (replayed from its summary.json and checked against its files) by moves that keep every mix of the two deadlock-free, so the switch-over is safe; a full recompute says whether its switch-over is"},
			&cli.BoolFlag{Name: "mend", Value: true, Usage: "where a repair (--previous, or the completion of a Slim Fly missing a few cables) leaves a pair (source switch, destination HCA) whose routes broke with fewer disjoint paths, move one of its routes that did not break when that gives it more and costs no other pair one (7–8 % more entries than the repair alone on Slim Fly q = 5 and 7; docs/quality.md); --mend=false changes only the entries whose routes crossed what is gone"},
		),
		Action: func(c *cli.Context) error {
			cfg, err := pipelineConfig(c)
			if err != nil {
				return err
			}
			if c.IsSet("mend") {
				mend := c.Bool("mend")
				cfg.Mend = &mend
			}
			cfg.Clock = time.Now
			if dir := c.String("profile"); dir != "" {
				stop, err := startProfile(dir)
				if err != nil {
					return err
				}
				defer stop()
			}
			timings := map[string]float64{}
			clock := time.Now()
			lap := func(name string) {
				timings[name] = float64(time.Since(clock).Microseconds()) / 1000
				clock = time.Now()
			}
			f, err := loadRoutingFabric(c)
			if err != nil {
				return err
			}
			lap("load_ms")
			jobText, err := routeForJobs(c, f, &cfg)
			if err != nil {
				return err
			}
			var prevTab *lft.Tables // the previous tables, where a refused repair or switch-over read them
			var chain []string      // the job files of the routing switched over from
			if prev := c.String("previous"); prev != "" && cfg.Traffic != nil {
				from, ch, read, why, err := switchOverFrom(c.App.Writer, f, &cfg, c.IsSet, prev)
				if err != nil {
					return err
				}
				if why != "" {
					fmt.Fprintf(c.App.Writer, "cannot switch over from the routing in %s to the jobs of --jobs: %s; recomputing in full\n", prev, why)
				}
				cfg.SwitchOverFrom, chain, prevTab = from, ch, read
			} else if prev != "" {
				done, read, err := routeFromPrevious(c.App.Writer, f, &cfg, c.IsSet, prev, c.String("output"), c.Bool("ibdmchk"), timings)
				if done || err != nil {
					return err
				}
				prevTab = read
			}
			if prev := c.String("previous"); prev != "" {
				if err := keepPreviousLIDs(c.App.Writer, prev, f, &cfg, &prevTab); err != nil {
					return err
				}
			}
			res, err := pipeline.Run(f, cfg)
			if err != nil && c.String("previous") != "" {
				err = fmt.Errorf("%w (the routing flags the run left out took their values from %s)", err, filepath.Join(c.String("previous"), "summary.json"))
			}
			if err != nil {
				return fabricLIDs(c, err)
			}
			lap("pipeline_ms")
			for _, st := range res.Stages {
				timings["pipeline_"+st.Name+"_ms"] = float64(st.Time.Microseconds()) / 1000
			}
			for _, p := range res.Routing.Passes {
				timings["layers_"+p.Name+"_ms"] = float64(p.Time.Microseconds()) / 1000
			}
			dir := c.String("output")
			if dir == "-" {
				return errors.New("-o -: route writes several files; name a directory")
			}
			if size := estimateRouteBytes(res.Tables); size >= bigOutput {
				fmt.Fprintf(c.App.ErrWriter, "slimroute: writing about %s to %s (opensm-lfts.txt has a line per switch and LID: %d × %d); fewer layers make it smaller\n",
					humanBytes(size), dir, len(res.Tables.Switches()), int(res.LIDs.Top()))
			}
			sum, files, err := routeFiles(f, cfg, res, c.Bool("ibdmchk"))
			if err != nil {
				return err
			}
			if res.Routing.Traffic != nil {
				sum.Jobs = &jobsRouted{File: c.String("jobs"), Pass: *res.Routing.Traffic, Text: jobText}
				if res.SwitchOver {
					sum.Jobs.SwitchedOver, sum.Jobs.History = c.String("previous"), chain
				} else if cfg.SwitchOverFrom != nil {
					fmt.Fprintf(c.App.Writer, "could not route from the routing in %s (its VLs cannot be kept for these routes, or its LIDs differ); recomputed in full\n", c.String("previous"))
				}
			}
			if prev := c.String("previous"); prev != "" {
				start := time.Now()
				sum.AgainstPrevious = compareWithPrevious(prev, f, res.Tables, prevTab, cfg.Workers)
				timings["against_previous_ms"] = since(start)
			}
			files = append(files, outputFile{"timings.json", func(w io.Writer) error {
				lap("write_ms") // written last: the files before it are written, their renames left
				return jsonFile("timings.json", timings).write(w)
			}})
			if err := writeOutputs(dir, "-o", files); err != nil {
				return err
			}
			if !c.Bool("ibdmchk") {
				dropStaleIBDMChk(c.App.ErrWriter, dir)
			}
			sum.Files = append(sum.Files, "timings.json")
			printRoute(c.App.Writer, res, sum, dir)
			return nil
		},
	}
}

// routeFiles lists the files of a routing run with settings cfg,
// summary.json last, and returns the summary that file holds.
func routeFiles(f *fabric.Fabric, cfg pipeline.Config, res *pipeline.Result, ibdm bool) (*routeSummary, []outputFile, error) {
	r, a, lids, tab, rep := res.Routing, res.Assignment, res.LIDs, res.Tables, res.Verify
	sum := &routeSummary{Settings: settingsOf(cfg)}
	sum.Fabric = fabric.ComputeStats(f)
	sum.Layers, sum.Bounds, sum.Stats, sum.Trees = r.NumLayers(), r.Bounds.String(), r.Stats, r.Trees
	sum.Deadlock.Scheme = string(a.Scheme)
	sum.Deadlock.VLsNeeded, sum.Deadlock.VLsUsed, sum.Deadlock.SLsUsed = a.Needed, a.VLs, a.SLs
	sum.Deadlock.Packing, sum.Deadlock.RoutesOnCycle = a.Packing, a.RoutesOnCycle
	if res.Spare.SL != 0 {
		sum.Deadlock.Spare = fmt.Sprintf("SL %d on VL %d", res.Spare.SL, res.Spare.VL)
	}
	sum.LIDs.LMC, sum.LIDs.Ports, sum.LIDs.Top = int(lids.LMC()), lids.NumPorts(), int(lids.Top())
	sum.Verify = rep
	sum.Completed = res.Completed
	for _, p := range tab.Unreachable() {
		sum.Unreachable = append(sum.Unreachable, f.PortString(p))
	}
	files := tableFiles(tab)
	if ibdm {
		more, err := ibdmchkFiles(tab)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, more...)
	}
	files = append(files, jsonFile("summary.json", sum))
	sum.Files = fileNames(files)
	return sum, files, nil
}

// ibdmchkFiles are ibdmchk's verification inputs for tables tab, in
// DIR/ibdmchk (--ibdmchk).
func ibdmchkFiles(tab *lft.Tables) ([]outputFile, error) {
	view, err := lft.NewIBDMView(tab)
	if err != nil {
		return nil, err
	}
	return ibdmchkOutputs(view), nil
}

// ibdmchkOutputs are the files --ibdmchk writes, each written from view;
// with view nil, only their names are to be read.
func ibdmchkOutputs(view *lft.IBDMView) []outputFile {
	return []outputFile{
		{"ibdmchk/subnet.lst", view.WriteSubnetList},
		{"ibdmchk/fdbs", view.WriteFDBs},
		{"ibdmchk/mcfdbs", func(io.Writer) error { return nil }},
		{"ibdmchk/psl", view.WritePathSL},
		{"ibdmchk/sl2vl", view.WriteSL2VL},
	}
}

// dropStaleIBDMChk removes DIR/ibdmchk, which an earlier run with
// --ibdmchk wrote, after a run without it replaced the tables beside it:
// left there, ibdmchk would judge the old routing. It removes only what
// --ibdmchk writes, and leaves a directory holding anything else (saying
// so).
func dropStaleIBDMChk(warn io.Writer, dir string) {
	sub := filepath.Join(dir, "ibdmchk")
	if fi, err := os.Lstat(sub); err != nil || !fi.IsDir() {
		return // none, or a link or file of the user's: not ours to remove
	}
	entries, err := os.ReadDir(sub)
	if err != nil {
		return
	}
	ours := fileNames(ibdmchkOutputs(nil))
	for _, e := range entries {
		if !e.Type().IsRegular() || !slices.Contains(ours, "ibdmchk/"+e.Name()) {
			fmt.Fprintf(warn, "slimroute: %s holds %s, which --ibdmchk does not write: left as it is, with the ibdmchk inputs of an earlier routing\n", sub, e.Name())
			return
		}
	}
	for _, e := range entries {
		os.Remove(filepath.Join(sub, e.Name()))
	}
	os.Remove(sub)
}

// bigOutput is the size from which route says how much it will write.
const bigOutput = 64 << 20

// estimateRouteBytes estimates the bytes route writes from the tables'
// dimensions; opensm-lfts.txt dominates, with a line per switch and LID:
// "0xLLLL PPP # Channel Adapter portguid 0x…: 'name'".
func estimateRouteBytes(t *lft.Tables) int64 {
	f := t.Fabric()
	var perSwitch int64 // the bytes of one switch's LID lines
	for _, p := range t.LIDs().Ports() {
		kind := len("Channel Adapter")
		if f.Kind(p.Port.Node) == fabric.Switch {
			kind = len("Switch")
		}
		line := len("0x0001 001 # ") + kind + len(" portguid 0x0000000000000000: ''\n") + len(f.Name(p.Port.Node))
		perSwitch += int64(line) * int64(p.Top()-p.Base+1)
	}
	var sl2vl int64 // a line per switch, cabled out port and in port
	for _, sw := range t.Switches() {
		cabled := int64(0)
		for port := 1; port <= f.Ports(sw); port++ {
			if _, ok := f.Peer(fabric.PortRef{Node: sw, Port: port}); ok {
				cabled++
			}
		}
		sl2vl += cabled * cabled * int64(len("0x0000000000000000 12 34")+8*len(" 0x00")+1)
	}
	S := int64(len(t.Switches()))
	lids := int64(t.LIDs().Top())
	return S*perSwitch + sl2vl + S*(lids+32) /* path-sl.txt */ + int64(len(t.LIDs().Ports()))*40 /* guid2lid */
}

// humanBytes writes n as "2.4 GB".
func humanBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.0f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%d bytes", n)
}

// printRoute prints what a routing run did, for people.
func printRoute(out io.Writer, res *pipeline.Result, sum *routeSummary, dir string) {
	r, a, lids, rep := res.Routing, res.Assignment, res.LIDs, res.Verify
	if c := res.Completed; c != nil {
		fmt.Fprintf(out, "%s; the layers and VLs below are the design's, the LIDs and the verifier's figures this fabric's\n", c)
	}
	if res.Plain != "" {
		fmt.Fprintln(out, res.Plain)
	}
	fmt.Fprintln(out, layerSummary(r, sum.Fabric.Switches, sum.Fabric.Endpoints))
	for _, st := range r.Stats {
		fmt.Fprintf(out, "  layer %d: %d pairs (source switch, destination endpoint) by switch-to-switch hops: %s", st.Layer, st.Pairs, hopCounts(st.Lengths))
		if st.Fallback > 0 {
			fmt.Fprintf(out, "; %d have no path of %s and keep the shortest", st.Fallback, r.Bounds)
		}
		fmt.Fprintln(out)
	}
	if t := r.Traffic; t != nil {
		fmt.Fprintf(out, "jobs (%s): %d flows between switches; %d moves in %d rounds changed %d entries of their destinations' trees", sum.Jobs.File, t.Flows, t.Moves, t.Rounds, t.Entries)
		if t.Kept > 0 {
			fmt.Fprintf(out, " (%d trees given back: a job's contention factor rose)", t.Kept)
		}
		fmt.Fprintf(out, "; their load cost %.4g → %.4g (slimroute analyze --jobs %s measures each job)\n", t.Before, t.After, sum.Jobs.File)
		if sum.Jobs.SwitchedOver != "" {
			fmt.Fprintf(out, "  routed from the tables in %s, by moves that keep every mix of the two deadlock-free (VLs and path SLs kept)\n", sum.Jobs.SwitchedOver)
		}
	}
	fmt.Fprintf(out, "deadlock scheme %s: needs %d VLs, uses %d VLs and %d SLs", a.Scheme, a.Needed, a.VLs, a.SLs)
	if a.Packing != "" {
		fmt.Fprintf(out, " (%s)", a.Packing)
	}
	if sum.Deadlock.Spare != "" {
		fmt.Fprintf(out, "; %s programmed spare, for a repair's routes", sum.Deadlock.Spare)
	}
	fmt.Fprintln(out)
	if a.RoutesOnCycle > 0 {
		fmt.Fprintf(out, "WARNING: best effort: %d routes remain on cycles, e.g. %s\n", a.RoutesOnCycle, a.OnCycle[0])
	}
	fmt.Fprintf(out, "LIDs: LMC %d, %d ports, top LID 0x%04x\n", lids.LMC(), len(lids.Ports()), lids.Top())
	verdict := "no CDG cycle"
	if !rep.Acyclic() {
		verdict = "CYCLE " + rep.CycleString()
	}
	fmt.Fprintf(out, "verifier: every LID reachable, no loops, %s (%d paths, %d channels, %d dependencies, %d VLs)\n", verdict, rep.Walks, rep.Channels, rep.Dependencies, rep.VLs)
	if p := sum.AgainstPrevious; p != nil {
		fmt.Fprintln(out, p)
	}
	fmt.Fprintf(out, "wrote %s/{%s}\n", filepath.Clean(dir), strings.Join(sum.Files, ","))
}

// layerSummary says what the layers of r are, in one line.
func layerSummary(r *layers.Routing, switches, endpoints int) string {
	L := r.NumLayers()
	if L == 1 {
		return fmt.Sprintf("routed %d switches and %d endpoints in 1 layer (LID offset 0, minimal paths)", switches, endpoints)
	}
	trees := "one tree per endpoint"
	if r.Trees > 0 {
		trees = fmt.Sprintf("%d trees per destination switch", r.Trees)
	}
	return fmt.Sprintf("routed %d switches and %d endpoints in %d layers (LID offsets 0..%d: layer 0 minimal, layers 1..%d on paths of %s where the fabric has them, %s)",
		switches, endpoints, L, L-1, L-1, r.Bounds, trees)
}

// hopCounts reads lengths[h] = pairs at h hops as "1: 1400, 2: 8400".
func hopCounts(lengths []int) string {
	var parts []string
	for h, n := range lengths {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d: %d", h, n))
		}
	}
	return strings.Join(parts, ", ")
}

// startProfile starts a CPU profile in dir; the returned function stops it
// and writes the heap profile next to it.
func startProfile(dir string) (func(), error) {
	if err := outputDir(dir, "--profile"); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cpu, err := os.Create(filepath.Join(dir, "cpu.pprof"))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		cpu.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		cpu.Close()
		runtime.GC()
		if heap, err := os.Create(filepath.Join(dir, "heap.pprof")); err == nil {
			pprof.WriteHeapProfile(heap)
			heap.Close()
		}
	}, nil
}
