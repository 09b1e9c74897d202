// Command damage writes a fabric as one in service often is: a few
// switch-to-switch cables out (the switches stay connected) and a few
// hosts down, drawn from a seed — by default half a percent of each, at
// least one. bench/compare uses it for its "damaged:Q" fabrics.
//
// usage: go run ./bench/damage SEED IN.net OUT.net [PERMILLE]
package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"slimroute/bench/internal/netcmd"
	"slimroute/fabric"
	"slimroute/internal/failures"
)

func main() { netcmd.Main("damage", run) }

func run(args []string) error {
	if len(args) != 3 && len(args) != 4 {
		return fmt.Errorf("usage: damage SEED IN.net OUT.net [PERMILLE]")
	}
	seed, err := netcmd.Seed(args[0])
	if err != nil {
		return err
	}
	permille := 5
	if len(args) == 4 {
		if permille, err = strconv.Atoi(args[3]); err != nil || permille < 0 || permille > 1000 {
			return fmt.Errorf("permille %q: want 0..1000", args[3])
		}
	}
	f, err := netcmd.Read(args[1])
	if err != nil {
		return err
	}
	share := func(n int) int { return max(1, n*permille/1000) }
	g, err := failures.Draw(f, share(len(failures.InterSwitch(f))), 0, seed)
	if err != nil {
		return err
	}
	hcas := g.IDsOf(fabric.HCA)
	var down []fabric.NodeID
	for _, i := range rand.New(rand.NewPCG(seed, 0xd0)).Perm(len(hcas))[:share(len(hcas))] {
		down = append(down, hcas[i])
	}
	if g, err = g.Without(down, nil); err != nil {
		return err
	}
	return netcmd.Write(args[2], g)
}
