// Package netcmd is what the bench commands that read an ibsim net file
// and a seed share (bench/damage, bench/disguise, bench/jobmix): the exit
// on error, the seed argument, and reading and writing net files.
package netcmd

import (
	"fmt"
	"os"
	"strconv"

	"slimroute/fabric"
)

// Main runs run on the command's arguments; an error is printed after the
// command's name, and the command exits with status 2.
func Main(name string, run func(args []string) error) {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(2)
	}
}

// Seed reads a seed argument: a non-negative integer.
func Seed(arg string) (uint64, error) {
	seed, err := strconv.ParseUint(arg, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("seed %q: want a non-negative integer", arg)
	}
	return seed, nil
}

// Read reads the ibsim net file path.
func Read(path string) (*fabric.Fabric, error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return fabric.ReadIBSimNet(in, path)
}

// Write writes f to path as an ibsim net file.
func Write(path string, f *fabric.Fabric) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fabric.WriteIBSimNet(out, f); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
