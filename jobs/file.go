// Package jobs reads the jobs that run on a fabric — who talks to whom,
// how much, and when — and measures what they share under a routing: per
// job, the busiest link its traffic crosses alone and together with the
// other jobs, the links it shares and with which jobs, and whether their
// communication phases can interleave.
package jobs

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Job is one line of a job file.
type Job struct {
	ID    string
	Line  int      // in the file, for errors
	Hosts []string // in rank order
	// Pattern is who sends to whom, in rank order: "ring" (rank i to
	// i+1, the last to the first), "tree" (a binary tree, both ways along
	// every edge), "all-to-all", or "neighbours" (i to i±1, no wrap).
	Pattern string
	// Weight is what each rank sends per iteration (1 unless given),
	// split evenly over its destinations.
	Weight float64
	// Period is the iteration's length in time units (0: not given) and
	// Phases the [start, end) intervals within it when the job communicates.
	Period int
	Phases [][2]int
}

// MaxPeriod bounds a job's period, in its time units.
const MaxPeriod = 100000

var patterns = map[string]string{"ring": "ring", "tree": "tree", "all-to-all": "all-to-all", "alltoall": "all-to-all",
	"neighbours": "neighbours", "neighbors": "neighbours"}

// Read reads a job file: one job per line, as `squeue -h -o "%i %N"`
// prints them, optionally followed by the pattern and key=value options:
//
//	# id   nodes               pattern     options
//	1234   node[001-016,020]   ring        weight=2 period=200 phases=0-40,100-140
//	1235   node[017-019]       all-to-all
//
// Blank lines and # comments are skipped. file names the input in errors.
func Read(r io.Reader, file string) ([]Job, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var jobs []Job
	seen := map[string]int{}
	for n := 1; sc.Scan(); n++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		j, err := parseLine(fields, n)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, n, err)
		}
		if first, dup := seen[j.ID]; dup {
			return nil, fmt.Errorf("%s:%d: job %s again (first on line %d); give each job one line", file, n, j.ID, first)
		}
		seen[j.ID] = n
		jobs = append(jobs, j)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v (a line longer than 1 MiB?)", file, err)
	}
	return jobs, nil
}

// parseLine reads the fields of line n.
func parseLine(fields []string, n int) (Job, error) {
	if len(fields) < 2 {
		return Job{}, fmt.Errorf("%q: want a job ID and its nodes, e.g. 1234 node[001-016]", strings.Join(fields, " "))
	}
	j := Job{ID: fields[0], Line: n, Pattern: "ring", Weight: 1}
	hosts, err := ExpandHostlist(fields[1])
	if err != nil {
		return j, err
	}
	j.Hosts = hosts
	rest := fields[2:]
	if len(rest) > 0 && !strings.Contains(rest[0], "=") {
		p, ok := patterns[rest[0]]
		if !ok {
			return j, fmt.Errorf("pattern %q: want ring, tree, all-to-all or neighbours", rest[0])
		}
		j.Pattern, rest = p, rest[1:]
	}
	for _, opt := range rest {
		if err := j.option(opt); err != nil {
			return j, err
		}
	}
	if len(j.Phases) > 0 && j.Period == 0 {
		return j, fmt.Errorf("phases without a period: add period=N (the iteration's length in the phases' units)")
	}
	return j, j.checkPhases()
}

// option sets one key=value option.
func (j *Job) option(opt string) error {
	key, val, _ := strings.Cut(opt, "=")
	switch key {
	case "weight":
		w, err := strconv.ParseFloat(val, 64)
		if err != nil || !(w > 0) || w > 1e12 {
			return fmt.Errorf("weight=%s: want a positive number", val)
		}
		j.Weight = w
	case "period":
		p, err := strconv.Atoi(val)
		if err != nil || p < 1 || p > MaxPeriod {
			return fmt.Errorf("period=%s: want a whole number of time units, 1..%d", val, MaxPeriod)
		}
		j.Period = p
	case "phases":
		for _, iv := range strings.Split(val, ",") {
			a, b, ok := strings.Cut(iv, "-")
			x, err1 := strconv.Atoi(a)
			y, err2 := strconv.Atoi(b)
			if !ok || err1 != nil || err2 != nil || x < 0 || y <= x || len(j.Phases) >= 64 {
				return fmt.Errorf("phases=%s: want up to 64 intervals start-end within the period, e.g. 0-40,100-140", val)
			}
			j.Phases = append(j.Phases, [2]int{x, y})
		}
	default:
		return fmt.Errorf("option %q: want weight=, period= or phases=", opt)
	}
	return nil
}

// checkPhases: every phase lies within the period.
func (j *Job) checkPhases() error {
	for _, p := range j.Phases {
		if p[1] > j.Period {
			return fmt.Errorf("phase %d-%d ends after the period %d", p[0], p[1], j.Period)
		}
	}
	return nil
}
