package lft

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"

	"slimroute/fabric"
)

// WriteOpenSMLFTs writes the tables in the layout of OpenSM's
// opensm-lfts.dump, which `opensm -R file -U FILE` loads: one block per
// switch, one line per routed LID with the destination's port GUID, so
// OpenSM re-bases the LID if it assigns the port another LID range. Every
// switch and every routed LID (all LMC offsets) is listed: the file
// engine drops what a file leaves out without a warning. Up to workers
// goroutines format the blocks; the bytes are the same for every value.
func WriteOpenSMLFTs(w io.Writer, t *Tables, workers int) error {
	f := t.Fabric
	// the text after the port depends on the LID only: build it once
	tails := make([]string, int(t.LIDs.Top)+1)
	for lid := 1; lid < len(tails); lid++ {
		owner, _, ok := t.LIDs.Owner(LID(lid))
		if !ok {
			continue
		}
		on := f.Node(owner.Port.Node)
		kind := "Channel Adapter"
		if on.Kind == fabric.Switch {
			kind = "Switch"
		}
		tails[lid] = fmt.Sprintf(" # %s portguid %s: '%s'\n", kind, on.PortGUID(owner.Port.Port), on.Name)
	}
	return writeBlocks(w, workers, t.sortedSwitches(), func(buf []byte, sw fabric.NodeID) []byte {
		n := f.Node(sw)
		own, _ := t.LIDs.Of(fabric.PortRef{Node: sw})
		buf = fmt.Appendf(buf, "Unicast lids [0-%d] of switch Lid %d guid %s ('%s'):\n", t.LIDs.Top, own.Base, n.GUID, n.Name)
		lft := t.LFT(sw)
		count := 0
		for lid := 1; lid < len(lft); lid++ {
			port := lft[lid]
			if port == Drop || tails[lid] == "" {
				continue
			}
			buf = append(buf, '0', 'x', hexDigit(lid>>12), hexDigit(lid>>8), hexDigit(lid>>4), hexDigit(lid), ' ')
			if port >= 100 {
				buf = strconv.AppendUint(buf, uint64(port), 10)
			} else {
				buf = append(buf, '0', byte('0'+port/10), byte('0'+port%10))
			}
			buf = append(buf, tails[lid]...)
			count++
		}
		return fmt.Appendf(buf, "%d lids dumped\n", count)
	})
}

func hexDigit(v int) byte { return "0123456789abcdef"[v&15] }

// writeBlocks writes one block of text per switch, in order. Up to
// workers goroutines format the blocks, a few ahead of the writer, so the
// file's bytes do not depend on their number.
func writeBlocks(w io.Writer, workers int, switches []fabric.NodeID, block func(buf []byte, sw fabric.NodeID) []byte) error {
	workers = max(1, workers)
	ready := make([]chan []byte, len(switches))
	for i := range ready {
		ready[i] = make(chan []byte, 1)
	}
	free := make(chan []byte, 2*workers) // buffers, and the window ahead of the writer
	for i := 0; i < 2*workers; i++ {
		free <- nil
	}
	type job struct {
		j   int
		buf []byte
	}
	jobs := make(chan job)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for jb := range jobs {
				ready[jb.j] <- block(jb.buf, switches[jb.j]) // ready[j] has room: never blocks
			}
		}()
	}
	// the feeder takes a buffer before it hands out a block, in file
	// order, so the block the writer waits for always has one
	go func() {
		defer close(jobs)
		for j := range switches {
			var buf []byte
			select {
			case buf = <-free:
			case <-stop:
				return
			}
			select {
			case jobs <- job{j, buf}:
			case <-stop:
				return
			}
		}
	}()
	for j := range switches {
		b := <-ready[j]
		if _, err := w.Write(b); err != nil {
			close(stop) // workers finish what they hold; ready has room for it
			wg.Wait()
			return err
		}
		free <- b[:0]
	}
	wg.Wait()
	return nil
}

// WriteGUID2LID writes OpenSM's guid2lid cache (OSM_CACHE_DIR/guid2lid), so
// that OpenSM assigns exactly the planned LIDs: one record per port, "port
// GUID min max", records separated by blank lines.
func WriteGUID2LID(w io.Writer, t *Tables) error {
	bw := bufio.NewWriter(w)
	ports := append([]PortLIDs(nil), t.LIDs.Ports...)
	sort.SliceStable(ports, func(i, j int) bool { return ports[i].Base < ports[j].Base })
	for _, p := range ports {
		g := t.Fabric.Node(p.Port.Node).PortGUID(p.Port.Port)
		fmt.Fprintf(bw, "%s 0x%04x 0x%04x\n\n", g, p.Base, p.Top())
	}
	return bw.Flush()
}

// WritePathSL writes slimroute's path-SL file: the SL of every
// destination LID for the HCAs of each switch, one line per source switch:
//
//	# source-switch-GUID first-DLID SLs…
//	0x5346000000000000 0x0001 0000120…
//
// The SLs are hex digits, one per DLID from first-DLID on; every HCA port
// cabled to the switch uses them, from any of its LIDs. Up to workers
// goroutines format the lines.
func WritePathSL(w io.Writer, t *Tables, workers int) error {
	if _, err := io.WriteString(w, "# slimroute path SLs: source switch GUID, first DLID, one hex SL per DLID (for the HCA ports on that switch)\n"); err != nil {
		return err
	}
	v := t.Fabric.SwitchView()
	var switches []fabric.NodeID
	for _, sw := range t.sortedSwitches() {
		if len(v.Endpoints[v.Index[sw]]) > 0 {
			switches = append(switches, sw)
		}
	}
	return writeBlocks(w, workers, switches, func(buf []byte, sw fabric.NodeID) []byte {
		buf = fmt.Appendf(buf, "%s 0x0001 ", t.Fabric.Node(sw).GUID)
		buf = t.appendPathSLs(buf, v.Index[sw])
		return append(buf, '\n')
	})
}

// WriteSL2VL writes every switch's SL-to-VL tables in ibdmchk's -d format,
// which is also slimroute's: "switch-GUID in-port out-port" and eight
// bytes 0x(VL of SL 2i)(VL of SL 2i+1), for every in port (0 included) and
// every cabled out port.
func WriteSL2VL(w io.Writer, t *Tables) error {
	bw := bufio.NewWriter(w)
	f := t.Fabric
	for _, sw := range t.sortedSwitches() {
		cabled := func(p int) bool {
			_, ok := f.Peer(fabric.PortRef{Node: sw, Port: p})
			return ok
		}
		writeSL2VL(bw, t, sw, f.Node(sw).Ports, cabled, func(p int) int { return p })
	}
	return bw.Flush()
}

// writeSL2VL writes the -d lines of switch sw with ports 1..n, for every
// cabled out port and every cabled in port or 0; real maps a listed port
// to the real port whose SL2VL it carries.
func writeSL2VL(bw *bufio.Writer, t *Tables, sw fabric.NodeID, n int, cabled func(int) bool, real func(int) int) {
	g := t.Fabric.Node(sw).GUID.String()
	line := make([]byte, 0, 80)
	for out := 1; out <= n; out++ {
		if !cabled(out) {
			continue
		}
		for in := 0; in <= n; in++ {
			if in == out || (in != 0 && !cabled(in)) {
				continue
			}
			line = append(append(line[:0], g...), ' ')
			line = strconv.AppendInt(line, int64(in), 10)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(out), 10)
			ri, ro := real(in), real(out)
			for sl := uint8(0); sl < 16; sl += 2 {
				line = append(line, ' ', '0', 'x', hexDigit(int(t.SL2VL(sw, ri, ro, sl))), hexDigit(int(t.SL2VL(sw, ri, ro, sl+1))))
			}
			bw.Write(append(line, '\n'))
		}
	}
}

func (t *Tables) sortedSwitches() []fabric.NodeID {
	sw := t.Switches()
	sort.Slice(sw, func(i, j int) bool { return t.Fabric.Node(sw[i]).GUID < t.Fabric.Node(sw[j]).GUID })
	return sw
}
