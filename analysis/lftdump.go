package analysis

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"

	"slimroute/fabric"
)

// ReadOpenSMLFTs reads the unicast forwarding tables OpenSM dumps
// (opensm-lfts.dump, written with -D 0x43 --dump_files_dir DIR, or the
// lfts file of `-R file -U`), and maps them onto fabric f:
//
//	Unicast lids [0-19] of switch Lid 1 guid 0x5346100000000000 ('sw-a'):
//	0x0004 001 # Channel Adapter portguid 0x5346200000000011: 'hca-1'
//	19 lids dumped
//
// Every entry names its destination port GUID, so no LID file is needed:
// an endpoint's LIDs are those listed with its port GUID, its base LID the
// smallest, and LID base+k is layer k. layers is 2^LMC; 0 infers it from
// the LIDs per port. Switch LIDs are ignored (they have no layers).
func ReadOpenSMLFTs(r io.Reader, file string, f *fabric.Fabric, layers int) (Tables, error) {
	type entry struct {
		sw, port int
		lid      int
		guid     fabric.GUID
	}
	v := f.SwitchView()
	swByGUID := map[fabric.GUID]int{}
	for s, id := range v.IDs {
		swByGUID[f.Node(id).GUID] = s
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var entries []entry
	cur := -1
	seen := map[int]bool{}
	perr := func(line int, format string, args ...any) error {
		return &fabric.ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	for ln := 1; sc.Scan(); ln++ {
		t := strings.TrimSpace(sc.Text())
		switch {
		case t == "" || strings.HasSuffix(t, "lids dumped") || strings.HasPrefix(t, "#"):
		case strings.HasPrefix(t, "Unicast lids"):
			i := strings.Index(t, " guid 0x")
			if i < 0 {
				return nil, perr(ln, "table header without \"guid 0x…\"")
			}
			g, err := fabric.ParseGUID(strings.Fields(t[i+6:])[0])
			if err != nil {
				return nil, perr(ln, "%v", err)
			}
			s, ok := swByGUID[g]
			if !ok {
				return nil, perr(ln, "switch GUID %s is not in the fabric; are the dump and the fabric from the same subnet?", g)
			}
			if seen[s] {
				return nil, perr(ln, "switch %s has two tables", g)
			}
			seen[s], cur = true, s
		case strings.HasPrefix(t, "0x"):
			if cur < 0 {
				return nil, perr(ln, "LFT entry before any \"Unicast lids … guid\" header")
			}
			fs := strings.Fields(t)
			if len(fs) < 2 {
				return nil, perr(ln, "want \"0x<lid> <port>\"")
			}
			lid, err1 := strconv.ParseUint(fs[0][2:], 16, 16)
			port, err2 := strconv.Atoi(fs[1])
			if err1 != nil || err2 != nil || port < 0 || port > fabric.MaxPorts {
				return nil, perr(ln, "want \"0x<lid> <port>\", got %q", t)
			}
			i := strings.Index(t, "portguid 0x")
			if i < 0 {
				return nil, perr(ln, "entry without \"portguid 0x…\"; slimroute maps LIDs to ports by it")
			}
			g, err := fabric.ParseGUID(strings.TrimRight(strings.Fields(t[i+9:])[0], ":)"))
			if err != nil {
				return nil, perr(ln, "%v", err)
			}
			entries = append(entries, entry{cur, port, int(lid), g})
		default:
			return nil, perr(ln, "unrecognised line %q", t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	for s, id := range v.IDs {
		if !seen[s] {
			return nil, fmt.Errorf("%s: no table for switch %s (%s)", file, f.Node(id).Name, f.Node(id).GUID)
		}
	}
	// endpoints by port GUID, and their LID ranges
	t := newFabricTables(f)
	epByGUID := map[fabric.GUID]int{}
	for d, ep := range t.eps {
		epByGUID[f.Node(ep.Node).PortGUID(ep.Port)] = d
	}
	base := make([]int, len(t.eps))
	top := make([]int, len(t.eps))
	for i := range base {
		base[i] = 1 << 16
	}
	for _, e := range entries {
		if d, ok := epByGUID[e.guid]; ok {
			base[d] = min(base[d], e.lid)
			top[d] = max(top[d], e.lid)
		}
	}
	span := 1
	for d := range base {
		if base[d] > top[d] {
			return nil, fmt.Errorf("%s: no LID of %s (port GUID %s) in any table", file, f.PortString(t.eps[d]), f.Node(t.eps[d].Node).PortGUID(t.eps[d].Port))
		}
		span = max(span, top[d]-base[d]+1)
	}
	if layers == 0 {
		layers = 1 << bits.Len(uint(span-1))
	}
	if span > layers {
		return nil, fmt.Errorf("%s: endpoints hold up to %d LIDs, more than the %d layers asked for", file, span, layers)
	}
	t.allocate(layers)
	N := len(t.eps)
	for _, e := range entries {
		d, ok := epByGUID[e.guid]
		if !ok {
			continue
		}
		t.lft[e.sw][(e.lid-base[d])*N+d] = uint8(e.port)
	}
	return t, nil
}
