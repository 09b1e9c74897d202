package lft

import (
	"bufio"
	"fmt"
	"io"
	"sort"
)

// WriteGUID2LID writes OpenSM's guid2lid cache (OSM_CACHE_DIR/guid2lid), so
// that OpenSM assigns exactly the planned LIDs: one record per port, "port
// GUID min max", records separated by blank lines.
func WriteGUID2LID(w io.Writer, t *Tables) error {
	bw := bufio.NewWriter(w)
	ports := append([]PortLIDs(nil), t.lids.ports...)
	sort.SliceStable(ports, func(i, j int) bool { return ports[i].Base < ports[j].Base })
	for _, p := range ports {
		g := t.f.Node(p.Port.Node).PortGUID(p.Port.Port)
		fmt.Fprintf(bw, "%s 0x%04x 0x%04x\n\n", g, p.Base, p.Top())
	}
	return bw.Flush()
}
