package slurm

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"slimroute/jobs"
)

// Form is the shape Slurm is given: "tree" (topology/tree: leaf switches
// with their nodes, pods, one switch on top) or "block" (topology/block,
// Slurm 23.11 and newer: blocks and BlockSizes).
type Form string

const (
	FormTree  Form = "tree"
	FormBlock Form = "block"
)

// DefaultForm is the form that fits t: a tree for a hierarchical fabric
// (Clos, fat tree), blocks for the others, where a tree would invent
// hierarchy (Slim Fly, PolarFly, HyperX, Dragonfly+).
func (t *Topology) DefaultForm() Form {
	if t.Hierarchical {
		return FormTree
	}
	return FormBlock
}

// line is one entry of either file: a switch or block, its nodes or its
// child switches.
type line struct {
	name, nodes, children string
}

// treeLines are the tree form's switches: the leaves, the pods, the root
// (none above a single leaf).
func (t *Topology) treeLines() []line {
	var out []line
	var top []string
	for _, l := range t.Leaves {
		out = append(out, line{name: l.Name, nodes: jobs.CompressHostlist(l.Hosts)})
		top = append(top, l.Name)
	}
	if len(t.Pods) > 0 {
		top = nil
		for _, p := range t.Pods {
			var names []string
			for _, i := range p.Leaves {
				names = append(names, t.Leaves[i].Name)
			}
			out = append(out, line{name: p.Name, children: compressNames(names)})
			top = append(top, p.Name)
		}
	}
	if len(top) > 1 {
		out = append(out, line{name: t.Root, children: compressNames(top)})
	}
	return out
}

// compressNames is the host list of names in natural order.
func compressNames(names []string) string {
	names = append([]string(nil), names...)
	sortNatural(names)
	return jobs.CompressHostlist(names)
}

// header is the comment atop either file.
func (t *Topology) header(w io.Writer, form Form, file string) {
	hosts := 0
	for _, l := range t.Leaves {
		hosts += len(l.Hosts)
	}
	plugin := "topology/" + string(form)
	switch {
	case file == "topology.yaml":
		plugin += " (Slurm 24.11 or newer)"
	case form == FormBlock:
		plugin += " (TopologyPlugin=topology/block, Slurm 23.11 or newer)"
	default:
		plugin += " (TopologyPlugin=topology/tree)"
	}
	fmt.Fprintf(w, "# %s for Slurm's %s, written by slimroute export slurm-topology:\n", file, plugin)
	fmt.Fprintf(w, "# %d hosts on %d leaf switches", hosts, len(t.Leaves))
	if len(t.Pods) > 0 {
		fmt.Fprintf(w, " in %d pods (leaves sharing their upper switches)", len(t.Pods))
	}
	fmt.Fprintln(w, ".")
}

// WriteConf writes topology.conf in form.
func WriteConf(w io.Writer, t *Topology, form Form) error {
	bw := bufio.NewWriter(w)
	t.header(bw, form, "topology.conf")
	if form == FormBlock {
		blocks, sizes := t.Blocks()
		for _, b := range blocks {
			fmt.Fprintf(bw, "BlockName=%s Nodes=%s\n", b.Name, jobs.CompressHostlist(b.Hosts))
		}
		fmt.Fprintf(bw, "BlockSizes=%s\n", joinInts(sizes))
		return bw.Flush()
	}
	for _, l := range t.treeLines() {
		if l.nodes != "" {
			fmt.Fprintf(bw, "SwitchName=%s Nodes=%s\n", l.name, l.nodes)
		} else {
			fmt.Fprintf(bw, "SwitchName=%s Switches=%s\n", l.name, l.children)
		}
	}
	return bw.Flush()
}

// WriteYAML writes topology.yaml (Slurm 24.11 and newer): one topology,
// named name and the cluster's default, in form. Every string is quoted,
// since a host list may start with [.
func WriteYAML(w io.Writer, t *Topology, form Form, name string) error {
	bw := bufio.NewWriter(w)
	t.header(bw, form, "topology.yaml")
	fmt.Fprintf(bw, "- topology: %s\n  cluster_default: true\n", strconv.Quote(name))
	if form == FormBlock {
		blocks, sizes := t.Blocks()
		fmt.Fprintf(bw, "  block:\n    block_sizes:\n")
		for _, s := range sizes {
			fmt.Fprintf(bw, "      - %d\n", s)
		}
		fmt.Fprintf(bw, "    blocks:\n")
		for _, b := range blocks {
			fmt.Fprintf(bw, "      - block: %s\n        nodes: %s\n", strconv.Quote(b.Name), strconv.Quote(jobs.CompressHostlist(b.Hosts)))
		}
		return bw.Flush()
	}
	fmt.Fprintf(bw, "  tree:\n    switches:\n")
	for _, l := range t.treeLines() {
		key, val := "nodes", l.nodes
		if val == "" {
			key, val = "children", l.children
		}
		fmt.Fprintf(bw, "      - switch: %s\n        %s: %s\n", strconv.Quote(l.name), key, strconv.Quote(val))
	}
	return bw.Flush()
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
