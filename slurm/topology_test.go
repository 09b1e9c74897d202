package slurm_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"slimroute/clos"
	"slimroute/dragonflyplus"
	"slimroute/fabric"
	"slimroute/hyperx"
	"slimroute/jobs"
	"slimroute/polarfly"
	"slimroute/slimfly"
	"slimroute/slurm"
)

// drawFabrics draws fabrics of every kind the builders make, with their
// parameters drawn: Slim Fly, two- and three-level Clos, PolarFly,
// HyperX and Dragonfly+.
func drawFabrics(t *testing.T, rng *rand.Rand) map[string]*fabric.Fabric {
	t.Helper()
	out := map[string]*fabric.Fabric{}
	add := func(name string, f *fabric.Fabric, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = f
	}
	for i := 0; i < 3; i++ {
		q := []int{3, 4, 5, 7}[rng.IntN(4)]
		f, err := slimfly.Build(slimfly.Params{Q: q, Endpoints: 1 + rng.IntN(5)})
		add(fmt.Sprintf("slimfly-q%d-%d", q, i), f, err)
		radix := 4 + 2*rng.IntN(6)
		f, err = clos.Build(clos.Params{Radix: radix})
		add(fmt.Sprintf("clos-r%d-%d", radix, i), f, err)
		pods := 2 + rng.IntN(3)
		f, err = clos.Build(clos.Params{Levels: 3, Radix: 4 + 2*rng.IntN(3), Pods: pods})
		add(fmt.Sprintf("clos3-p%d-%d", pods, i), f, err)
		pq := []int{2, 3, 4, 5, 7}[rng.IntN(5)]
		f, err = polarfly.Build(polarfly.Params{Q: pq, Endpoints: 1 + rng.IntN(3)})
		add(fmt.Sprintf("polarfly-q%d-%d", pq, i), f, err)
		dims := []int{2 + rng.IntN(4), 2 + rng.IntN(4)}
		f, err = hyperx.Build(hyperx.Params{Dims: dims, Endpoints: 1 + rng.IntN(3)})
		add(fmt.Sprintf("hyperx-%v-%d", dims, i), f, err)
		dr := 4 + 2*rng.IntN(4)
		f, err = dragonflyplus.Build(dragonflyplus.Params{Radix: dr})
		add(fmt.Sprintf("dfp-r%d-%d", dr, i), f, err)
	}
	return out
}

// TestEveryHostIsInOneBlockAndOneLeaf: for 18 drawn fabrics of the six
// kinds, the block and tree forms, in topology.conf and topology.yaml,
// name every cabled HCA's host in exactly one block and exactly one leaf
// switch and nothing else; names are unique and valid Slurm names; every
// switch a tree line names below it is defined; BlockSizes start at the
// smallest block and double (Slurm's rule: base · 2^k), ending at the
// first that covers every block.
func TestEveryHostIsInOneBlockAndOneLeaf(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 2))
	for name, f := range drawFabrics(t, rng) {
		top, err := slurm.Build(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := map[string]bool{}
		for _, h := range f.IDsOf(fabric.HCA) {
			want[f.Name(h)] = true
		}
		for _, form := range []slurm.Form{slurm.FormTree, slurm.FormBlock} {
			var conf, yaml bytes.Buffer
			if err := slurm.WriteConf(&conf, top, form); err != nil {
				t.Fatal(err)
			}
			if err := slurm.WriteYAML(&yaml, top, form, "slimroute"); err != nil {
				t.Fatal(err)
			}
			for file, entries := range map[string][]entry{"conf": readConf(t, conf.String()), "yaml": readYAML(t, yaml.String())} {
				if err := judge(entries, want, form); err != nil {
					t.Fatalf("%s %s %s: %v\n%s", name, form, file, err, conf.String())
				}
			}
		}
	}
}

// entry is one switch or block of a written file, read back.
type entry struct {
	name, nodes, children string
	sizes                 []int
}

// readConf reads topology.conf lines.
func readConf(t *testing.T, s string) []entry {
	var out []entry
	for _, ln := range strings.Split(s, "\n") {
		ln, _, _ = strings.Cut(ln, "#")
		if strings.TrimSpace(ln) == "" {
			continue
		}
		var e entry
		for _, kv := range strings.Fields(ln) {
			k, v, _ := strings.Cut(kv, "=")
			switch strings.ToLower(k) {
			case "switchname", "blockname":
				e.name = v
			case "nodes":
				e.nodes = v
			case "switches":
				e.children = v
			case "blocksizes":
				for _, x := range strings.Split(v, ",") {
					n, _ := strconv.Atoi(x)
					e.sizes = append(e.sizes, n)
				}
			default:
				t.Fatalf("unknown key %q in %q", k, ln)
			}
		}
		out = append(out, e)
	}
	return out
}

// readYAML reads the topology.yaml this package writes (one topology,
// one key per line).
func readYAML(t *testing.T, s string) []entry {
	var out []entry
	var sizes []int
	for _, ln := range strings.Split(s, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(ln), ": ")
		k = strings.TrimPrefix(k, "- ")
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		}
		switch k {
		case "switch", "block":
			out = append(out, entry{name: v})
		case "nodes":
			out[len(out)-1].nodes = v
		case "children":
			out[len(out)-1].children = v
		}
		if n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(ln), "- ")); err == nil {
			sizes = append(sizes, n)
		}
	}
	if sizes != nil {
		out = append(out, entry{sizes: sizes})
	}
	return out
}

// judge checks a file's entries against the hosts it must hold once.
func judge(entries []entry, want map[string]bool, form slurm.Form) error {
	seen, names := map[string]int{}, map[string]bool{}
	smallest, blocks := 1<<30, 0
	var sizes []int
	for _, e := range entries {
		if e.sizes != nil {
			sizes = e.sizes
			continue
		}
		if names[e.name] || jobs.CheckHostName(e.name) != nil {
			return fmt.Errorf("name %q twice or invalid", e.name)
		}
		names[e.name] = true
		hosts, err := jobs.ExpandHostlist(e.nodes)
		if e.nodes == "" {
			hosts, err = nil, nil
		}
		if err != nil {
			return err
		}
		for _, h := range hosts {
			seen[h]++
		}
		if e.nodes != "" {
			smallest, blocks = min(smallest, len(hosts)), blocks+1
		}
	}
	for _, e := range entries {
		kids, _ := jobs.ExpandHostlist(e.children)
		for _, k := range kids {
			if e.children != "" && !names[k] {
				return fmt.Errorf("%s names switch %s, which is not defined", e.name, k)
			}
		}
	}
	for h := range want {
		if seen[h] != 1 {
			return fmt.Errorf("host %s in %d entries", h, seen[h])
		}
	}
	if len(seen) != len(want) {
		return fmt.Errorf("%d hosts named, the fabric has %d", len(seen), len(want))
	}
	if form == slurm.FormBlock {
		return judgeSizes(sizes, smallest, blocks)
	}
	return nil
}

// judgeSizes: BlockSizes base·1, base·2, … up to the first that covers
// every block, base the smallest block.
func judgeSizes(sizes []int, smallest, blocks int) error {
	if len(sizes) == 0 || sizes[0] != smallest {
		return fmt.Errorf("BlockSizes %v: want the smallest block, %d, first", sizes, smallest)
	}
	for k, s := range sizes {
		if s != smallest<<k {
			return fmt.Errorf("BlockSizes %v: not doubling", sizes)
		}
	}
	if last := 1 << (len(sizes) - 1); last < blocks || (len(sizes) > 1 && last/2 >= blocks) {
		return fmt.Errorf("BlockSizes %v for %d blocks: want up to the first that covers them all", sizes, blocks)
	}
	return nil
}
