package main

import (
	"runtime"

	"github.com/urfave/cli/v2"

	"slimroute/pipeline"
)

// pipelineFlags are the settings of a routing run, shared by every command
// that runs the pipeline (route, export), so each can reproduce any other.
func pipelineFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "layers", Aliases: []string{"L"}, Value: 4, Usage: "layers (LID offsets), a power of two"},
		&cli.IntFlag{Name: "min-len", Usage: "least switch hops of paths in layers ≥ 1"},
		&cli.IntFlag{Name: "max-len", Usage: "most switch hops of paths in layers ≥ 1"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "tie-breaking seed"},
		treesFlag(),
		&cli.StringFlag{Name: "deadlock", Value: "hops", Usage: "VL scheme: hops (≤ 3-hop routes, 3 VLs), dfsssp, auto (hops where it applies, else dfsssp), or none (only if the verifier finds no cycle)"},
		&cli.IntFlag{Name: "vls", Value: 8, Usage: "data VLs the switches offer"},
		&cli.BoolFlag{Name: "best-effort", Usage: "dfsssp: when VLs run out, leave the remaining routes unprotected and list them instead of failing"},
		&cli.IntFlag{Name: "lmc", Value: -1, Usage: "LMC of the HCA ports (default log2(layers))"},
		&cli.IntFlag{Name: "lft-cap", Usage: "LFT capacity (LinearFDBCap) of the smallest switch; 0: the full unicast LID space"},
		&cli.BoolFlag{Name: "lids-from-fabric", Usage: "use the LIDs recorded in --fabric (ibnetdiscover after an SM ran) instead of assigning"},
	}
}

// pipelineConfig reads pipelineFlags; the stages run on every core.
func pipelineConfig(c *cli.Context) pipeline.Config {
	return pipeline.Config{
		Layers: c.Int("layers"), MinLen: c.Int("min-len"), MaxLen: c.Int("max-len"), Seed: c.Uint64("seed"), Trees: c.Int("trees"),
		Deadlock: c.String("deadlock"), VLs: c.Int("vls"), BestEffort: c.Bool("best-effort"),
		LMC: c.Int("lmc"), LFTCap: c.Int("lft-cap"), LIDsFromFabric: c.Bool("lids-from-fabric"),
		Workers: runtime.GOMAXPROCS(0),
	}
}
