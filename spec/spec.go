// Package spec reads fabric specifications from TOML files and builds the
// fabrics they describe. A spec names the topology and its parameters:
//
//	kind = "slimfly"     # "slimfly", "clos", "kary-ntree", "polarfly", "hyperx" or "dragonfly-plus"
//	radix = 36           # switch port count (0 or absent: the minimum that fits)
//
//	[slimfly]
//	q = 5                # prime power 4w+δ
//	endpoints = 4        # HCAs per switch; default ⌈k′/2⌉
//
//	[clos]               # kind = "clos"
//	levels = 2
//	oversubscription = "1:1"
//	hosts_per_leaf = 18
//	leaf_uplinks = 18
//	leaves = 36
//	spines = 18
//	pods = 0             # 3 levels only, like spine_uplinks and cores
//
//	[kary]               # kind = "kary-ntree"
//	k = 4
//	n = 3
//
//	[polarfly]           # kind = "polarfly"
//	q = 7                # prime power
//	endpoints = 4        # HCAs per switch; default ⌈(q+1)/2⌉
//
//	[hyperx]             # kind = "hyperx"
//	dims = [12, 8]       # switches along each dimension
//	trunk = 1            # parallel cables between two switches of a line
//	endpoints = 4        # HCAs per switch; default trunk·min(dims)/2
//
//	[dragonfly-plus]     # kind = "dragonfly-plus"; zeros: a balanced fabric of radix ports
//	groups = 17
//	leaves = 4           # per group
//	spines = 4           # per group
//	global = 4           # global cables per spine
//	endpoints = 4        # HCAs per leaf
//
//	[naming]
//	prefix = "fab1-"     # put in front of every node name
//
//	[racks]
//	units = 42           # rack height; switches are stacked from the top
//
// Unknown keys are errors that name the key.
package spec

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"slimroute/clos"
	"slimroute/dragonflyplus"
	"slimroute/fabric"
	"slimroute/hyperx"
	"slimroute/internal/tomlfile"
	"slimroute/polarfly"
	"slimroute/slimfly"
)

// Spec is a parsed fabric specification.
type Spec struct {
	Kind    string        `toml:"kind"`
	Radix   int           `toml:"radix"`
	SlimFly SlimFlySpec   `toml:"slimfly"`
	Clos    ClosSpec      `toml:"clos"`
	KAry    KAryNTreeSpec `toml:"kary"`
	Polar   PolarFlySpec  `toml:"polarfly"`
	HyperX  HyperXSpec    `toml:"hyperx"`
	DFPlus  DFPlusSpec    `toml:"dragonfly-plus"`
	Naming  Naming        `toml:"naming"`
	Racks   Racks         `toml:"racks"`
}

// SlimFlySpec holds the [slimfly] table.
type SlimFlySpec struct {
	Q         int `toml:"q"`
	Endpoints int `toml:"endpoints"`
}

// ClosSpec holds the [clos] table; see clos.Params.
type ClosSpec struct {
	Levels           int    `toml:"levels"`
	Oversubscription string `toml:"oversubscription"`
	HostsPerLeaf     int    `toml:"hosts_per_leaf"`
	LeafUplinks      int    `toml:"leaf_uplinks"`
	Leaves           int    `toml:"leaves"`
	Spines           int    `toml:"spines"`
	Pods             int    `toml:"pods"`
	SpineUplinks     int    `toml:"spine_uplinks"`
	Cores            int    `toml:"cores"`
}

// KAryNTreeSpec holds the [kary] table.
type KAryNTreeSpec struct {
	K int `toml:"k"`
	N int `toml:"n"`
}

// PolarFlySpec holds the [polarfly] table.
type PolarFlySpec struct {
	Q         int `toml:"q"`
	Endpoints int `toml:"endpoints"`
}

// HyperXSpec holds the [hyperx] table.
type HyperXSpec struct {
	Dims      []int `toml:"dims"`
	Trunk     int   `toml:"trunk"`
	Endpoints int   `toml:"endpoints"`
}

// DFPlusSpec holds the [dragonfly-plus] table.
type DFPlusSpec struct {
	Groups    int `toml:"groups"`
	Leaves    int `toml:"leaves"`
	Spines    int `toml:"spines"`
	Global    int `toml:"global"`
	Endpoints int `toml:"endpoints"`
}

// Naming holds the [naming] table.
type Naming struct {
	Prefix string `toml:"prefix"`
}

// Racks holds the [racks] table.
type Racks struct {
	Units int `toml:"units"`
}

// Parse reads a spec. file names the input in errors.
func Parse(r io.Reader, file string) (Spec, error) {
	var s Spec
	if err := tomlfile.Decode(r, file, &s, "kind, radix, [slimfly] q/endpoints, [clos] levels/oversubscription/hosts_per_leaf/leaf_uplinks/leaves/spines/pods/spine_uplinks/cores, [kary] k/n, [polarfly] q/endpoints, [hyperx] dims/trunk/endpoints, [dragonfly-plus] groups/leaves/spines/global/endpoints, [naming] prefix, [racks] units"); err != nil {
		return s, err
	}
	if err := s.check(); err != nil {
		return s, fmt.Errorf("%s: %w", file, err)
	}
	return s, nil
}

const kinds = `"slimfly", "clos", "kary-ntree", "polarfly", "hyperx" or "dragonfly-plus"`

func (s Spec) check() error {
	switch s.Kind {
	case "slimfly", "clos", "kary-ntree", "polarfly", "hyperx", "dragonfly-plus":
	case "":
		return errors.New("missing key kind: set kind = " + kinds)
	default:
		return fmt.Errorf("kind = %q: want %s", s.Kind, kinds)
	}
	if s.Racks.Units < 0 || s.Racks.Units > fabric.MaxRackUnits {
		return fmt.Errorf("racks.units = %d: want the rack height in units, 1..%d, e.g. 42", s.Racks.Units, fabric.MaxRackUnits)
	}
	if strings.ContainsAny(s.Naming.Prefix, "\"#@\n") {
		return fmt.Errorf("naming.prefix = %q: node names cannot contain \" # @ or newlines", s.Naming.Prefix)
	}
	return nil
}

// Build constructs the fabric a spec describes.
func Build(s Spec) (*fabric.Fabric, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	var f *fabric.Fabric
	var err error
	switch s.Kind {
	case "slimfly":
		f, err = slimfly.Build(slimfly.Params{Q: s.SlimFly.Q, Endpoints: s.SlimFly.Endpoints, Radix: s.Radix})
	case "clos":
		c := s.Clos
		f, err = clos.Build(clos.Params{Levels: c.Levels, Radix: s.Radix, Oversubscription: c.Oversubscription,
			HostsPerLeaf: c.HostsPerLeaf, LeafUplinks: c.LeafUplinks, Leaves: c.Leaves, Spines: c.Spines,
			Pods: c.Pods, SpineUplinks: c.SpineUplinks, Cores: c.Cores})
	case "polarfly":
		f, err = polarfly.Build(polarfly.Params{Q: s.Polar.Q, Endpoints: s.Polar.Endpoints, Radix: s.Radix})
	case "hyperx":
		h := s.HyperX
		f, err = hyperx.Build(hyperx.Params{Dims: h.Dims, Trunk: h.Trunk, Endpoints: h.Endpoints, Radix: s.Radix})
	case "dragonfly-plus":
		d := s.DFPlus
		f, err = dragonflyplus.Build(dragonflyplus.Params{Radix: s.Radix, Groups: d.Groups, Leaves: d.Leaves, Spines: d.Spines, Global: d.Global, Endpoints: d.Endpoints})
	case "kary-ntree":
		f, err = clos.KAryNTree(s.KAry.K, s.KAry.N)
		if err == nil && s.Radix != 0 && s.Radix < 2*s.KAry.K {
			err = fmt.Errorf("radix=%d: a %d-ary n-tree needs %d-port switches", s.Radix, s.KAry.K, 2*s.KAry.K)
		}
	}
	if err != nil {
		return nil, err
	}
	return finish(f, s.Naming, s.Racks)
}

// finish applies naming and rack-unit placement to a built fabric.
func finish(f *fabric.Fabric, n Naming, r Racks) (*fabric.Fabric, error) {
	if n.Prefix == "" && r.Units == 0 {
		return f, nil
	}
	nodes := append([]fabric.Node(nil), f.Nodes()...)
	used := map[int]int{}
	for i := range nodes {
		nodes[i].Name = n.Prefix + nodes[i].Name
		if r.Units > 0 && nodes[i].Kind == fabric.Switch && nodes[i].Place.Rack > 0 {
			rack := nodes[i].Place.Rack
			if used[rack] >= r.Units {
				return nil, fmt.Errorf("racks.units = %d: rack %d needs more switch positions than that; raise racks.units", r.Units, rack)
			}
			nodes[i].Place.U = r.Units - used[rack]
			used[rack]++
		}
	}
	return fabric.New(nodes, f.Links())
}
