package jobs

// Flow is traffic from one rank of a job to another, per iteration.
type Flow struct {
	From, To int
	Weight   float64
}

// Flows lists what the job's ranks send each other: each rank sends
// Weight per iteration, split evenly over its destinations in the
// pattern.
func (j Job) Flows() []Flow {
	n := len(j.Hosts)
	if n < 2 {
		return nil
	}
	var out []Flow
	switch j.Pattern {
	case "ring":
		for i := 0; i < n; i++ {
			out = append(out, Flow{i, (i + 1) % n, j.Weight})
		}
	case "all-to-all":
		w := j.Weight / float64(n-1)
		for i := 0; i < n; i++ {
			for k := 0; k < n; k++ {
				if k != i {
					out = append(out, Flow{i, k, w})
				}
			}
		}
	case "tree", "neighbours":
		edges := j.edges()
		deg := make([]int, n)
		for _, e := range edges {
			deg[e[0]]++
			deg[e[1]]++
		}
		for _, e := range edges {
			out = append(out, Flow{e[0], e[1], j.Weight / float64(deg[e[0]])}, Flow{e[1], e[0], j.Weight / float64(deg[e[1]])})
		}
	}
	return out
}

// edges lists a tree's or a neighbour chain's edges over the ranks.
func (j Job) edges() [][2]int {
	var e [][2]int
	for i := 1; i < len(j.Hosts); i++ {
		parent := i - 1
		if j.Pattern == "tree" {
			parent = (i - 1) / 2
		}
		e = append(e, [2]int{parent, i})
	}
	return e
}
