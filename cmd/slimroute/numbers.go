package main

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/urfave/cli/v2"

	"slimroute/fabric"
	"slimroute/jobs"
	"slimroute/layers"
	"slimroute/lft"
	"slimroute/polarfly"
	"slimroute/slimfly"
)

// numRange is what a number flag accepts: min..max, and with pow2 only
// powers of two (and 0 where min is 0).
type numRange struct {
	min, max float64
	pow2     bool
	want     string // the accepted values, in the words of the error message
}

var (
	// the largest q whose Slim Fly fits one InfiniBand subnet, with one
	// endpoint per switch (the builder says which q fit other endpoints)
	qRange    = numRange{3, float64(slimfly.MaxQ()), false, fmt.Sprintf("a prime power q = 4w+δ (δ in {-1,0,1}) from 3 to %d (larger Slim Flies need more LIDs than one subnet has): 3, 4, 5, 7, 8, 9, 11, 13, …", slimfly.MaxQ())}
	hopsRange = numRange{0, layers.MaxSearchLen, false, fmt.Sprintf("0 (automatic) or 1..%d switch hops", layers.MaxSearchLen)}
	metres    = numRange{0.01, 1000, false, "a distance in metres, 0.01..1000"}
	closCount = numRange{0, fabric.MaxPorts, false, fmt.Sprintf("0 (the non-blocking default) or 1..%d", fabric.MaxPorts)}
)

// numberRanges holds the range of every int and float flag, by flag name
// or, where a name means something else in one command, by "command
// path/name". Uint64 flags (seeds) accept every value they parse.
var numberRanges = map[string]numRange{
	"slimfly":         qRange,
	"q":               qRange,
	"endpoints":       {0, fabric.MaxPorts - 1, false, fmt.Sprintf("0 (⌈k′/2⌉, half the network degree) or 1..%d HCAs per switch", fabric.MaxPorts-1)},
	"radix":           {0, fabric.MaxPorts, false, fmt.Sprintf("0 (network degree + endpoints) or a port count up to %d", fabric.MaxPorts)},
	"topo clos/radix": {2, fabric.MaxPorts, false, fmt.Sprintf("a switch port count, 2..%d", fabric.MaxPorts)},
	"layers":          {1, 128, true, "a power of two from 1 to 128 (one layer per LID offset: LMC 0..7)"},
	"lft-layers":      {0, 128, true, "0 (from the LIDs per port) or a power of two from 1 to 128"},
	"min-len":         hopsRange,
	"max-len":         hopsRange,
	"trees":           {-1, fabric.MaxPorts, false, fmt.Sprintf("-1 (one tree per endpoint), 0 (by fabric size) or 1..%d trees per destination switch", fabric.MaxPorts)},
	"vls":             {1, 15, false, "1..15 data VLs (VL0..VL14; switches commonly offer 2, 4 or 8)"},
	"lmc":             {0, 7, false, "an LMC of 0..7 (2^LMC LIDs per HCA port)"},
	"lft-cap":         {0, float64(lft.MaxUnicastLID + 1), false, fmt.Sprintf("0 (the full unicast LID space) or the switches' LinearFDBCap, up to %d", lft.MaxUnicastLID+1)},
	"permutations":    {1, 1e6, false, "1..1000000 random permutations"},
	"sa":              {0, 1e6, false, "0 (ask the SA nothing) or 1..1000000 path records"},
	"to-port":         {1, fabric.MaxPorts, false, fmt.Sprintf("a port number, 1..%d", fabric.MaxPorts)},
	"rack-pitch":      metres,
	"row-pitch":       metres,
	"copper-max":      metres,
	"racks-per-row":   {0, 100000, false, "0 (one row) or 1..100000 racks per row"},
	"rack-units":      {1, fabric.MaxRackUnits, false, "a rack height of 1..100 units"},
	"levels":          {2, 3, false, "2 (leaf/spine) or 3 (leaf/spine/core)"},
	"hosts-per-leaf":  closCount,
	"leaf-uplinks":    closCount,
	"leaves":          closCount,
	"spines":          closCount,
	"pods":            closCount,
	"spine-uplinks":   closCount,
	"cores":           {0, fabric.MaxPorts * fabric.MaxPorts, false, fmt.Sprintf("0 (the default) or 1..%d", fabric.MaxPorts*fabric.MaxPorts)},
	"k":               {1, fabric.MaxPorts / 2, false, fmt.Sprintf("1..%d (switches of 2k ports)", fabric.MaxPorts/2)},
	"n":               {1, 8, false, "1..8 levels"},
	"nodes":           {1, jobs.MaxHosts, false, fmt.Sprintf("1..%d nodes for the new job", jobs.MaxHosts)},
	// the other low-diameter designs
	"topo polarfly/q":               {2, float64(polarfly.MaxQ()), false, fmt.Sprintf("a prime power q from 2 to %d (larger PolarFlies need more LIDs than one subnet has): 2, 3, 4, 5, 7, 8, 9, 11, 13, …", polarfly.MaxQ())},
	"topo polarfly/endpoints":       {0, fabric.MaxPorts - 1, false, fmt.Sprintf("0 (⌈(q+1)/2⌉) or 1..%d HCAs per switch", fabric.MaxPorts-1)},
	"topo hyperx/trunk":             {1, fabric.MaxPorts, false, fmt.Sprintf("1..%d parallel cables", fabric.MaxPorts)},
	"topo hyperx/endpoints":         {0, fabric.MaxPorts - 1, false, fmt.Sprintf("0 (trunk·min(dims)/2) or 1..%d HCAs per switch", fabric.MaxPorts-1)},
	"topo dragonfly-plus/radix":     {0, fabric.MaxPorts, false, fmt.Sprintf("0 (with --leaves, --spines, --global and --endpoints given) or a port count up to %d", fabric.MaxPorts)},
	"topo dragonfly-plus/groups":    {0, fabric.MaxLIDs, false, fmt.Sprintf("0 (spines·global+1) or 2..%d groups", fabric.MaxLIDs)},
	"topo dragonfly-plus/leaves":    dfpCount,
	"topo dragonfly-plus/spines":    dfpCount,
	"topo dragonfly-plus/global":    dfpCount,
	"topo dragonfly-plus/endpoints": dfpCount,
}

var dfpCount = numRange{0, fabric.MaxPorts - 1, false, fmt.Sprintf("0 (from --radix) or 1..%d", fabric.MaxPorts-1)}

// rangeOf returns the range of number flag f of the command at path.
func rangeOf(path []string, f cli.Flag) (numRange, bool) {
	if f == nil {
		return numRange{}, false
	}
	name := f.Names()[0]
	if r, ok := numberRanges[strings.Join(path, " ")+"/"+name]; ok {
		return r, true
	}
	r, ok := numberRanges[name]
	return r, ok
}

// check returns why v is outside r, or "".
func (r numRange) check(v float64) string {
	switch {
	case math.IsNaN(v) || v < r.min || v > r.max:
		return "out of range"
	case r.pow2 && v != 0 && bits.OnesCount64(uint64(v)) != 1:
		return "not a power of two"
	}
	return ""
}

// checkNumbers checks every number flag set on the command line against
// its range.
func checkNumbers(path []string, cmd *cli.Command, c *cli.Context) error {
	for _, f := range cmd.Flags {
		name := f.Names()[0]
		if !c.IsSet(name) {
			continue
		}
		var v float64
		var text string
		switch f.(type) {
		case *cli.IntFlag:
			v, text = float64(c.Int(name)), fmt.Sprint(c.Int(name))
		case *cli.Float64Flag:
			v, text = c.Float64(name), fmt.Sprint(c.Float64(name))
		default:
			continue
		}
		r, ok := rangeOf(path, f)
		if !ok {
			return fmt.Errorf("internal: --%s has no range", name)
		}
		if why := r.check(v); why != "" {
			return fmt.Errorf("slimroute %s: --%s %s: %s; want %s", strings.Join(path, " "), name, text, why, r.want)
		}
	}
	return nil
}

// defaultFlagString is urfave/cli's flag line for help pages.
var defaultFlagString = cli.FlagStringer

func init() { cli.FlagStringer = flagString }

// flagString drops "(default: 0)" from number flags whose zero is not a
// value but "not given": their usage says what happens then.
func flagString(f cli.Flag) string {
	s := defaultFlagString(f)
	zero := false
	switch f := f.(type) {
	case *cli.IntFlag:
		zero = f.Value == 0 && f.DefaultText == ""
	case *cli.Float64Flag:
		zero = f.Value == 0 && f.DefaultText == ""
	}
	if zero {
		s = strings.TrimSuffix(s, " (default: 0)")
	}
	return s
}
