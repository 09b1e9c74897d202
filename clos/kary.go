package clos

import (
	"fmt"
	"strconv"
	"strings"

	"slimroute/fabric"
)

// KAryNTree builds the k-ary n-tree of Petrini and Vanneschi ("k-ary
// n-trees: High Performance Networks for Massively Parallel Architectures",
// IPPS 1997): k^n hosts and n levels of k^(n−1) switches with 2k ports.
// Switch ⟨w, l⟩, w ∈ {0..k−1}^(n−1), level l ∈ {0..n−1} (0 at the top),
// is cabled to ⟨w′, l+1⟩ iff w and w′ agree everywhere except at digit l;
// host ⟨p_0 … p_(n−1)⟩ hangs off leaf ⟨p_0 … p_(n−2), n−1⟩. Down-links use
// ports 1..k (digit value + 1), up-links ports k+1..2k.
func KAryNTree(k, n int) (*fabric.Fabric, error) {
	if k < 1 || 2*k > fabric.MaxPorts {
		return nil, fmt.Errorf("k=%d: a k-ary n-tree needs switches of 2k ports, 2..%d", k, fabric.MaxPorts)
	}
	if n < 1 || n > 8 {
		return nil, fmt.Errorf("n=%d: want 1..8 levels", n)
	}
	per := 1
	for i := 0; i < n-1; i++ {
		per *= k
		if per > 1<<20 {
			return nil, fmt.Errorf("k=%d, n=%d: %d switches per level is more than slimroute builds", k, n, per)
		}
	}
	if need := n*per + per*k; need > fabric.MaxLIDs {
		fewer := n
		for fewer > 1 && fewer*pow(k, fewer-1)+pow(k, fewer) > fabric.MaxLIDs {
			fewer--
		}
		return nil, fmt.Errorf("k=%d, n=%d: %d switches and %d HCAs need %d LIDs, but an InfiniBand subnet has %d; use n ≤ %d or a smaller k", k, n, n*per, per*k, need, fabric.MaxLIDs, fewer)
	}
	digits := func(v, count int) []int {
		d := make([]int, count)
		for i := count - 1; i >= 0; i-- {
			d[i] = v % k
			v /= k
		}
		return d
	}
	index := func(d []int) int {
		v := 0
		for _, x := range d {
			v = v*k + x
		}
		return v
	}
	label := func(d []int) string {
		s := make([]string, len(d))
		for i, x := range d {
			s[i] = strconv.Itoa(x)
		}
		return strings.Join(s, ".")
	}
	var nodes []fabric.Node
	var links []fabric.Link
	sw := func(l, w int) fabric.NodeID { return fabric.NodeID(l*per + w) }
	for l := 0; l < n; l++ {
		for w := 0; w < per; w++ {
			rack := per + 1
			if l == n-1 {
				rack = w + 1
			}
			nodes = append(nodes, fabric.Node{
				Kind: fabric.Switch, Name: fmt.Sprintf("sw-%d-%s", l, label(digits(w, n-1))),
				GUID: switchGUID(l+1, w), Ports: 2 * k, Place: fabric.Placement{Rack: rack},
			})
		}
	}
	for l := 0; l+1 < n; l++ {
		for w := 0; w < per; w++ {
			d := digits(w, n-1)
			for j := 0; j < k; j++ { // child: digit l replaced by j
				c := append([]int(nil), d...)
				c[l] = j
				links = append(links, fabric.Link{
					A: fabric.PortRef{Node: sw(l, w), Port: j + 1},
					B: fabric.PortRef{Node: sw(l+1, index(c)), Port: k + 1 + d[l]},
				})
			}
		}
	}
	for h := 0; h < per*k; h++ {
		d := digits(h, n)
		leaf := sw(n-1, index(d[:n-1]))
		id := fabric.NodeID(len(nodes))
		nodes = append(nodes, fabric.Node{Kind: fabric.HCA, Name: "hca-" + label(d), GUID: hcaGUID(h), Ports: 1, Place: nodes[leaf].Place})
		links = append(links, fabric.Link{A: fabric.PortRef{Node: leaf, Port: d[n-1] + 1}, B: fabric.PortRef{Node: id, Port: 1}})
	}
	return fabric.New(nodes, links)
}

// pow is k^e for the small k and e of a k-ary n-tree.
func pow(k, e int) int {
	v := 1
	for ; e > 0; e-- {
		v *= k
	}
	return v
}
