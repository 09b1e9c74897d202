package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"slimroute/check"
	"slimroute/fabric"
)

func fabricCheckCommand() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "one verdict on a running fabric, from OpenSM's dump directory or the switches: wiring, forwarding, credit loops, VLs, route quality",
		Description: `Reads what OpenSM wrote into its dump directory after its last sweep (it writes them
with a log level that includes 0x40, e.g. -D 0x43, into dump_files_dir): the fabric as
discovered (opensm-subnet.lst, or ibnetdiscover's output with --discovered), the LFTs
(opensm-lfts.dump), the SL2VL tables it programmed (opensm-sl2vl.dump, with QoS on) and
the path SLs the slimroute plugin hands out (slimroute-path-sl.txt, beside them), then
judges them in one page: the wiring against the plan (with --plan), every LID reachable,
no loop, no credit loop with the SLs and VLs in force, the VLs the paths take against those
the switches offer (--vls), and the routes' quality (link-disjoint paths, random
permutations). A part that is not in the directory is named in the report with what was
assumed instead: no SL2VL dump, every SL on VL 0; no path SLs, every path on SL 0 (right for
engines that assign no SLs; the SLs of dfsssp or nue are not in OpenSM's dumps).
With --live it reads the fabric, the LFTs and the SL2VL tables from the switches themselves
instead (ibnetdiscover, then ibroute and smpquery sl2vl for every switch, 8 at a time, with a
progress line; needs infiniband-diags and access to the fabric): what the switches hold, even
where it differs from what OpenSM last programmed. The path SLs come from --path-sl or the
plugin's slimroute-path-sl.txt in --dumps, and are held against path records the SA answers
(saquery PR, --sa of them): an SL that differs is a problem.
Exit status: 0 no problem, 1 problems (listed), 2 could not read the input.

Examples:
   slimroute check --dumps /var/log/opensm --vls 8
   slimroute check --live --dumps /var/log/opensm --vls 8
   slimroute check --dumps /var/log/opensm --plan plan/ --json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dumps", Usage: "OpenSM's dump `DIR` (dump_files_dir); with --live, only its slimroute-path-sl.txt is read"},
			&cli.BoolFlag{Name: "live", Usage: "read the fabric, LFTs and SL2VL tables from the switches (ibnetdiscover, ibroute, smpquery) instead of the dumps"},
			&cli.StringFlag{Name: "discovered", Usage: "the fabric from ibnetdiscover's output `FILE` instead of DIR/opensm-subnet.lst"},
			&cli.StringFlag{Name: "plan", Usage: "check the wiring against the plan `DIR` written by cabling plan"},
			&cli.StringFlag{Name: "path-sl", Usage: "path SLs `FILE` instead of DIR/slimroute-path-sl.txt"},
			&cli.IntFlag{Name: "vls", Usage: "data VLs the switches offer (1..15): a path on VL `N` or above is a problem (default: not checked)"},
			&cli.IntFlag{Name: "permutations", Value: 20, Usage: "random permutations for the quality"},
			&cli.IntFlag{Name: "sa", Value: 40, Usage: "with --live: path records to ask the SA for (saquery PR), held against the path SLs judged; 0: none"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fmt.Errorf("unexpected argument %q: name the dump directory with --dumps", c.Args().First())
			}
			if !c.IsSet("dumps") && !c.Bool("live") {
				return errors.New("name what to check: --dumps DIR (OpenSM's dump directory) or --live (the switches themselves)")
			}
			in, err := readCheckInput(c)
			if err != nil {
				fmt.Fprintln(c.App.ErrWriter, "slimroute: could not check: "+err.Error())
				return exitStatus(2)
			}
			rep := check.Check(in, runtime.GOMAXPROCS(0))
			if c.Bool("json") {
				b, _ := json.MarshalIndent(rep, "", "  ")
				fmt.Fprintf(c.App.Writer, "%s\n", b)
			} else {
				printCheck(c.App.Writer, rep)
			}
			if !rep.OK {
				return exitStatus(1)
			}
			return nil
		},
	}
}

// readCheckInput reads the state the check flags name.
func readCheckInput(c *cli.Context) (check.Input, error) {
	in := check.Input{VLs: c.Int("vls"), Permutations: c.Int("permutations"), Seed: 1, Sources: map[string]string{}}
	var err error
	if c.Bool("live") {
		err = readLiveState(c, &in)
	} else {
		err = readDumpedState(c, &in)
	}
	if err != nil {
		return in, err
	}
	if p := c.String("plan"); p != "" {
		if in.Plan, err = readPlanFabric(p); err != nil {
			return in, err
		}
		if in.PlanCables, err = readPlanCables(p); err != nil {
			return in, err
		}
		in.Sources["plan"] = filepath.Join(p, "fabric.json")
	}
	return in, nil
}

// readDumpedState sets in's state from OpenSM's dump directory.
func readDumpedState(c *cli.Context, in *check.Input) error {
	dir := c.String("dumps")
	fabricFile := c.String("discovered")
	if fabricFile == "" {
		fabricFile = filepath.Join(dir, "opensm-subnet.lst")
	}
	f, err := readFabricFile(fabricFile, "")
	if err == nil {
		f, err = f.Canonical() // the quality's samples do not depend on the file's order
	}
	if err != nil {
		return err
	}
	in.Sources["fabric"] = fabricFile
	lfts := filepath.Join(dir, "opensm-lfts.dump")
	in.Sources["lfts"] = lfts
	psl := pathSLFile(c, in, "none: every path on SL 0 (no slimroute-path-sl.txt; right for engines that assign no SLs)")
	sl2vl := filepath.Join(dir, "opensm-sl2vl.dump")
	in.Sources["sl2vl"] = sl2vl
	if !exists(sl2vl) {
		sl2vl, in.Sources["sl2vl"] = "", "none: every SL on VL 0 (no opensm-sl2vl.dump: OpenSM ran without QoS)"
	}
	in.Found, err = readTables(f, lfts, psl, sl2vl)
	return err
}

// readLiveState sets in's state from the switches (--live): the fabric,
// LFTs and SL2VL read from them, the path SLs from --path-sl or --dumps,
// and a sample of the SA's path records.
func readLiveState(c *cli.Context, in *check.Input) error {
	_, t, err := collectLive(c.Context, c.App.ErrWriter, 8)
	if err != nil {
		return err
	}
	in.Sources["fabric"] = "ibnetdiscover (live)"
	in.Sources["lfts"] = "ibroute on every switch (live)"
	in.Sources["sl2vl"] = "smpquery sl2vl on every switch's cabled out ports (live)"
	psl := pathSLFile(c, in, "none: every path on SL 0 (no --path-sl, no slimroute-path-sl.txt in --dumps; right for engines that assign no SLs)")
	if in.Found, err = withParts(t, psl, ""); err != nil {
		return err
	}
	in.SA, err = samplePathRecords(c.Context, in.Found, c.Int("sa"), 1, 8)
	return err
}

// pathSLFile returns the path-SL file to judge with — --path-sl, else the
// plugin's slimroute-path-sl.txt in --dumps, else "" — and records it in
// in's sources (none: what is assumed instead).
func pathSLFile(c *cli.Context, in *check.Input, none string) string {
	psl := c.String("path-sl")
	if dumped := filepath.Join(c.String("dumps"), "slimroute-path-sl.txt"); psl == "" && c.IsSet("dumps") && exists(dumped) {
		psl = dumped
	}
	in.Sources["path_sl"] = psl
	if psl == "" {
		in.Sources["path_sl"] = none
	}
	return psl
}

// readPlanFabric reads the planned fabric of a cabling plan directory.
func readPlanFabric(dir string) (*fabric.Fabric, error) {
	file := filepath.Join(dir, "fabric.json")
	fh, err := openInput(file)
	if err != nil {
		return nil, fmt.Errorf("--plan %s: %w (a directory written by slimroute cabling plan)", dir, err)
	}
	defer fh.Close()
	return fabric.ReadJSON(fh, file)
}

// exists tells whether path names a file that can be stat'ed.
func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}

// printCheck prints the report as one page.
func printCheck(w io.Writer, r *check.Report) {
	verdict := "OK"
	if !r.OK {
		verdict = fmt.Sprintf("PROBLEMS (%d)", len(r.Problems))
	}
	fmt.Fprintf(w, "slimroute check: %s\n", verdict)
	fmt.Fprintf(w, "  fabric    %d switches, %d HCAs (%s)\n", r.Switches, r.HCAs, r.Sources["fabric"])
	if r.Wiring != nil {
		fmt.Fprintf(w, "  wiring    %d of %d planned cables as planned, %d findings (plan %s)\n", r.Wiring.AsPlanned, r.Wiring.Planned, len(r.Wiring.Findings), r.Sources["plan"])
	} else {
		fmt.Fprintf(w, "  wiring    not checked (no --plan)\n")
	}
	switch {
	case r.RoutingError != "":
		fmt.Fprintf(w, "  routing   BROKEN\n")
	case !r.Routing.Acyclic():
		fmt.Fprintf(w, "  routing   every LID reachable, no loop, but a CREDIT LOOP (%d paths followed)\n", r.Routing.Walks)
	default:
		fmt.Fprintf(w, "  routing   every LID reachable, no loop, no credit loop (%d paths followed)\n", r.Routing.Walks)
	}
	fmt.Fprintf(w, "            LFTs %s\n            path SLs %s\n            SL2VL %s\n", r.Sources["lfts"], r.Sources["path_sl"], r.Sources["sl2vl"])
	if r.Routing != nil && r.Routing.MaxVL >= 0 {
		offered := "not checked (no --vls)"
		if r.VLsOffered > 0 {
			offered = fmt.Sprintf("the switches offer %d", r.VLsOffered)
		}
		fmt.Fprintf(w, "  VLs       paths take %d VLs, up to VL %d; %s\n", r.Routing.VLs, r.Routing.MaxVL, offered)
	}
	if r.SARecords > 0 {
		fmt.Fprintf(w, "  SA        %d of %d path records sampled hand out the SLs judged\n", r.SARecords-len(r.SADiffer), r.SARecords)
	}
	if q := r.Quality; q != nil && q.Pairs > 0 {
		fmt.Fprintf(w, "  quality   %.1f %% of %d HCA pairs with ≥ 2 link-disjoint paths, %.1f %% with ≥ 3; random permutations: mean max link load %.3f\n",
			100*float64(q.TwoDisjoint)/float64(q.Pairs), q.Pairs, 100*float64(q.ThreeDisjoint)/float64(q.Pairs), q.PermutationLoad)
	}
	if len(r.Problems) > 0 {
		fmt.Fprintf(w, "problems:\n  - %s\n", strings.Join(r.Problems, "\n  - "))
	}
}
