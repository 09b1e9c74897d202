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
	"os"
	"strconv"

	"slimroute/fabric"
	"slimroute/internal/failures"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "damage:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) != 3 && len(args) != 4 {
		return fmt.Errorf("usage: damage SEED IN.net OUT.net [PERMILLE]")
	}
	seed, err := strconv.ParseUint(args[0], 10, 64)
	if err != nil {
		return fmt.Errorf("seed %q: want a non-negative integer", args[0])
	}
	permille := 5
	if len(args) == 4 {
		if permille, err = strconv.Atoi(args[3]); err != nil || permille < 0 || permille > 1000 {
			return fmt.Errorf("permille %q: want 0..1000", args[3])
		}
	}
	in, err := os.Open(args[1])
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := fabric.ReadIBSimNet(in, args[1])
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
	out, err := os.Create(args[2])
	if err != nil {
		return err
	}
	if err := fabric.WriteIBSimNet(out, g); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
