package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"slimroute/fabric"
	"slimroute/layers"
)

func pathCommand() *cli.Command {
	return &cli.Command{
		Name:  "path",
		Usage: "show the route of one source and destination in every layer",
		Description: `Routes the fabric as slimroute route does and prints, per layer (LID offset),
the switches a packet from --from to --to passes, with the egress ports.

Example:
   slimroute path --slimfly 5 --from hca-0-0-0-1 --to hca-1-4-2-3`,
		Flags: append(append(sourceFlags(), layerFlags()...),
			&cli.StringFlag{Name: "from", Required: true, Usage: "source HCA (or switch) name"},
			&cli.StringFlag{Name: "to", Required: true, Usage: "destination HCA (or switch) name"},
			&cli.IntFlag{Name: "to-port", Value: 1, Usage: "port of the destination HCA"},
		),
		Action: func(c *cli.Context) error {
			f, err := loadRoutingFabric(c)
			if err != nil {
				return err
			}
			r, err := layers.Compute(f, layerOptions(c))
			if err != nil {
				return err
			}
			src, err := switchOf(f, r, c.String("from"))
			if err != nil {
				return err
			}
			to, ok := f.NodeByName(c.String("to"))
			if !ok {
				return fmt.Errorf("--to %q: no such node", c.String("to"))
			}
			want := fabric.PortRef{Node: to, Port: c.Int("to-port")}
			if f.Node(to).Kind == fabric.Switch {
				want.Port = 0
			}
			dest := -1
			for d, x := range r.Dests() {
				if x.Port == want {
					dest = d
				}
			}
			if dest < 0 {
				return fmt.Errorf("%s is not a destination (no cable on that port?)", f.PortString(want))
			}
			layersShown := r.NumLayers()
			if dest >= r.NumEndpoints() {
				layersShown = 1 // a switch LID has no layers
			}
			for k := 0; k < layersShown; k++ {
				path, err := r.Path(k, src, dest)
				if err != nil {
					return err
				}
				hops := make([]string, len(path))
				for i, s := range path {
					hops[i] = fmt.Sprintf("%s[%d]", f.Node(r.SwitchID(s)).Name, r.NextPort(k, s, dest))
				}
				fmt.Fprintf(c.App.Writer, "layer %d (%d hops): %s -> %s\n", k, len(path)-1, strings.Join(hops, " -> "), r.DestName(dest))
			}
			return nil
		},
	}
}

// switchOf returns the switch index a named node sends from.
func switchOf(f *fabric.Fabric, r *layers.Routing, name string) (int, error) {
	id, ok := f.NodeByName(name)
	if !ok {
		return 0, fmt.Errorf("--from %q: no such node", name)
	}
	if s := r.SwitchIndex(id); s >= 0 {
		return s, nil
	}
	for p := 1; p <= f.Node(id).Ports; p++ {
		if peer, ok := f.Peer(fabric.PortRef{Node: id, Port: p}); ok {
			if s := r.SwitchIndex(peer.Node); s >= 0 {
				return s, nil
			}
		}
	}
	return 0, fmt.Errorf("--from %q is not cabled to a switch", name)
}

// layerFlags are the routing flags of the commands that route (see
// layerOptions).
func layerFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "layers", Aliases: []string{"L"}, Value: 4, Usage: "layers: routes per (source, destination), one per LID offset of the destination; a power of two, 1..128"},
		&cli.IntFlag{Name: "min-len", Usage: "least switch-to-switch hops of the paths in layers ≥ 1, 1..6; set with --max-len (default: 2 on fabrics of diameter 2, else each pair's minimal distance)"},
		&cli.IntFlag{Name: "max-len", Usage: "most switch-to-switch hops of the paths in layers ≥ 1, 1..6; set with --min-len (default: 3 on fabrics of diameter 2, else minimal+1)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the tie-breaking shuffles (and of analyze's permutation sampling): the same seed gives the same routes"},
		&cli.BoolFlag{Name: "regrow", Value: true, Usage: "grow each destination tree of layers ≥ 1 under its own entry colouring, unload the busiest channels and take overlaps off the routes, for three disjoint paths per pair (Slim Fly q = 7 and 11: nearly all pairs, for a slower routing: docs/performance.md); --regrow=false: the construction before it (docs/quality.md)"},
		&cli.IntFlag{Name: "trees", Usage: "trees per destination switch in layers ≥ 1, shared round-robin by its endpoints (fewer: faster, less spread); -1: one per endpoint (default: by fabric size, one per endpoint while endpoints × switches ≤ 2^19)"},
	}
}

// layerOptions reads the routing flags (layers, min-len, max-len, seed,
// trees, regrow) of a command that routes.
func layerOptions(c *cli.Context) layers.Options {
	return layers.Options{Layers: c.Int("layers"), MinLen: c.Int("min-len"), MaxLen: c.Int("max-len"), Seed: c.Uint64("seed"), Trees: c.Int("trees"), NoRegrow: !c.Bool("regrow")}
}
