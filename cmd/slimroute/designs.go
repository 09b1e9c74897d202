package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"slimroute/dragonflyplus"
	"slimroute/hyperx"
	"slimroute/polarfly"
)

// The topo subcommands of the other low-diameter designs: PolarFly,
// HyperX and Dragonfly+.

func polarflyCommand() *cli.Command {
	return &cli.Command{
		Name:  "polarfly",
		Usage: "build a PolarFly (Erdős–Rényi polarity graph ER_q) for a prime power q",
		Description: `Builds q²+q+1 switches of network degree q+1 (q for the q+1 quadric switches) and
diameter 2, with p HCAs each. Switch names are pf-sw-x-y-z (the switch's projective
point), HCA names pf-hca-x-y-z-i; the racks are the design's q clusters.

Examples:
   slimroute topo polarfly --q 7 -o pf7.net
   slimroute topo polarfly --q 31 --endpoints 16 --format ibnetdiscover`,
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "q", Value: 7, Usage: "prime power: 2, 3, 4, 5, 7, 8, 9, 11, 13, 16, …"},
			&cli.IntFlag{Name: "endpoints", Aliases: []string{"p"}, Usage: "HCAs per switch (default: ⌈(q+1)/2⌉)"},
			&cli.IntFlag{Name: "radix", Usage: "switch port count, refused if q+1+p ports do not fit (default: q+1+p)"},
		}, outputFlags()...),
		Action: func(c *cli.Context) error {
			f, err := polarfly.Build(polarfly.Params{Q: c.Int("q"), Endpoints: c.Int("endpoints"), Radix: c.Int("radix")})
			if err != nil {
				return err
			}
			return emit(c, f)
		},
	}
}

func hyperxCommand() *cli.Command {
	return &cli.Command{
		Name:  "hyperx",
		Usage: "build a HyperX (Hamming graph): switches on a grid, each line a complete graph",
		Description: `Builds a switch for every point of the grid --dims, joined to every switch that differs in
one coordinate by --trunk cables. Switch names are hx-sw-a-b…, HCA names hx-hca-a-b…-i;
a rack holds a line of the first dimension.

Examples:
   slimroute topo hyperx --dims 12x8 --endpoints 7     # the SC'19 HyperX, 672 HCAs
   slimroute topo hyperx --dims 4x4x4 --trunk 2`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "dims", Value: "4x4", Usage: "switches along each dimension, e.g. 12x8 or 4x4x4"},
			&cli.IntFlag{Name: "trunk", Value: 1, Usage: "parallel cables between two switches of a line"},
			&cli.IntFlag{Name: "endpoints", Aliases: []string{"p"}, Usage: "HCAs per switch (default: trunk·min(dims)/2, at least 1)"},
			&cli.IntFlag{Name: "radix", Usage: "switch port count (default: the ports used)"},
		}, outputFlags()...),
		Action: func(c *cli.Context) error {
			dims, err := parseDims(c.String("dims"))
			if err != nil {
				return err
			}
			f, err := hyperx.Build(hyperx.Params{Dims: dims, Trunk: c.Int("trunk"), Endpoints: c.Int("endpoints"), Radix: c.Int("radix")})
			if err != nil {
				return err
			}
			return emit(c, f)
		},
	}
}

// parseDims reads "12x8" (or "12,8") as [12, 8].
func parseDims(s string) ([]int, error) {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == 'x' || r == ',' })
	if len(fields) == 0 || len(fields) > 6 || strings.Count(strings.ToLower(s), "x")+strings.Count(s, ",") != len(fields)-1 {
		return nil, fmt.Errorf("--dims %q: want 1 to 6 sizes joined by x, e.g. 12x8", s)
	}
	dims := make([]int, len(fields))
	for i, f := range fields {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("--dims %q: %q is not a number of switches; want sizes joined by x, e.g. 12x8", s, f)
		}
		dims[i] = n
	}
	return dims, nil
}

func dragonflyPlusCommand() *cli.Command {
	return &cli.Command{
		Name:  "dragonfly-plus",
		Usage: "build a Dragonfly+: leaf–spine groups whose spines are joined by global cables",
		Description: `Zero values take the defaults of a balanced fabric of --radix ports: half of a leaf's
ports to HCAs and half to the spines of its group, half of a spine's to the leaves and
half global, and Spines·Global+1 groups, every pair joined once. Names are
dfp-leaf-G-J, dfp-spine-G-J and dfp-hca-G-J-I; a group stands in a rack of its own.

Examples:
   slimroute topo dragonfly-plus --radix 16                 # 65 groups, 4160 HCAs
   slimroute topo dragonfly-plus --radix 8 --groups 9       # every pair of groups joined twice`,
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "radix", Value: 8, Usage: "switch port count"},
			&cli.IntFlag{Name: "groups", Usage: "groups; groups−1 must divide spines·global (default: spines·global+1)"},
			&cli.IntFlag{Name: "leaves", Usage: "leaves per group (default: radix/2)"},
			&cli.IntFlag{Name: "spines", Usage: "spines per group (default: radix/2)"},
			&cli.IntFlag{Name: "global", Usage: "global cables per spine (default: radix − leaves)"},
			&cli.IntFlag{Name: "endpoints", Aliases: []string{"p"}, Usage: "HCAs per leaf (default: radix − spines)"},
		}, outputFlags()...),
		Action: func(c *cli.Context) error {
			f, err := dragonflyplus.Build(dragonflyplus.Params{Radix: c.Int("radix"), Groups: c.Int("groups"), Leaves: c.Int("leaves"),
				Spines: c.Int("spines"), Global: c.Int("global"), Endpoints: c.Int("endpoints")})
			if err != nil {
				return err
			}
			return emit(c, f)
		},
	}
}
