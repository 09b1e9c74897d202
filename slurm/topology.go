// Package slurm writes a fabric's topology for Slurm's placement
// (topology.conf for the topology/tree and topology/block plugins, and
// topology.yaml), so that Slurm packs a job onto neighbouring switches.
package slurm

import (
	"fmt"
	"slices"

	"slimroute/fabric"
)

// Topology is a fabric as Slurm's topology plugins see it: the leaf
// switches (those with HCAs) and their hosts, in block order, and the
// pods that group them.
type Topology struct {
	// Leaves in block order: aligned runs of 2^k leaves are the tightest
	// groups the pairing found (see order).
	Leaves []Leaf
	// Pods group the leaves that share the same upper switches (a Clos
	// pod, a Dragonfly+ group), each listing its leaves' indexes in
	// Leaves, in order; none when one pod would hold every leaf or each
	// leaf its own.
	Pods []Pod
	// Hierarchical: every switch-to-switch cable joins switches one level
	// apart, counting levels up from the leaves (a Clos or fat tree).
	Hierarchical bool
	// Root is the name of the switch above the pods (above the leaves
	// without pods) in the tree form.
	Root string
}

// Leaf is a leaf switch and the hosts of its HCAs, in natural order.
type Leaf struct {
	Name  string
	Hosts []string
}

// Pod is a named group of leaves.
type Pod struct {
	Name   string
	Leaves []int
}

// Build reads the topology of f. Host names come from the HCAs' node
// descriptions (fabric.HostName); an HCA without a valid one, or two HCAs
// with one name, is an error that names them. Cost: O(L² + Σ deg²) for L
// leaf switches (the pairing's affinities), plus the fabric's size.
func Build(f *fabric.Fabric) (*Topology, error) {
	v := f.SwitchView()
	hosts, err := hostsBySwitch(f, v)
	if err != nil {
		return nil, err
	}
	var leaves []int // switch indexes
	for s, hs := range hosts {
		if len(hs) > 0 {
			leaves = append(leaves, s)
		}
	}
	if len(leaves) == 0 {
		return nil, fmt.Errorf("the fabric has no switch with a cabled HCA: Slurm has no node to place")
	}
	leaves = order(v, leaves)
	t := &Topology{Hierarchical: hierarchical(v, hosts)}
	taken := map[string]bool{}
	for _, s := range leaves {
		id := v.IDs[s]
		t.Leaves = append(t.Leaves, Leaf{Name: switchName(f.Name(id), f.GUID(id), taken), Hosts: hosts[s]})
	}
	t.Pods = pods(v, leaves, taken)
	t.Root = freeName("fabric", taken)
	return t, nil
}

// hierarchical says whether v's switches fall into levels — the leaves
// (switches with hosts) at 0, every other switch one above its nearest
// leaf — with every cable between neighbouring levels.
func hierarchical(v *fabric.SwitchView, hosts [][]string) bool {
	level := make([]int, v.NumSwitches())
	var queue []int
	for s := range level {
		level[s] = -1
		if len(hosts[s]) > 0 {
			level[s] = 0
			queue = append(queue, s)
		}
	}
	for i := 0; i < len(queue); i++ {
		for _, c := range v.Adj[queue[i]] {
			if level[c.Peer] < 0 {
				level[c.Peer] = level[queue[i]] + 1
				queue = append(queue, c.Peer)
			}
		}
	}
	for s, adj := range v.Adj {
		for _, c := range adj {
			if d := level[s] - level[c.Peer]; d != 1 && d != -1 {
				return false
			}
		}
	}
	return true
}

// pods groups leaves (switch indexes, in block order) by their upper
// switches: the switches without hosts they are cabled to. A group's
// place is that of its first leaf. Pods are named pod1, pod2, … (a name
// in taken gets a _).
func pods(v *fabric.SwitchView, leaves []int, taken map[string]bool) []Pod {
	isLeaf := map[int]bool{}
	for _, s := range leaves {
		isLeaf[s] = true
	}
	var out []Pod
	byUpper := map[string]int{}
	for i, s := range leaves {
		var up []int
		for _, c := range v.Adj[s] {
			if !isLeaf[c.Peer] {
				up = append(up, c.Peer)
			}
		}
		slices.Sort(up)
		key := fmt.Sprint(slices.Compact(up))
		k, seen := byUpper[key]
		if !seen {
			k = len(out)
			byUpper[key] = k
			out = append(out, Pod{})
		}
		out[k].Leaves = append(out[k].Leaves, i)
	}
	if len(out) <= 1 || len(out) == len(leaves) {
		return nil
	}
	for k := range out {
		out[k].Name = freeName(fmt.Sprintf("pod%d", k+1), taken)
	}
	return out
}

// freeName is name, or name with _ added until taken lacks it; it takes it.
func freeName(name string, taken map[string]bool) string {
	for taken[name] {
		name += "_"
	}
	taken[name] = true
	return name
}
