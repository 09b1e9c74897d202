package jobs

import (
	"math"

	"slimroute/fabric"
	"slimroute/layers"
)

// weightUnit is what the heaviest job's ranks send, in the integer units
// of layers.Flow.
const weightUnit = 1 << 10

// Traffic is the jobs' traffic on fabric f for the routing to be made for
// (layers.Options.Traffic): every flow of every job between the HCAs its
// hosts resolve to, in integer units (a weight of 1 is weightUnit), and
// which jobs can interleave their phases. Weights are scaled so that the
// heaviest job's ranks send weightUnit each (a flow of a job a thousand
// times lighter may round to nothing). file names the job file in
// errors, as Analyze's.
func Traffic(f *fabric.Fabric, js []Job, file string) (*layers.Traffic, error) {
	ports, err := resolve(f, js, file)
	if err != nil {
		return nil, err
	}
	t := &layers.Traffic{Jobs: len(js)}
	heaviest := 0.0
	for _, j := range js {
		heaviest = max(heaviest, j.Weight)
	}
	for i, j := range js {
		for _, fl := range j.Flows() {
			w := int64(math.Round(fl.Weight / heaviest * weightUnit))
			if w > 0 {
				t.Flows = append(t.Flows, layers.Flow{From: ports[i][fl.From], To: ports[i][fl.To], Job: i, Weight: w})
			}
		}
	}
	t.Compatible = func(a, b int) bool {
		ok, known := Compatible(js[a], js[b])
		return ok && known
	}
	return t, nil
}
