package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"slimroute/jobs"
	"slimroute/lft"
)

func placeCommand() *cli.Command {
	return &cli.Command{
		Name:  "place",
		Usage: "choose the free nodes for a new job that share the least with the running jobs under the current routing",
		Description: `Reads the running jobs (--jobs, the job file of analyze --jobs: squeue's "%i %N" lines) and
the routing they run under — the directory route -o wrote (--routing DIR: its fabric.json and
opensm-lfts.txt), OpenSM's LFT dump on a fabric (--fabric F --lfts DUMP), or slimroute's layers
computed for a fabric as analyze does — and chooses --nodes of the free hosts (every host no job
runs on, or --free, a Slurm host list such as sinfo -h -t idle -o %N prints) for a new job of
--pattern, weight 1: the busiest channel it uses, with every job's traffic ("together"), as low
as found, then its own busiest channel ("alone"), then fewer switches. Ranks follow the hosts'
name order, as Slurm numbers an allocation. Prints the host list for sbatch --nodelist and the
figures, beside the first fit (the first free hosts in name order, as a scheduler blind to the
network takes them); the figures are those analyze --jobs reports for the job added to the file.
Same input, same choice. docs/formats.md, "slimroute place".

Examples:
   slimroute place --routing out/route --jobs <(squeue -h -o "%i %N") --nodes 16
   slimroute place --fabric fabric.ibnetdiscover --lfts opensm-lfts.dump --jobs jobs.txt --nodes 8 --pattern all-to-all --free "$(sinfo -h -t idle -o %N)"
   slimroute place --slimfly 5 --hosts node%03d --jobs jobs.txt --nodes 12 --json`,
		Flags: append(append(sourceFlags(), layerFlags()...),
			hostsFlag("the job file and --free then name those hosts"),
			&cli.StringFlag{Name: "routing", Usage: "the routing route -o wrote to `DIR` (fabric.json, opensm-lfts.txt), instead of a fabric"},
			&cli.StringFlag{Name: "lfts", Usage: "with a fabric: OpenSM's LFT dump `FILE` (opensm-lfts.dump) instead of computing the layers"},
			&cli.StringFlag{Name: "jobs", Required: true, Usage: "the running jobs: a job `FILE` (docs/formats.md)"},
			&cli.IntFlag{Name: "nodes", Aliases: []string{"N"}, Required: true, Usage: "how many nodes the new job takes"},
			&cli.StringFlag{Name: "pattern", Value: "ring", Usage: "the new job's traffic: ring, tree, all-to-all or neighbours"},
			&cli.StringFlag{Name: "free", Usage: "the free nodes, a Slurm `HOSTLIST` (default: every host no running job uses)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		),
		Action: func(c *cli.Context) error {
			tab, engine, err := placeTables(c)
			if err != nil {
				return err
			}
			running, req, err := placeRequest(c)
			if err != nil {
				return err
			}
			best, first, err := jobs.Place(tab, running, c.String("jobs"), req)
			if err != nil {
				return placeError(err, c.String("jobs"))
			}
			out := placeReport{Engine: engine, Nodes: req.Nodes, Pattern: c.String("pattern"), Chosen: best, FirstFit: first}
			if c.Bool("json") {
				b, err := json.MarshalIndent(out, "", "  ")
				if err == nil {
					_, err = fmt.Fprintf(c.App.Writer, "%s\n", b)
				}
				return err
			}
			return printPlace(c.App.Writer, out)
		},
	}
}

// placeReport is what place prints.
type placeReport struct {
	Engine   string         `json:"engine"`
	Nodes    int            `json:"nodes"`
	Pattern  string         `json:"pattern"`
	Chosen   jobs.Placement `json:"chosen"`
	FirstFit jobs.Placement `json:"first_fit"`
}

// placeTables is the routing the jobs run under: --routing DIR, or the
// fabric's tables as analyze takes them; the fabric's hosts named by
// --hosts.
func placeTables(c *cli.Context) (*lft.Tables, string, error) {
	dir := c.String("routing")
	if dir == "" {
		f, err := loadRoutingFabric(c)
		if err == nil {
			f, err = hostsNamed(c, f)
		}
		if err != nil {
			return nil, "", err
		}
		tab, _, engine, err := tablesFor(c, f)
		return tab, engine, err
	}
	for _, name := range []string{"config", "fabric", "slimfly", "lfts"} {
		if c.IsSet(name) {
			return nil, "", fmt.Errorf("--routing %s brings its own fabric and tables: drop --%s", dir, name)
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, "", fmt.Errorf("--routing %s: not a directory; give the directory route -o wrote", dir)
	}
	f, err := previousFabric(dir)
	if err == nil && f == nil {
		err = errors.New("no fabric.json (a routing written by an older slimroute: give --fabric FILE --lfts " + filepath.Join(dir, "opensm-lfts.txt") + " instead)")
	}
	if err == nil {
		f, err = hostsNamed(c, f)
	}
	if err != nil {
		return nil, "", fmt.Errorf("--routing %s: %w", dir, err)
	}
	lfts := filepath.Join(dir, "opensm-lfts.txt")
	tab, err := readTables(f, lfts, "", "")
	return tab, "tables from " + lfts, err
}

// placeRequest reads the job file and the new job's flags.
func placeRequest(c *cli.Context) ([]jobs.Job, jobs.PlaceRequest, error) {
	req := jobs.PlaceRequest{Nodes: c.Int("nodes"), Pattern: c.String("pattern")}
	if c.IsSet("free") {
		free, err := jobs.ExpandHostlist(c.String("free"))
		if err == nil && len(free) == 0 {
			err = errors.New("no host")
		}
		if err != nil {
			return nil, req, fmt.Errorf("--free: %v; give a Slurm host list such as node[001-016,020] (sinfo -h -t idle -o %%N prints the idle nodes)", err)
		}
		req.Free = free
	}
	running, err := readJobs(c.String("jobs"))
	return running, req, err
}

// placeError names the flag of a request the jobs or the fabric cannot
// meet, and what would.
func placeError(err error, file string) error {
	var re *jobs.RequestError
	if !errors.As(err, &re) {
		return err
	}
	switch re.Field {
	case "Nodes":
		return fmt.Errorf("--nodes: %s; ask for fewer nodes, or wait for jobs to end (--free and %s say which hosts are taken)", re.Msg, file)
	case "Pattern":
		return fmt.Errorf("--pattern %s", re.Msg)
	}
	return fmt.Errorf("--free: %s; list only idle hosts of this fabric (sinfo -h -t idle -o %%N), and keep %s up to date (squeue -h -o \"%%i %%N\")", re.Msg, file)
}

// printPlace prints the chosen nodes and the figures beside the first
// fit's.
func printPlace(w io.Writer, r placeReport) error {
	fmt.Fprintf(w, "new job: %d nodes, %s, under %s\n", r.Nodes, r.Pattern, r.Engine)
	fmt.Fprintf(w, "nodelist: %s\n\n", r.Chosen.Nodelist)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\ttogether\talone\tcontention factor\tswitches\tnodes")
	for _, row := range []struct {
		name string
		p    jobs.Placement
	}{{"chosen", r.Chosen}, {"first fit", r.FirstFit}} {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.2f\t%d\t%s\n", row.name, row.p.Together, row.p.Alone, row.p.Factor, row.p.Switches, row.p.Nodelist)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nsbatch --nodelist=%s -N %d …\n", r.Chosen.Nodelist, r.Nodes)
	return err
}
