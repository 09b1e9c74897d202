// Package clos builds folded Clos fabrics (fat trees): two-level leaf/spine
// fabrics, three-level pod-based fat trees, and Petrini and Vanneschi's
// k-ary n-trees.
//
// Up-links are spread evenly: a leaf with U up-links and S spines above it
// runs U/S parallel cables to each, and likewise one level up. A fabric is
// non-blocking (full bisection) when every switch below the top has at
// least as many up-links as down-links; Oversubscription reports the ratio.
package clos

import (
	"fmt"
	"strconv"
	"strings"

	"slimroute/fabric"
)

// Params describes a two- or three-level folded Clos. Zero fields take the
// defaults of a non-blocking fabric built from switches of the given radix.
type Params struct {
	Levels int // 2 (leaf/spine) or 3 (leaf/spine/core); default 2
	Radix  int // switch port count; required
	// Oversubscription is hosts:uplinks per leaf, e.g. "3:1"; used only
	// when HostsPerLeaf and LeafUplinks are both zero. Default "1:1".
	Oversubscription string
	HostsPerLeaf     int // default from Radix and Oversubscription
	LeafUplinks      int // default from Radix and Oversubscription
	// Leaves: all leaves for 2 levels, leaves per pod for 3. Default: as
	// many as the spines' down-ports allow.
	Leaves int
	// Spines: all spines for 2 levels, spine (aggregation) switches per pod
	// for 3. Default LeafUplinks (one cable from each leaf to each spine).
	Spines int
	// Three levels only.
	Pods         int // default: as many as the cores' ports allow
	SpineUplinks int // per spine; default Radix − spine down-links
	Cores        int // in total, a multiple of Spines; default Spines·SpineUplinks
}

// Derived reports the shape of a built fabric.
type Derived struct {
	Params
	LeafParallel  int     // cables from a leaf to each spine above it
	SpineParallel int     // cables from a spine to each core of its plane (3 levels)
	LeafOversub   float64 // hosts / up-links per leaf
	SpineOversub  float64 // down-links / up-links per spine (3 levels)
}

// A ParamError refuses one parameter, named by its spec key
// ("spine_uplinks"), and says which values would fit.
type ParamError struct {
	Key   string
	Value int
	Want  string
}

func (e *ParamError) Error() string { return fmt.Sprintf("%s=%d: %s", e.Key, e.Value, e.Want) }

// Resolve fills in defaults and checks p, returning the complete shape.
func Resolve(p Params) (Derived, error) {
	d := Derived{Params: p}
	q := &d.Params
	if q.Levels == 0 {
		q.Levels = 2
	}
	if q.Levels != 2 && q.Levels != 3 {
		return d, fmt.Errorf("levels=%d: slimroute builds 2- or 3-level Clos fabrics (use a k-ary n-tree for more levels)", q.Levels)
	}
	if q.Radix < 2 || q.Radix > fabric.MaxPorts {
		return d, fmt.Errorf("radix=%d: want the switch port count, 2..%d", q.Radix, fabric.MaxPorts)
	}
	// no count may exceed the LIDs of a subnet; this also keeps the
	// products below from overflowing
	for _, c := range []struct {
		name string
		v    int
	}{{"hosts_per_leaf", q.HostsPerLeaf}, {"leaf_uplinks", q.LeafUplinks}, {"leaves", q.Leaves}, {"spines", q.Spines}, {"pods", q.Pods}, {"spine_uplinks", q.SpineUplinks}, {"cores", q.Cores}} {
		if c.v > fabric.MaxLIDs {
			return d, fmt.Errorf("%s=%d: more than the %d LIDs of an InfiniBand subnet", c.name, c.v, fabric.MaxLIDs)
		}
		if c.v < 0 {
			return d, &ParamError{c.name, c.v, "a count is never negative: want 0 (the default) or more"}
		}
	}
	if q.HostsPerLeaf == 0 && q.LeafUplinks == 0 {
		a, b, err := parseRatio(q.Oversubscription)
		if err != nil {
			return d, err
		}
		if q.Radix*a%(a+b) != 0 {
			return d, fmt.Errorf("oversubscription %d:%d does not split radix %d into whole host and up-link counts; set hosts_per_leaf and leaf_uplinks", a, b, q.Radix)
		}
		q.HostsPerLeaf = q.Radix * a / (a + b)
		q.LeafUplinks = q.Radix - q.HostsPerLeaf
	}
	if q.HostsPerLeaf < 0 || q.LeafUplinks < 1 {
		return d, fmt.Errorf("hosts_per_leaf=%d, leaf_uplinks=%d: a leaf needs at least one up-link and no negative counts", q.HostsPerLeaf, q.LeafUplinks)
	}
	if q.HostsPerLeaf+q.LeafUplinks > q.Radix {
		return d, fmt.Errorf("a leaf needs %d hosts + %d up-links = %d ports, but radix is %d", q.HostsPerLeaf, q.LeafUplinks, q.HostsPerLeaf+q.LeafUplinks, q.Radix)
	}
	if q.Spines == 0 {
		q.Spines = q.LeafUplinks
	}
	if q.Spines < 1 || q.LeafUplinks%q.Spines != 0 {
		return d, fmt.Errorf("%d leaf up-links cannot be spread evenly over %d spines; make leaf_uplinks a multiple of spines", q.LeafUplinks, q.Spines)
	}
	d.LeafParallel = q.LeafUplinks / q.Spines
	if q.Leaves == 0 {
		down := q.Radix
		if q.Levels == 3 {
			down = q.Radix / 2 // leave half the spine's ports for up-links
			if q.SpineUplinks > 0 {
				down = q.Radix - q.SpineUplinks
			}
		}
		q.Leaves = down / d.LeafParallel
		if q.Leaves < 1 && q.Levels == 3 && q.SpineUplinks > 0 {
			return d, &ParamError{"spine_uplinks", q.SpineUplinks, fmt.Sprintf("want 1..%d: a spine has %d ports and keeps %d of them down to each leaf", q.Radix-d.LeafParallel, q.Radix, d.LeafParallel)}
		}
	}
	if q.Leaves < 1 {
		return d, fmt.Errorf("leaves=%d: want at least one leaf", q.Leaves)
	}
	spineDown := q.Leaves * d.LeafParallel
	if spineDown > q.Radix {
		return d, fmt.Errorf("each spine needs %d down-links (%d leaves × %d parallel cables), but radix is %d: use fewer leaves or more spines", spineDown, q.Leaves, d.LeafParallel, q.Radix)
	}
	d.LeafOversub = float64(q.HostsPerLeaf) / float64(q.LeafUplinks)
	if q.Levels == 2 {
		if q.Pods != 0 || q.Cores != 0 || q.SpineUplinks != 0 {
			return d, fmt.Errorf("pods, cores and spine_uplinks apply to 3-level fabrics; set levels = 3 or remove them")
		}
		return d, d.fitsOneSubnet(false)
	}
	if q.SpineUplinks == 0 {
		q.SpineUplinks = q.Radix - spineDown
		if q.SpineUplinks < 1 {
			return d, &ParamError{"leaves", q.Leaves, fmt.Sprintf("want 1..%d: with 3 levels a spine keeps one of its %d ports for an up-link, and takes %d from each leaf", (q.Radix-1)/d.LeafParallel, q.Radix, d.LeafParallel)}
		}
	}
	if spineDown+q.SpineUplinks > q.Radix {
		return d, &ParamError{"spine_uplinks", q.SpineUplinks, fmt.Sprintf("want 1..%d: a spine has %d ports and takes %d down-links (%d leaves × %d parallel cables)", q.Radix-spineDown, q.Radix, spineDown, q.Leaves, d.LeafParallel)}
	}
	coresGiven := q.Cores != 0
	if !coresGiven {
		q.Cores = defaultCores(*q)
	}
	if q.Cores%q.Spines != 0 {
		return d, fmt.Errorf("cores=%d: the cores form one plane per spine position, so cores must be a multiple of spines per pod (%d)", q.Cores, q.Spines)
	}
	plane := q.Cores / q.Spines
	if q.SpineUplinks%plane != 0 {
		return d, fmt.Errorf("%d spine up-links cannot be spread evenly over the %d cores of a plane; make spine_uplinks a multiple of cores/spines", q.SpineUplinks, plane)
	}
	d.SpineParallel = q.SpineUplinks / plane
	if q.Pods == 0 {
		q.Pods = q.Radix / d.SpineParallel
	}
	if q.Pods*d.SpineParallel > q.Radix {
		return d, &ParamError{"pods", q.Pods, fmt.Sprintf("want 1..%d: a core has %d ports and takes %d cables from each pod", q.Radix/d.SpineParallel, q.Radix, d.SpineParallel)}
	}
	d.SpineOversub = float64(spineDown) / float64(q.SpineUplinks)
	return d, d.fitsOneSubnet(coresGiven)
}

// defaultCores is the number of cores when none is given: the spines'
// up-links spread over as few cores as still fit every pod (coreParallel).
func defaultCores(q Params) int {
	return q.Spines * q.SpineUplinks / coreParallel(q.Radix, q.Pods, q.SpineUplinks)
}

// fitsOneSubnet refuses a shape whose switches and HCAs need more LIDs than
// one InfiniBand subnet has, before anything is built; for 3 levels it
// names the most pods that fit (with fewer pods, the default cores shrink
// too unless coresGiven).
func (d Derived) fitsOneSubnet(coresGiven bool) error {
	q := d.Params
	pods, pod, top := 1, q.Leaves*(1+q.HostsPerLeaf), q.Spines // 2 levels: the spines are the top
	if q.Levels == 3 {
		pods, pod, top = q.Pods, pod+q.Spines, q.Cores
	}
	need := pods*pod + top
	if need <= fabric.MaxLIDs {
		return nil
	}
	hosts := pods * q.Leaves * q.HostsPerLeaf
	msg := fmt.Sprintf("%d-level Clos of radix %d: %d switches and %d HCAs need %d LIDs, but an InfiniBand subnet has %d", q.Levels, q.Radix, need-hosts, hosts, need, fabric.MaxLIDs)
	if q.Levels == 3 {
		for most := min(q.Pods-1, fabric.MaxLIDs/pod); most >= 1; most-- {
			fewer := q
			fewer.Pods = most
			if !coresGiven {
				fewer.Cores = defaultCores(fewer)
			}
			if most*pod+fewer.Cores <= fabric.MaxLIDs {
				return fmt.Errorf("%s: set pods to at most %d", msg, most)
			}
		}
	}
	if most := (fabric.MaxLIDs - top) / (1 + q.HostsPerLeaf); q.Levels == 2 && most >= 1 {
		return fmt.Errorf("%s: set leaves to at most %d", msg, most)
	}
	return fmt.Errorf("%s: use switches of fewer ports", msg)
}

// coreParallel is how many cables a spine runs to each core of its plane
// when the cores are not given: with fewer pods than ports, the most that
// still fit every pod on a core and spread the spine's up-links evenly, so
// the cores' ports are used rather than left empty; 1 for a full fat tree.
func coreParallel(radix, pods, spineUplinks int) int {
	if pods < 1 {
		return 1
	}
	for par := min(radix/pods, spineUplinks); par > 1; par-- {
		if spineUplinks%par == 0 {
			return par
		}
	}
	return 1
}

func parseRatio(s string) (int, int, error) {
	if s == "" {
		return 1, 1, nil
	}
	a, b, ok := strings.Cut(s, ":")
	x, err1 := strconv.Atoi(strings.TrimSpace(a))
	y, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || x < 1 || y < 1 {
		return 0, 0, fmt.Errorf("oversubscription %q: want hosts:uplinks such as \"1:1\" or \"3:1\"", s)
	}
	return x, y, nil
}

// GUID prefixes: "CL" for switches, "CH" for HCAs.
const (
	switchPrefix = 0x434c
	hcaPrefix    = 0x4348
)

func switchGUID(level, index int) fabric.GUID {
	return fabric.GUID(uint64(switchPrefix)<<48 | uint64(level)<<40 | uint64(index)<<8)
}

func hcaGUID(index int) fabric.GUID {
	return fabric.GUID(uint64(hcaPrefix)<<48 | uint64(index)<<8)
}

// builder accumulates nodes and links with per-node port counters.
type builder struct {
	nodes []fabric.Node
	links []fabric.Link
	next  []int // next free port per node
}

func (b *builder) add(n fabric.Node, firstPort int) fabric.NodeID {
	b.nodes = append(b.nodes, n)
	b.next = append(b.next, firstPort)
	return fabric.NodeID(len(b.nodes) - 1)
}

func (b *builder) cable(x, y fabric.NodeID) {
	b.links = append(b.links, fabric.Link{
		A: fabric.PortRef{Node: x, Port: b.next[x]},
		B: fabric.PortRef{Node: y, Port: b.next[y]},
	})
	b.next[x]++
	b.next[y]++
}

// Build constructs the Clos fabric described by p. Leaves carry their hosts
// on ports 1..HostsPerLeaf and their up-links on the following ports, spine
// by spine; spines take down-links from port 1 up, then up-links. Each leaf
// stands in its own rack with its hosts; each pod's spines share a rack; the
// cores (or 2-level spines) share the last rack.
func Build(p Params) (*fabric.Fabric, error) {
	d, err := Resolve(p)
	if err != nil {
		return nil, err
	}
	q := d.Params
	pods := 1
	if q.Levels == 3 {
		pods = q.Pods
	}
	b := &builder{}
	var spines []fabric.NodeID // all pods' spines, for the core cabling
	coreRack := pods*q.Leaves + pods + 1
	if q.Levels == 2 {
		coreRack = q.Leaves + 1
	}
	host := 0
	for pod := 0; pod < pods; pod++ {
		leaves := make([]fabric.NodeID, q.Leaves)
		for l := range leaves {
			idx := pod*q.Leaves + l
			name := fmt.Sprintf("leaf-%d", l)
			if q.Levels == 3 {
				name = fmt.Sprintf("leaf-%d-%d", pod, l)
			}
			leaves[l] = b.add(fabric.Node{Kind: fabric.Switch, Name: name, GUID: switchGUID(1, idx), Ports: q.Radix, Place: fabric.Placement{Rack: idx + 1}}, 1)
			for h := 1; h <= q.HostsPerLeaf; h++ {
				hname := fmt.Sprintf("hca-%d-%d", l, h)
				if q.Levels == 3 {
					hname = fmt.Sprintf("hca-%d-%d-%d", pod, l, h)
				}
				id := b.add(fabric.Node{Kind: fabric.HCA, Name: hname, GUID: hcaGUID(host), Ports: 1, Place: fabric.Placement{Rack: idx + 1}}, 1)
				host++
				b.cable(leaves[l], id)
			}
		}
		spineRack := coreRack
		if q.Levels == 3 {
			spineRack = pods*q.Leaves + pod + 1
		}
		for s := 0; s < q.Spines; s++ {
			name := fmt.Sprintf("spine-%d", s)
			if q.Levels == 3 {
				name = fmt.Sprintf("spine-%d-%d", pod, s)
			}
			sp := b.add(fabric.Node{Kind: fabric.Switch, Name: name, GUID: switchGUID(2, pod*q.Spines+s), Ports: q.Radix, Place: fabric.Placement{Rack: spineRack}}, 1)
			for _, leaf := range leaves {
				for k := 0; k < d.LeafParallel; k++ {
					// leaf up-link ports are ordered spine by spine
					b.links = append(b.links, fabric.Link{
						A: fabric.PortRef{Node: leaf, Port: q.HostsPerLeaf + 1 + s*d.LeafParallel + k},
						B: fabric.PortRef{Node: sp, Port: b.next[sp]},
					})
					b.next[sp]++
				}
			}
			spines = append(spines, sp)
		}
	}
	if q.Levels == 3 {
		plane := q.Cores / q.Spines
		coreIDs := make([]fabric.NodeID, q.Cores)
		for c := range coreIDs {
			coreIDs[c] = b.add(fabric.Node{Kind: fabric.Switch, Name: fmt.Sprintf("core-%d", c), GUID: switchGUID(3, c), Ports: q.Radix, Place: fabric.Placement{Rack: coreRack}}, 1)
		}
		for i, sp := range spines { // i = pod*Spines + s
			s := i % q.Spines
			for c := 0; c < plane; c++ {
				for k := 0; k < d.SpineParallel; k++ {
					b.cable(sp, coreIDs[s*plane+c])
				}
			}
		}
	}
	return fabric.New(b.nodes, b.links)
}
