package slurm

import (
	"math/bits"
	"sort"

	"slimroute/fabric"
)

// Block is one block of the block form and its hosts, in natural order.
type Block struct {
	Name  string
	Hosts []string
}

// maxBlockLevel is the highest level Slurm's block plugin takes: a
// BlockSizes value is at most 2^15 base blocks.
const maxBlockLevel = 15

// Blocks is the block form: one block per leaf switch in block order —
// or, when the pods are not aligned runs of one power of two of leaves
// (a Dragonfly+ of 6 leaves a group), one block per pod, since Slurm
// joins only aligned runs of 2^k blocks — and BlockSizes: the smallest
// block's hosts (Slurm's planning base, which every block must reach)
// times 1, 2, 4, … up to the first power of two that covers every
// block.
func (t *Topology) Blocks() ([]Block, []int) {
	var blocks []Block
	if len(t.Pods) > 0 && !podsAligned(t) {
		for _, p := range t.Pods {
			var hosts []string
			for _, i := range p.Leaves {
				hosts = append(hosts, t.Leaves[i].Hosts...)
			}
			sortNatural(hosts)
			blocks = append(blocks, Block{p.Name, hosts})
		}
	} else {
		for _, l := range t.Leaves {
			blocks = append(blocks, Block(l))
		}
	}
	base := len(blocks[0].Hosts)
	for _, b := range blocks {
		base = min(base, len(b.Hosts))
	}
	levels := min(maxBlockLevel, bits.Len(uint(len(blocks)-1))) // ⌈log2 blocks⌉
	sizes := []int{base}
	for k := 1; k <= levels; k++ {
		sizes = append(sizes, base<<k)
	}
	return blocks, sizes
}

// podsAligned says whether every pod is the run of leaves [k·n, (k+1)·n)
// for one power of two n.
func podsAligned(t *Topology) bool {
	n := len(t.Pods[0].Leaves)
	if n&(n-1) != 0 {
		return false
	}
	for _, p := range t.Pods {
		if len(p.Leaves) != n || p.Leaves[0]%n != 0 {
			return false
		}
		for k, i := range p.Leaves {
			if i != p.Leaves[0]+k {
				return false
			}
		}
	}
	return true
}

// sortNatural sorts names in natural order (fabric.NaturalLess).
func sortNatural(names []string) {
	sort.Slice(names, func(a, b int) bool { return fabric.NaturalLess(names[a], names[b]) })
}
