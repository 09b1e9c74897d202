// Command disguise writes a fabric as a discovered one looks: the same
// cabling with its nodes in another order, other GUIDs, factory-style
// names ("MF0;switch-N:MQM8700/U1", "nodeNNN mlx5_0") and every switch's
// ports permuted (internal/disguise). bench/compare uses it for its
// "disguised:Q" fabrics.
//
// usage: go run ./bench/disguise SEED IN.net OUT.net
package main

import (
	"fmt"
	"math/rand/v2"

	"slimroute/bench/internal/netcmd"
	"slimroute/internal/disguise"
)

func main() { netcmd.Main("disguise", run) }

func run(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("usage: disguise SEED IN.net OUT.net")
	}
	seed, err := netcmd.Seed(args[0])
	if err != nil {
		return err
	}
	f, err := netcmd.Read(args[1])
	if err != nil {
		return err
	}
	d, err := disguise.Fabric(f, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		return err
	}
	return netcmd.Write(args[2], d)
}
