package pipeline_test

import (
	"fmt"

	"slimroute/pipeline"
	"slimroute/slimfly"
)

// Route the Slim Fly of the NSDI'24 deployment (q=5: 50 switches, 200
// HCAs) in 4 layers with hop-indexed VLs, as `slimroute route` and the
// OpenSM plugin do.
func ExampleRun() {
	f, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		panic(err)
	}
	res, err := pipeline.Run(f, pipeline.Config{Layers: 4, Deadlock: "hops", Seed: 1, LMC: -1, Workers: 2})
	if err != nil {
		panic(err)
	}
	lids := res.Tables.LIDs()
	fmt.Printf("%d switches, LMC %d: every HCA port holds %d LIDs, one per layer\n", len(res.Tables.Switches()), lids.LMC(), 1<<lids.LMC())
	fmt.Printf("deadlock scheme %s: %d VLs (hop index)\n", res.Assignment.Scheme, res.Assignment.VLs)
	fmt.Printf("verified: acyclic %v, %d sources, %d destination LIDs\n", res.Verify.Acyclic(), res.Verify.Sources, res.Verify.DLIDs)
	// Output:
	// 50 switches, LMC 2: every HCA port holds 4 LIDs, one per layer
	// deadlock scheme hops: 3 VLs (hop index)
	// verified: acyclic true, 200 sources, 850 destination LIDs
}
