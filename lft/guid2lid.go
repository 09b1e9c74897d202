package lft

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"slimroute/fabric"
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

// ReadGUID2LID reads OpenSM's guid2lid cache (as WriteGUID2LID writes it,
// and OpenSM keeps it in OSM_CACHE_DIR): "port-GUID min-LID max-LID"
// records, blank lines between them and "#" comments ignored. It fails,
// naming file and line, on a malformed record, a port listed twice, or a
// LID range that is no unicast range or overlaps another's.
func ReadGUID2LID(r io.Reader, file string) (LIDCache, error) {
	c := LIDCache{}
	lineOf := map[fabric.GUID]int{}
	owner := map[LID]fabric.GUID{}
	err := scanLineBytes(r, file, nil, func(ln int, text []byte) error {
		fields := strings.Fields(string(text))
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			return nil
		}
		if len(fields) != 3 {
			return parseError(file, ln, "want \"0x<port GUID> 0x<min LID> 0x<max LID>\", got %d fields", len(fields))
		}
		g, err := fabric.ParseGUID(fields[0])
		if err != nil {
			return parseError(file, ln, "port GUID %q: %v", fields[0], err)
		}
		var r [2]LID
		for i, s := range fields[1:] {
			v, err := strconv.ParseUint(s, 0, 16)
			if err != nil || v == 0 || LID(v) > MaxUnicastLID {
				return parseError(file, ln, "LID %q: want a unicast LID, 0x0001..0x%04x", s, MaxUnicastLID)
			}
			r[i] = LID(v)
		}
		if r[1] < r[0] {
			return parseError(file, ln, "LIDs 0x%04x..0x%04x: the max is below the min", r[0], r[1])
		}
		if at, dup := lineOf[g]; dup {
			return parseError(file, ln, "port %s listed twice (first at line %d)", g, at)
		}
		for l := r[0]; l <= r[1]; l++ {
			if o, taken := owner[l]; taken {
				return parseError(file, ln, "LID 0x%04x of port %s is port %s's too (line %d)", l, g, o, lineOf[o])
			}
			owner[l] = g
		}
		c[g], lineOf[g] = r, ln
		return nil
	})
	return c, err
}
