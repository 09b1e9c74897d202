package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

// TestRouteSizeEstimateIsClose: the size route announces before writing is
// within 10% of what it writes, on Slim Flies and Clos fabrics of several
// sizes and layer counts.
func TestRouteSizeEstimateIsClose(t *testing.T) {
	sf := func(q int) func() (*fabric.Fabric, error) {
		return func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: q}) }
	}
	cl := func(p clos.Params) func() (*fabric.Fabric, error) {
		return func() (*fabric.Fabric, error) { return clos.Build(p) }
	}
	for _, c := range []struct {
		name   string
		build  func() (*fabric.Fabric, error)
		layers int
	}{
		{"sf5", sf(5), 4}, {"sf5", sf(5), 1}, {"sf7", sf(7), 2}, {"sf8", sf(8), 4},
		{"clos2", cl(clos.Params{Radix: 12}), 4}, {"clos3", cl(clos.Params{Levels: 3, Radix: 8}), 2},
	} {
		f, err := c.build()
		if err != nil {
			t.Fatal(err)
		}
		cfg := pipeline.Config{Layers: c.layers, Deadlock: "auto", LMC: -1, Seed: 1}
		res, err := pipeline.Run(f, cfg)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		_, files, err := routeFiles(f, cfg, res, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeOutputs(dir, "-o", files); err != nil {
			t.Fatal(err)
		}
		var written int64
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			fi, _ := os.Stat(filepath.Join(dir, e.Name()))
			written += fi.Size()
		}
		est := estimateRouteBytes(res.Tables)
		name := fmt.Sprintf("%s, %d layers", c.name, c.layers)
		if est < written*9/10 || est > written*11/10 {
			t.Errorf("%s: estimated %d bytes, wrote %d", name, est, written)
		}
	}
}
