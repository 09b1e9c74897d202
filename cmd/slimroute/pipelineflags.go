package main

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/urfave/cli/v2"

	"slimroute/layers"
	"slimroute/lft"
	"slimroute/pipeline"
)

// vlFlags are the deadlock flags of the commands that program tables.
func vlFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "deadlock", Value: "auto", Usage: "VL scheme: auto (hops on diameter-2 designs, dragonfly+ on a Dragonfly+, else dfsssp, each falling back to the other; the OpenSM plugin's default too), hops (hop-indexed: 3 VLs, a 4th for the four-hop routes of a damaged fabric; on a Dragonfly+ the VL counts the global cables crossed: 3 VLs), dfsssp, or none (only if the verifier finds no cycle)"},
		&cli.IntFlag{Name: "vls", Value: 8, Usage: "data VLs the switches offer (their VLCap), 1..15"},
	}
}

// pipelineFlags are the settings of a routing run, shared by every command
// that runs the pipeline (route, export), so each can reproduce any other.
func pipelineFlags() []cli.Flag {
	return append(append(layerFlags(), vlFlags()...),
		&cli.BoolFlag{Name: "best-effort", Usage: "dfsssp: when VLs run out, leave the remaining routes unprotected and list them instead of failing"},
		&cli.IntFlag{Name: "lmc", DefaultText: "log2 of --layers", Usage: "LMC of the HCA ports, 0..7: 2^LMC LIDs each, at least one per layer"},
		&cli.IntFlag{Name: "lft-cap", Usage: "LFT capacity (LinearFDBCap) of the smallest switch, up to 49152 (default: the full unicast LID space)"},
		&cli.BoolFlag{Name: "lids-from-fabric", Usage: "use the LIDs recorded in --fabric (ibnetdiscover after an SM ran) instead of assigning"},
	)
}

// pipelineConfig reads pipelineFlags; the stages run on every core. An LMC
// that gives an HCA port fewer LIDs than there are layers would leave
// layers unreachable: it is refused here, by flag name.
func pipelineConfig(c *cli.Context) (pipeline.Config, error) {
	o := layerOptions(c)
	regrow := !o.NoRegrow
	cfg := pipeline.Config{Layers: o.Layers, MinLen: o.MinLen, MaxLen: o.MaxLen, Seed: o.Seed, Trees: o.Trees, Regrow: &regrow,
		Deadlock: c.String("deadlock"), VLs: c.Int("vls"), LMC: -1,
		BestEffort: c.Bool("best-effort"), LFTCap: c.Int("lft-cap"), LIDsFromFabric: c.Bool("lids-from-fabric"),
		Workers: runtime.GOMAXPROCS(0)}
	if c.IsSet("lmc") {
		cfg.LMC = c.Int("lmc")
	}
	if cfg.LIDsFromFabric && c.String("fabric") == "" {
		return cfg, errors.New("--lids-from-fabric takes the LIDs an SM assigned from the file --fabric names (ibnetdiscover output after the SM ran): give --fabric FILE, or leave out --lids-from-fabric to let slimroute assign LIDs")
	}
	return cfg, checkLMC(cfg)
}

// checkLMC refuses an LMC that gives an HCA port fewer LIDs than there
// are layers.
func checkLMC(cfg pipeline.Config) error {
	if cfg.LMC >= 0 && 1<<cfg.LMC < cfg.Layers {
		return fmt.Errorf("--lmc %d gives each HCA port %d LIDs, but --layers %d needs one per layer: use --lmc %d or more, or --layers %d or fewer",
			cfg.LMC, 1<<cfg.LMC, cfg.Layers, layers.LMC(cfg.Layers), 1<<cfg.LMC)
	}
	return nil
}

// fabricLIDs puts the fabric file in front of a problem with the LIDs it
// records (--lids-from-fabric).
func fabricLIDs(c *cli.Context, err error) error {
	var fe *lft.FabricLIDsError
	if errors.As(err, &fe) {
		return fmt.Errorf("--fabric %s (--lids-from-fabric): %w", c.String("fabric"), err)
	}
	return err
}
