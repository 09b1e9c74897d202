package verify

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"

	"slimroute/fabric"
	"slimroute/lft"
)

// chunk is how many DLIDs are walked as one unit of work, at least: a
// unit ends where the DLIDs delivered through one switch end (see
// chunkBySwitch), so that a switch's DLIDs with the same walks meet in one
// unit. The units depend on the tables alone, so which DLIDs are found to
// repeat an earlier one (and so Report.Walks) does not depend on the
// number of workers.
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

// found is a problem met on the walks toward one DLID.
type found struct {
	dlid lft.LID
	text string
}

// walkAll walks every unit of dlids (bounds[i]:bounds[i+1]) on up to
// workers goroutines and merges what they found: sets by union, problems
// in DLID order.
func walkAll(t *lft.Tables, lay *layout, vls *vlTables, groups []sourceGroup, dlids []lft.LID, bounds []int, workers int) walked {
	units := len(bounds) - 1
	workers = max(1, min(workers, units))
	each := make([]walked, workers)
	problems := make([][]found, units)
	walks := make([]int, units)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range each {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := newWalker(t, lay, vls, groups, &each[w])
			for c := int(next.Add(1) - 1); c < units; c = int(next.Add(1) - 1) {
				walks[c], problems[c] = wk.walkChunk(dlids[bounds[c]:bounds[c+1]], bounds[c])
			}
		}()
	}
	wg.Wait()
	res := each[0]
	for _, x := range each[1:] {
		res.edges.merge(x.edges)
		for i, u := range x.used {
			res.used[i] = res.used[i] || u
		}
		res.vls |= x.vls
	}
	var all []found
	for c := range problems {
		res.walks += walks[c]
		all = append(all, problems[c]...)
	}
	slices.SortStableFunc(all, func(a, b found) int { return int(a.dlid) - int(b.dlid) })
	for _, p := range all {
		res.problems = append(res.problems, p.text)
	}
	return res
}

// chunkBySwitch orders dlids by the switch that delivers them (the
// owner's switch, or the switch whose cable leads to the owner; DLIDs of
// uncabled ports first), in LID order within a switch, and cuts the order
// into units of work: a unit ends with a switch's last DLID once it holds
// chunk DLIDs, or anywhere at 4 × chunk.
func chunkBySwitch(lay *layout, t *lft.Tables, dlids []lft.LID) ([]lft.LID, []int) {
	via := func(lid lft.LID) int32 {
		owner, _, _ := t.LIDs().Owner(lid)
		if owner.Port.Port == 0 {
			return lay.swIndex[owner.Port.Node]
		}
		if at := lay.peerOf(owner.Port); at.Node >= 0 {
			return lay.swIndex[at.Node]
		}
		return -1
	}
	type keyed struct {
		sw  int32
		lid lft.LID
	}
	order := make([]keyed, len(dlids))
	for i, lid := range dlids {
		order[i] = keyed{via(lid), lid}
	}
	slices.SortFunc(order, func(a, b keyed) int {
		if a.sw != b.sw {
			return int(a.sw) - int(b.sw)
		}
		return int(a.lid) - int(b.lid)
	})
	out := make([]lft.LID, len(order))
	bounds := []int{0}
	for i, k := range order {
		out[i] = k.lid
		size := i + 1 - bounds[len(bounds)-1]
		last := i+1 == len(order) || order[i+1].sw != k.sw
		if i+1 == len(order) || (last && size >= chunk) || size >= 4*chunk {
			bounds = append(bounds, i+1)
		}
	}
	return out, bounds
}

// passMark says which walks passed a (channel, SL): the epoch of the
// DLID whose walks passed it, the VLs they took on it toward that DLID,
// and the walk that passed it last.
type passMark struct {
	done, walk uint32
	vls        uint16
}

// walker is one worker's state: its share of the results, and the memo of
// the walks toward the current DLID.
type walker struct {
	t      *lft.Tables
	f      *fabric.Fabric
	lay    *layout
	groups []sourceGroup
	out    *walked
	vls    *vlTables
	passed []passMark // per (channel, SL)
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
	slCols     []uint8 // the chunk's path SLs, DLID-major: per group its SL
	sig, other []byte  // signatures (see signature)
}

func newWalker(t *lft.Tables, lay *layout, vls *vlTables, groups []sourceGroup, out *walked) *walker {
	C := lay.channels * 16
	out.edges, out.used = newEdgeSet(C, (lay.maxPorts+1)*16), make([]bool, C)
	return &walker{t: t, f: t.Fabric(), lay: lay, vls: vls, groups: groups, out: out, arriveSeen: make([]uint32, (lay.maxPorts+1)*16),
		passed:  make([]passMark, C),
		reached: make([]uint32, len(lay.switches)), onWay: make([]uint32, len(lay.switches))}
}

// walkChunk walks the DLIDs of one chunk, the first of which is number
// first of all DLIDs, and returns how many walks it made and its first
// problems.
func (w *walker) walkChunk(part []lft.LID, first int) (int, []found) {
	S := len(w.lay.switches)
	if need := len(part) * S; len(w.cols) < need {
		w.cols = make([]uint8, need)
	}
	for j, sw := range w.lay.switches {
		for i, dlid := range part {
			w.cols[i*S+j] = w.t.Port(sw, dlid)
		}
	}
	G := len(w.groups)
	if need := len(part) * G; len(w.slCols) < need {
		w.slCols = make([]uint8, need)
	}
	for gi, g := range w.groups {
		for i, dlid := range part {
			w.slCols[i*G+gi] = w.t.ClassSL(g.slClass, dlid) & 15
		}
	}
	// per hash of a signature: the DLIDs (index in part) walked with it,
	// and their arrivals; a hit is confirmed by comparing signatures
	seen := map[uint64][]walkedDLID{}
	walks := 0
	var problems []found
	problem := func(dlid lft.LID, p string) {
		if p != "" && len(problems) < maxProblems {
			problems = append(problems, found{dlid, p})
		}
	}
	for i, dlid := range part {
		col := w.cols[i*S : (i+1)*S]
		owner, _, _ := w.t.LIDs().Owner(dlid)
		dst := owner.Port
		sls := w.slCols[i*G : (i+1)*G]
		w.sig = w.signature(w.sig, col, dst, sls)
		h := maphash.Bytes(sigSeed, w.sig)
		if arrive, dup := w.walkedBefore(seen[h], part); dup {
			problem(dlid, w.delivery(arrive, dst, dlid))
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
			if p := w.follow(&w.groups[gi], col, dst, dlid, sls[gi], uint32(first+i+1)); p != "" {
				clean = false
				problem(dlid, p)
			}
		}
		seen[h] = append(seen[h], walkedDLID{i, slices.Clone(w.arrive)})
		if clean && len(problems) < maxProblems {
			problem(dlid, w.fromSwitches(col, dst, dlid, uint32(first+i+1)))
		}
	}
	return walks, problems
}

// walkedDLID is a DLID of a unit that was walked (its index in the unit)
// and where its walks arrived (see arrived).
type walkedDLID struct {
	i      int
	arrive []int32
}

// sigSeed seeds the signatures' hashes (they only pick candidates).
var sigSeed = maphash.MakeSeed()

// walkedBefore returns the arrivals of the DLID among cands whose
// signature is w.sig, if there is one: each candidate's signature is
// recomputed from the unit's columns (see walkChunk) and compared.
func (w *walker) walkedBefore(cands []walkedDLID, part []lft.LID) ([]int32, bool) {
	if len(cands) == 0 {
		return nil, false
	}
	S, G := len(w.lay.switches), len(w.groups)
	for _, c := range cands {
		owner, _, _ := w.t.LIDs().Owner(part[c.i])
		w.other = w.signature(w.other, w.cols[c.i*S:(c.i+1)*S], owner.Port, w.slCols[c.i*G:(c.i+1)*G])
		if bytes.Equal(w.other, w.sig) {
			return c.arrive, true
		}
	}
	return nil, false
}

// signature writes into buf, and returns, what the walks toward a DLID
// owned by dst depend on: each switch's entry (col) — with "deliver to dlid's owner" as one
// value, the port it takes to do so aside — and each group's SL (sls). A
// DLID with the signature of an earlier one (the LIDs of a switch's HCAs,
// mostly) adds nothing new. Only one switch can deliver to dst: its own
// switch, or the switch its cable ends in.
func (w *walker) signature(buf []byte, col []uint8, dst fabric.PortRef, sls []uint8) []byte {
	sig := append(buf[:0], col...)
	home, port := dst.Node, uint8(0)
	if dst.Port != 0 {
		at := w.lay.peerOf(dst)
		home, port = at.Node, uint8(at.Port)
	}
	if home >= 0 {
		if j := w.lay.swIndex[home]; j >= 0 && col[j] == port {
			sig[j] = 0xFE
		}
	}
	return append(sig, sls...)
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
		vl := w.vls.of(lay, at, out, sl)
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
		mark := &w.passed[ch*16+int(sl)]
		if mark.walk == w.walk {
			return fmt.Sprintf("LID 0x%04x from %s loops (seen at %s port %d)", dlid, f.PortString(src), f.Name(at.Node), out)
		}
		mark.walk = w.walk
		switch {
		case mark.done != epoch:
			mark.done, mark.vls = epoch, 1<<vl
		case mark.vls&(1<<vl) != 0:
			return "" // the rest of this path is known
		default:
			// the channels ahead are known, but not the dependency
			// from this VL: one more hop records it
			mark.vls |= 1 << vl
		}
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
		if vl := w.vls.of(w.lay, fabric.PortRef{Node: at.Node, Port: in}, at.Port, sl); vl >= 15 {
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
