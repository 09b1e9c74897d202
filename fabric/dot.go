package fabric

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// WriteDOT writes f as an undirected Graphviz graph: switches as boxes,
// HCAs as ellipses, one edge per cable labelled with its port numbers,
// placed nodes grouped in one cluster per rack. Render with
// `dot -Tsvg` (small fabrics) or `sfdp -Tsvg` (large ones).
func WriteDOT(w io.Writer, f *Fabric) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("graph fabric {\n  graph [overlap=false, splines=true];\n  node [fontsize=10];\n  edge [fontsize=8];\n")
	racks := map[int][]NodeID{}
	for i := range f.nodes {
		racks[f.nodes[i].Place.Rack] = append(racks[f.nodes[i].Place.Rack], NodeID(i))
	}
	keys := make([]int, 0, len(racks))
	for r := range racks {
		keys = append(keys, r)
	}
	sort.Ints(keys)
	for _, r := range keys {
		indent := "  "
		if r > 0 {
			fmt.Fprintf(bw, "  subgraph cluster_rack%d {\n    label=\"rack %d\";\n", r, r)
			indent = "    "
		}
		for _, id := range racks[r] {
			n := &f.nodes[id]
			shape := "box"
			if n.Kind == HCA {
				shape = "ellipse"
			}
			fmt.Fprintf(bw, "%sn%d [label=%s, shape=%s];\n", indent, id, strconv.Quote(n.Name), shape)
		}
		if r > 0 {
			bw.WriteString("  }\n")
		}
	}
	for _, l := range f.links {
		label := fmt.Sprintf("%d-%d", l.A.Port, l.B.Port)
		if rate := Rate(l.Width, l.Speed); rate != "" {
			label += " " + rate
		}
		fmt.Fprintf(bw, "  n%d -- n%d [label=%s];\n", l.A.Node, l.B.Node, strconv.Quote(label))
	}
	bw.WriteString("}\n")
	return bw.Flush()
}
