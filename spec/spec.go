// Package spec reads fabric specifications from TOML files and builds the
// fabrics they describe. A spec names the topology and its parameters:
//
//	kind = "slimfly"     # "slimfly", "clos" or "kary-ntree"
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
	"slimroute/fabric"
	"slimroute/internal/tomlfile"
	"slimroute/slimfly"
)

// Spec is a parsed fabric specification.
type Spec struct {
	Kind    string        `toml:"kind"`
	Radix   int           `toml:"radix"`
	SlimFly SlimFlySpec   `toml:"slimfly"`
	Clos    ClosSpec      `toml:"clos"`
	KAry    KAryNTreeSpec `toml:"kary"`
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
	if err := tomlfile.Decode(r, file, &s, "kind, radix, [slimfly] q/endpoints, [clos] levels/oversubscription/hosts_per_leaf/leaf_uplinks/leaves/spines/pods/spine_uplinks/cores, [kary] k/n, [naming] prefix, [racks] units"); err != nil {
		return s, err
	}
	if err := s.check(); err != nil {
		return s, fmt.Errorf("%s: %w", file, err)
	}
	return s, nil
}

func (s Spec) check() error {
	switch s.Kind {
	case "slimfly", "clos", "kary-ntree":
	case "":
		return errors.New("missing key kind: set kind = \"slimfly\", \"clos\" or \"kary-ntree\"")
	default:
		return fmt.Errorf("kind = %q: want \"slimfly\", \"clos\" or \"kary-ntree\"", s.Kind)
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
