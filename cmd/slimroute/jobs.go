package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"slimroute/fabric"
	"slimroute/jobs"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/pipeline"
)

// jobsRouted is summary.json's account of route --jobs.
type jobsRouted struct {
	File string              `json:"file"`
	Pass layers.TrafficStats `json:"pass"`
	// Text is the job file as read: a later route --jobs --previous
	// replays this routing from it (switchover.go)
	Text string `json:"text"`
	// SwitchedOver says the routing started from the routing in
	// --previous, and History holds the job files of the routings since
	// the last full computation, oldest first ("": routed without jobs)
	SwitchedOver string   `json:"switched_over_from,omitempty"`
	History      []string `json:"history,omitempty"`
}

// maxJobFile bounds the job file route --jobs reads (summary.json keeps
// its text).
const maxJobFile = 16 << 20

// routeForJobs sets cfg.Traffic from the job file --jobs names (nothing
// without the flag): the jobs' hosts must be HCAs of f. It returns the
// file's text.
func routeForJobs(c *cli.Context, f *fabric.Fabric, cfg *pipeline.Config) (string, error) {
	file := c.String("jobs")
	if file == "" {
		return "", nil
	}
	in, err := openJobs(file)
	if err != nil {
		return "", err
	}
	defer in.Close()
	text, err := io.ReadAll(io.LimitReader(in, maxJobFile+1))
	if err != nil {
		return "", fmt.Errorf("%s: %v", file, err)
	}
	if len(text) > maxJobFile {
		return "", fmt.Errorf("%s: longer than %d MiB; give the jobs that run, one line each", file, maxJobFile>>20)
	}
	cfg.Traffic, err = trafficOf(f, string(text), file)
	return string(text), err
}

// trafficOf reads the jobs of a job file's text (file names it in
// errors) and returns their traffic on f.
func trafficOf(f *fabric.Fabric, text, file string) (*layers.Traffic, error) {
	js, err := jobs.Read(strings.NewReader(text), file)
	if err != nil {
		return nil, err
	}
	return jobs.Traffic(f, js, file)
}

// readJobs reads the job file named file ("-": standard input).
func readJobs(file string) ([]jobs.Job, error) {
	in, err := openJobs(file)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return jobs.Read(in, file)
}

// openJobs opens the job file named file ("-": standard input, which
// closing leaves open).
func openJobs(file string) (io.ReadCloser, error) {
	if file == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	fh, err := openInput(file)
	if err != nil {
		return nil, err // (not a nil *os.File in an interface)
	}
	return fh, nil
}

// analyzeJobs measures the jobs of file (none for "") under tab.
func analyzeJobs(file string, tab *lft.Tables) (*jobs.Report, error) {
	if file == "" {
		return nil, nil
	}
	js, err := readJobs(file)
	if err != nil {
		return nil, err
	}
	return jobs.Analyze(tab, js, file)
}

// printJobs prints the jobs' table: one row per job, then what each
// shares with whom.
func printJobs(out io.Writer, rep *jobs.Report) error {
	fmt.Fprintf(out, "\njobs (load per iteration on the busiest of %d switch-to-switch channels, flows split over the layers)\n", rep.Channels)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "job\thosts\tpattern\talone\tLP bound\tcut bound\ttogether\tcontention factor\tshares channels with")
	for _, j := range rep.Jobs {
		var with []string
		for _, s := range j.Shared {
			with = append(with, fmt.Sprintf("%s (%d, compatible: %s)", s.Job, s.Channels, s.Compatible))
		}
		if len(with) == 0 {
			with = []string{"-"}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.3f\t%s\t%.3f\t%.3f\t%.2f\t%s\n", j.ID, j.Hosts, j.Pattern, j.Alone, lpText(j.LPBound, j.LPNote), j.Bound, j.Together, j.Factor, strings.Join(with, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(out, "all jobs together: busiest channel %.3f, LP bound %s\n", rep.Busiest, lpText(rep.LPBound, rep.LPNote))
	if rep.Lost > 0 {
		fmt.Fprintf(out, "%.3f of the jobs' traffic goes to LIDs the tables do not deliver (slimroute verify names them)\n", rep.Lost)
	}
	return nil
}

// lpText is an LP bound for the table, or why it is missing.
func lpText(v float64, note string) string {
	if note != "" {
		return "n/a (" + note + ")"
	}
	return fmt.Sprintf("%.3f", v)
}
