package verify

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"slimroute/fabric"
	"slimroute/lft"
)

// chunk is how many DLIDs are walked as one unit of work. It is fixed, so
// which DLIDs are found to repeat an earlier one (and so Report.Walks)
// does not depend on the number of workers.
const chunk = 256

// walked is what the walks found: the CDG, the channels and VLs in use,
// and the problems in DLID order.
type walked struct {
	edges    edgeSet
	used     []bool
	vls      uint16
	walks    int
	problems []string
}

// walkAll walks every chunk of dlids on up to workers goroutines and
// merges what they found: sets by union, problems in chunk order.
func walkAll(t *lft.Tables, lay *layout, groups []sourceGroup, dlids []lft.LID, workers int) walked {
	chunks := (len(dlids) + chunk - 1) / chunk
	workers = max(1, min(workers, chunks))
	found := make([]walked, workers)
	problems := make([][]string, chunks)
	walks := make([]int, chunks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range found {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := newWalker(t, lay, groups, &found[w])
			for c := int(next.Add(1) - 1); c < chunks; c = int(next.Add(1) - 1) {
				part := dlids[c*chunk : min((c+1)*chunk, len(dlids))]
				walks[c], problems[c] = wk.walkChunk(part, c*chunk)
			}
		}()
	}
	wg.Wait()
	res := found[0]
	for _, x := range found[1:] {
		res.edges.merge(x.edges)
		for i, u := range x.used {
			res.used[i] = res.used[i] || u
		}
		res.vls |= x.vls
	}
	for c := range problems {
		res.walks += walks[c]
		res.problems = append(res.problems, problems[c]...)
	}
	return res
}

// walker is one worker's state: its share of the results, and the memo of
// the walks toward the current DLID.
type walker struct {
	t      *lft.Tables
	f      *fabric.Fabric
	lay    *layout
	groups []sourceGroup
	out    *walked
	done   []uint32 // per (channel, SL): epoch of the DLID whose walks passed it
	inWalk []uint32 // per (channel, SL): the walk that passed it
	walk   uint32
	// per switch: epoch of the DLID it is known to reach, and the walk
	// from a switch that passed it (fromSwitches)
	reached, onWay []uint32
	stack          []int32
	cols           []uint8 // the chunk's LFT entries, DLID-major
	// the (in-port, SL) pairs the walks toward the current DLID arrive on
	// at its owner's switch, in-port*16 + SL, and their epochs
	arrive     []int32
	arriveSeen []uint32
	sls        []uint8 // per group: its SL toward the current DLID
	sig        []byte
}

func newWalker(t *lft.Tables, lay *layout, groups []sourceGroup, out *walked) *walker {
	C := lay.channels * 16
	out.edges, out.used = newEdgeSet(C, (lay.maxPorts+1)*16), make([]bool, C)
	return &walker{t: t, f: t.Fabric(), lay: lay, groups: groups, out: out, arriveSeen: make([]uint32, (lay.maxPorts+1)*16),
		done: make([]uint32, C), inWalk: make([]uint32, C),
		reached: make([]uint32, len(lay.switches)), onWay: make([]uint32, len(lay.switches)),
		cols: make([]uint8, chunk*len(lay.switches)), sls: make([]uint8, len(groups))}
}

// walkChunk walks the DLIDs of one chunk, the first of which is number
// first of all DLIDs, and returns how many walks it made and its first
// problems.
func (w *walker) walkChunk(part []lft.LID, first int) (int, []string) {
	S := len(w.lay.switches)
	for j, sw := range w.lay.switches {
		for i, dlid := range part {
			w.cols[i*S+j] = w.t.Port(sw, dlid)
		}
	}
	seen := map[string][]int32{} // per signature: its DLID's arrivals
	walks := 0
	var problems []string
	for i, dlid := range part {
		col := w.cols[i*S : (i+1)*S]
		owner, _, _ := w.t.LIDs().Owner(dlid)
		dst := owner.Port
		if arrive, dup := seen[w.signature(col, dst, dlid)]; dup {
			if p := w.delivery(arrive, dst, dlid); p != "" && len(problems) < maxProblems {
				problems = append(problems, p)
			}
			continue
		}
		w.arrive = w.arrive[:0]
		clean := true
		for gi := range w.groups {
			if len(w.groups[gi].members) == 1 && w.groups[gi].members[0] == dst {
				continue // a port does not send to itself
			}
			walks++
			w.walk++
			if p := w.follow(&w.groups[gi], col, dst, dlid, w.sls[gi], uint32(first+i+1)); p != "" {
				clean = false
				if len(problems) < maxProblems {
					problems = append(problems, p)
				}
			}
		}
		seen[string(w.sig)] = slices.Clone(w.arrive)
		if clean && len(problems) < maxProblems {
			if p := w.fromSwitches(col, dst, dlid, uint32(first+i+1)); p != "" {
				problems = append(problems, p)
			}
		}
	}
	return walks, problems
}

// signature fills w.sig with what the walks toward dlid depend on: each
// switch's entry — with "deliver to dlid's owner" as one value, the port
// it takes to do so aside — and each group's SL. A DLID with the signature
// of an earlier one (the LIDs of a switch's HCAs, mostly) adds nothing new.
func (w *walker) signature(col []uint8, dst fabric.PortRef, dlid lft.LID) string {
	w.sig = w.sig[:0]
	for j, sw := range w.lay.switches {
		e := col[j]
		switch {
		case e == 0 && dst == fabric.PortRef{Node: sw}:
			e = 0xFE
		case e != 0 && e != lft.Drop && int(e) <= w.f.Ports(sw) && w.lay.peerOf(fabric.PortRef{Node: sw, Port: int(e)}) == dst:
			e = 0xFE
		}
		w.sig = append(w.sig, e)
	}
	for gi := range w.groups {
		w.sls[gi] = w.t.ClassSL(w.groups[gi].slClass, dlid) & 15
		w.sig = append(w.sig, w.sls[gi])
	}
	return string(w.sig)
}

// follow walks group g's path toward dlid on SL sl, recording channels and
// dependencies; epoch numbers the DLID. It returns a problem, or "".
func (w *walker) follow(g *sourceGroup, col []uint8, dst fabric.PortRef, dlid lft.LID, sl uint8, epoch uint32) string {
	f, lay := w.f, w.lay
	src := g.members[0]
	at, prev := g.entry, -1
	for steps := 0; ; steps++ {
		if at == dst {
			return "" // delivered to the HCA port
		}
		if lay.swIndex[at.Node] < 0 {
			return fmt.Sprintf("LID 0x%04x from %s is delivered to %s, which does not own it", dlid, f.PortString(src), f.PortString(at))
		}
		if steps > f.NumNodes() {
			return fmt.Sprintf("LID 0x%04x from %s loops (seen at %s)", dlid, f.PortString(src), f.Name(at.Node))
		}
		w.reached[lay.swIndex[at.Node]] = epoch // valid once every walk is clean (fromSwitches)
		out := int(col[lay.swIndex[at.Node]])
		next, home, p := w.forward(at.Node, out, dst, dlid)
		switch {
		case p != "" && out == lft.Drop:
			return fmt.Sprintf("%s, needed from %s", p, f.PortString(src))
		case p != "":
			return p
		case home:
			w.arrived(at.Port, sl, epoch)
			return ""
		}
		vl := w.t.SL2VL(at.Node, at.Port, out, sl)
		if vl >= 15 {
			return fmt.Sprintf("%s maps SL %d from port %d to port %d onto VL %d, toward LID 0x%04x from %s: %s", f.Name(at.Node), sl, at.Port, out, vl, dlid, f.PortString(src), vl15)
		}
		if lay.swIndex[next.Node] < 0 {
			w.arrived(at.Port, sl, epoch)
			at = next // ejection: no inter-switch channel
			continue
		}
		ch := lay.chOff[at.Node] + out
		node := ch*16 + int(vl)
		w.out.used[node] = true
		w.out.vls |= 1 << vl
		if prev >= 0 {
			w.out.edges.add(int32(prev), int32(node), int32(lay.chOff[at.Node]*16))
		}
		prev = node
		state := ch*16 + int(sl)
		if w.inWalk[state] == w.walk {
			return fmt.Sprintf("LID 0x%04x from %s loops (seen at %s port %d)", dlid, f.PortString(src), f.Name(at.Node), out)
		}
		w.inWalk[state] = w.walk
		if w.done[state] == epoch {
			return "" // the rest of this path is known
		}
		w.done[state] = epoch
		at = next
	}
}

// arrived records that a walk reached the owner's switch of the DLID of
// epoch on in-port in with SL sl.
func (w *walker) arrived(in int, sl uint8, epoch uint32) {
	if a := in*16 + int(sl); w.arriveSeen[a] != epoch {
		w.arriveSeen[a] = epoch
		w.arrive = append(w.arrive, int32(a))
	}
}

// delivery checks the last hop toward dlid of walks that arrive at its
// owner's switch as arrive lists (in-port*16 + SL): the walks of a DLID
// with the same signature, which differ from this one's only in the port
// they leave on. It returns a problem, or "".
func (w *walker) delivery(arrive []int32, dst fabric.PortRef, dlid lft.LID) string {
	if dst.Port == 0 {
		return "" // a switch's own LID: no last hop
	}
	at := w.lay.peerOf(dst)
	for _, a := range arrive {
		in, sl := int(a/16), uint8(a%16)
		if vl := w.t.SL2VL(at.Node, in, at.Port, sl); vl >= 15 {
			return fmt.Sprintf("%s maps SL %d from port %d to port %d onto VL %d, toward LID 0x%04x: %s", w.f.Name(at.Node), sl, in, at.Port, vl, dlid, vl15)
		}
	}
	return ""
}

// vl15 says what a data VL of 15 means.
const vl15 = "VL 15 carries only subnet management packets, so the switch drops this traffic (map the SL to a data VL)"

// forward returns where switch sw sends LID dlid (owned by dst) with LFT
// entry out: the port cabled to out, or home when sw owns the LID itself.
// problem, when not "", says why the entry is wrong.
func (w *walker) forward(sw fabric.NodeID, out int, dst fabric.PortRef, dlid lft.LID) (next fabric.PortRef, home bool, problem string) {
	switch {
	case out == 0 && dst != fabric.PortRef{Node: sw}:
		return next, false, fmt.Sprintf("%s sends LID 0x%04x to its own port 0, but the LID is not its own", w.f.Name(sw), dlid)
	case out == 0:
		return next, true, ""
	case out == lft.Drop:
		return next, false, fmt.Sprintf("%s has no route to LID 0x%04x (%s)", w.f.Name(sw), dlid, w.f.PortString(dst))
	}
	if next = w.lay.peerOf(fabric.PortRef{Node: sw, Port: out}); next.Node < 0 { // beyond its ports, or no cable
		return next, false, fmt.Sprintf("%s forwards LID 0x%04x to port %d, which has no cable", w.f.Name(sw), dlid, out)
	}
	return next, false, ""
}

// fromSwitches follows dlid from every switch: each must reach the LID's
// owner without a loop, whether or not an HCA's path crosses it — a
// switch's own traffic (traps, replies of its agents) is routed by its
// LFT, and OpenSM gives every switch an entry for every LID. epoch numbers
// the DLID. It returns the first problem, or "".
func (w *walker) fromSwitches(col []uint8, dst fabric.PortRef, dlid lft.LID, epoch uint32) string {
	f, lay := w.f, w.lay
	for start := range lay.switches {
		w.walk++
		w.stack = w.stack[:0]
		for x := int32(start); w.reached[x] != epoch; {
			if w.onWay[x] == w.walk {
				return fmt.Sprintf("LID 0x%04x from %s loops (seen at %s)", dlid, f.Name(lay.switches[start]), f.Name(lay.switches[x]))
			}
			w.onWay[x] = w.walk
			w.stack = append(w.stack, x)
			next, home, p := w.forward(lay.switches[x], int(col[x]), dst, dlid)
			if p != "" {
				return p
			}
			if home || next == dst {
				break
			}
			if lay.swIndex[next.Node] < 0 {
				return fmt.Sprintf("LID 0x%04x from %s is delivered to %s, which does not own it", dlid, f.Name(lay.switches[start]), f.PortString(next))
			}
			x = lay.swIndex[next.Node]
		}
		for _, x := range w.stack { // the whole way reaches it
			w.reached[x] = epoch
		}
	}
	return ""
}
