package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"slimroute/fabric"
	"slimroute/internal/atomicfile"
	"slimroute/slimfly"
)

// demoCommand runs the main job on the built-in default: the NSDI'24
// deployment's Slim Fly (q=5: 50 switches, 200 endpoints, 5 racks).
func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "build the paper's q=5 Slim Fly, print its stats and write it in every format",
		Description: `Writes <dir>/sf<q>.{net,ibnetdiscover,json,dot,node-name-map} and stats.json.

Example:
   slimroute demo -o out/ && ibsim -n -s out/sf5.net`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "q", Value: 5, Usage: "Slim Fly prime power"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "out", Usage: "output `DIR`"},
		},
		Action: func(c *cli.Context) error {
			q := c.Int("q")
			f, err := slimfly.Build(slimfly.Params{Q: q})
			if err != nil {
				return err
			}
			dir := c.String("output")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			st := fabric.ComputeStats(f)
			fmt.Fprintf(c.App.Writer, "Slim Fly q=%d\n", q)
			if err := printStats(c.App.Writer, st); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "\nfiles:\n")
			for _, format := range fabric.WriteFormats {
				path := filepath.Join(dir, fmt.Sprintf("sf%d%s", q, format.Extension()))
				if err := atomicfile.Write(path, 0o644, func(w io.Writer) error { return fabric.Write(w, f, format) }); err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "  %-16s %s\n", format, path)
			}
			path := filepath.Join(dir, "stats.json")
			err = atomicfile.Write(path, 0o644, func(w io.Writer) error {
				b, _ := json.MarshalIndent(st, "", "  ")
				_, err := fmt.Fprintf(w, "%s\n", b)
				return err
			})
			if err == nil {
				fmt.Fprintf(c.App.Writer, "  %-16s %s\n", "stats", path)
				fmt.Fprintf(c.App.Writer, "\nsimulate it: ibsim -n -s %s\n", filepath.Join(dir, fmt.Sprintf("sf%d.net", q)))
			}
			return err
		},
	}
}
