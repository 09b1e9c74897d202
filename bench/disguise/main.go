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
	"os"
	"strconv"

	"slimroute/fabric"
	"slimroute/internal/disguise"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "disguise:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("usage: disguise SEED IN.net OUT.net")
	}
	seed, err := strconv.ParseUint(args[0], 10, 64)
	if err != nil {
		return fmt.Errorf("seed %q: want a non-negative integer", args[0])
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
	d, err := disguise.Fabric(f, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		return err
	}
	out, err := os.Create(args[2])
	if err != nil {
		return err
	}
	if err := fabric.WriteIBSimNet(out, d); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
