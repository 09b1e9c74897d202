package deadlock

import (
	"fmt"
	"math/bits"
	"runtime"
	"strings"
	"sync"

	"slimroute/fabric"
)

// PortLIDs is the LID range Base .. Base+2^LMC−1 of an HCA port or of a
// switch's port 0.
type PortLIDs struct {
	Port fabric.PortRef
	Base uint16
	LMC  uint8
}

// Program is what a subnet manager programs into a fabric, as far as
// reachability and deadlock go. Verify reads nothing else, so it judges
// slimroute's tables, OpenSM's dumps or anything in between alike.
type Program struct {
	Fabric *fabric.Fabric
	LIDs   []PortLIDs
	// LFT returns switch sw's egress port for LID lid (0xFF: none).
	LFT func(sw fabric.NodeID, lid uint16) uint8
	// SL returns the service level of packets from HCA port src, sent
	// from its LID slid to dlid (the path SL the SA hands out).
	SL func(src fabric.PortRef, slid, dlid uint16) uint8
	// SL2VL returns the VL switch sw puts a packet on that arrived on port
	// in and leaves on port out with service level sl.
	SL2VL func(sw fabric.NodeID, in, out int, sl uint8) uint8
	// SLKey, when set, promises that HCA ports with equal keys get equal
	// SLs from SL for every LID offset and DLID (slimroute's SLs depend
	// only on the source's switch). Verify then asks one port per key and
	// entry switch, which makes it fast on large fabrics; it checks the
	// promise outright when sources × DLIDs is at most 2^22. nil: every
	// port is asked.
	SLKey func(src fabric.PortRef) int
}

// Report is the verdict of Verify.
type Report struct {
	Sources      int `json:"sources"`      // HCA ports
	DLIDs        int `json:"dlids"`        // destination LIDs
	Walks        int `json:"walks"`        // (source group, SL, DLID) paths followed (see Verify)
	Channels     int `json:"channels"`     // (channel, VL) pairs in use
	Dependencies int `json:"dependencies"` // CDG edges
	VLs          int `json:"vls"`          // distinct VLs on inter-switch channels
	// Cycle is one cycle of the CDG, nil when there is none.
	Cycle []CycleHop `json:"cycle,omitempty"`
}

// CycleHop is one channel of a CDG cycle: leaving Switch on Port on VL.
type CycleHop struct {
	Switch string `json:"switch"`
	Port   int    `json:"port"`
	VL     uint8  `json:"vl"`
}

// Acyclic reports whether the channel dependency graph has no cycle.
func (r *Report) Acyclic() bool { return r.Cycle == nil }

// CycleString renders the cycle as "sw-a[3] VL0 -> sw-b[7] VL0 -> … -> sw-a[3] VL0".
func (r *Report) CycleString() string {
	if r.Cycle == nil {
		return ""
	}
	parts := make([]string, 0, len(r.Cycle)+1)
	for _, h := range append(r.Cycle, r.Cycle[0]) {
		parts = append(parts, fmt.Sprintf("%s[%d] VL%d", h.Switch, h.Port, h.VL))
	}
	return strings.Join(parts, " -> ")
}

// Verify follows every destination LID from every HCA port, with every SL
// the port's LIDs use toward it, through the forwarding tables; it fails if
// a LID is unreachable or a path loops. Each hop out of a switch onto
// another switch occupies the channel (switch, out port, VL), and
// consecutive channels of a path form a dependency; the report says
// whether the resulting CDG has a cycle, and shows one if so.
//
// Sources that enter the fabric alike are followed once: the same SLs
// (equal SLKey), the same entry switch, and entry ports the switch's SL2VL
// table treats the same. That is exact, not a sample: such sources take
// the same channels on the same VLs to every LID.
func Verify(p Program) (*Report, error) {
	f := p.Fabric
	N := f.NumNodes()
	// dense port tables: per node, ports 0..n; channel ids of switch ports
	pOff := make([]int, N+1)
	chOff := make([]int, N+1)
	var switches []fabric.NodeID
	swIndex := make([]int32, N) // node -> index in switches, -1 for an HCA
	maxPorts := 0               // of a switch
	for i := 0; i < N; i++ {
		n := f.Node(fabric.NodeID(i))
		pOff[i+1] = pOff[i] + n.Ports + 1
		w := 0
		swIndex[i] = -1
		if n.Kind == fabric.Switch {
			w = n.Ports + 1
			swIndex[i] = int32(len(switches))
			switches = append(switches, fabric.NodeID(i))
			maxPorts = max(maxPorts, n.Ports)
		}
		chOff[i+1] = chOff[i] + w
	}
	C := chOff[N]
	peer := make([]fabric.PortRef, pOff[N])
	for i := range peer {
		peer[i].Node = -1
	}
	for i := 0; i < N; i++ {
		for port := 0; port <= f.Node(fabric.NodeID(i)).Ports; port++ {
			if q, ok := f.Peer(fabric.PortRef{Node: fabric.NodeID(i), Port: port}); ok {
				peer[pOff[i]+port] = q
			}
		}
	}
	top := 0
	for _, pl := range p.LIDs {
		top = max(top, int(pl.Base)+1<<pl.LMC-1)
	}
	owner := make([]int32, top+1) // LID -> index in p.LIDs
	nlids := 0
	for i, pl := range p.LIDs {
		for off := 0; off < 1<<pl.LMC; off++ {
			owner[int(pl.Base)+off] = int32(i)
			nlids++
		}
	}
	groups, problems := groupSources(p, peer, pOff, swIndex)
	rep := &Report{DLIDs: nlids}
	for _, g := range groups {
		rep.Sources += len(g.members)
	}
	if len(problems) > 0 {
		return rep, fmt.Errorf("the forwarding tables are broken: %s", strings.Join(problems, "; "))
	}
	dlids := make([]uint16, 0, len(owner))
	for _, pl := range p.LIDs {
		for off := 0; off < 1<<pl.LMC; off++ {
			dlids = append(dlids, pl.Base+uint16(off))
		}
	}
	// the promise of SLKey is checked outright where that is cheap
	if p.SLKey != nil && rep.Sources*len(dlids) <= 1<<22 {
		if err := checkSLKey(p, groups, dlids); err != nil {
			return rep, err
		}
	}
	// Destination LIDs are independent: each worker follows a contiguous
	// share of them with its own memo, and the results are merged — sets
	// by union, problems in share order — so the report does not depend on
	// the number of workers.
	type share struct {
		edges    edgeSet
		used     []bool
		vls      uint16
		walks    int
		problems []string
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, len(dlids)/64))
	shares := make([]share, workers)
	var wg sync.WaitGroup
	for w := range shares {
		wg.Add(1)
		go func(sh *share, part []uint16, first int) {
			defer wg.Done()
			sh.edges, sh.used = newEdgeSet(C*16, (maxPorts+1)*16), make([]bool, C*16)
			done := make([]uint32, C*16) // (arrival channel, SL) finished for the current DLID
			inWalk := make([]uint32, C*16)
			var walk uint32
			// the LFT entries of a chunk of DLIDs, switch by switch
			// contiguous per DLID: a walk's lookups stay in cache
			const chunk = 256
			cols := make([]uint8, chunk*len(switches))
			sls := make([]uint16, len(groups)) // per group: the SLs its LIDs use toward the DLID
			var sig []byte
			seen := map[string]struct{}{}
			problem := func(format string, args ...any) {
				if len(sh.problems) < 10 {
					sh.problems = append(sh.problems, fmt.Sprintf(format, args...))
				}
			}
			for di, dlid := range part {
				if di%chunk == 0 {
					fillColumns(p, switches, part[di:min(di+chunk, len(part))], cols)
				}
				col := cols[(di%chunk)*len(switches):]
				dst := p.LIDs[owner[dlid]].Port
				epoch := uint32(first + di + 1)
				// What the walks toward dlid do is fixed by each switch's
				// entry — with "deliver to dlid's owner" as one value, the
				// port it takes to do so aside — and by the SLs each group
				// uses. A DLID that repeats an earlier one in both (the
				// LIDs of a switch's HCAs, mostly) adds nothing new.
				sig = sig[:0]
				for j, sw := range switches {
					e := col[j]
					switch {
					case e == 0 && dst == fabric.PortRef{Node: sw}:
						e = 0xFE
					case e != 0 && e != 0xFF && int(e) <= f.Ports(sw) && peer[pOff[sw]+int(e)] == dst:
						e = 0xFE
					}
					sig = append(sig, e)
				}
				for gi := range groups {
					g := &groups[gi]
					sls[gi] = 0
					if len(g.members) == 1 && p.LIDs[g.members[0]].Port == dst {
						continue // a port does not send to itself
					}
					src := p.LIDs[g.members[0]]
					for off := 0; off < 1<<src.LMC; off++ {
						sls[gi] |= 1 << (p.SL(src.Port, src.Base+uint16(off), dlid) & 15)
					}
					sig = append(sig, byte(sls[gi]), byte(sls[gi]>>8))
				}
				if _, ok := seen[string(sig)]; ok {
					continue
				}
				seen[string(sig)] = struct{}{}
				for gi := range groups {
					g := &groups[gi]
					src := p.LIDs[g.members[0]]
					for sl := uint8(0); sl < 16; sl++ {
						if sls[gi]&(1<<sl) == 0 {
							continue
						}
						sh.walks++
						walk++
						at := g.entry
						prev := -1
						for steps := 0; ; steps++ {
							if at == dst {
								break // delivered to the HCA port
							}
							n := fabric.Node{Name: f.Name(at.Node), Ports: f.Ports(at.Node)} // per hop: no copy of the Attrs map
							if swIndex[at.Node] < 0 {
								problem("LID 0x%04x from %s is delivered to %s, which does not own it", dlid, f.PortString(src.Port), f.PortString(at))
								break
							}
							if steps > N {
								problem("LID 0x%04x from %s loops (seen at %s)", dlid, f.PortString(src.Port), n.Name)
								break
							}
							out := int(col[swIndex[at.Node]])
							if out == 0 {
								if dst != (fabric.PortRef{Node: at.Node}) {
									problem("%s sends LID 0x%04x to its own port 0, but the LID is not its own", n.Name, dlid)
								}
								break
							}
							if out == 0xFF {
								problem("%s has no route to LID 0x%04x (%s), needed from %s", n.Name, dlid, f.PortString(dst), f.PortString(src.Port))
								break
							}
							if out > n.Ports || peer[pOff[at.Node]+out].Node < 0 {
								problem("%s forwards LID 0x%04x to port %d, which has no cable", n.Name, dlid, out)
								break
							}
							next := peer[pOff[at.Node]+out]
							if swIndex[next.Node] < 0 {
								at = next // ejection: no inter-switch channel
								continue
							}
							vl := p.SL2VL(at.Node, at.Port, out, sl)
							if vl > 15 {
								problem("%s maps SL %d from port %d to port %d onto VL %d", n.Name, sl, at.Port, out, vl)
								break
							}
							node := (chOff[at.Node]+out)*16 + int(vl)
							sh.used[node] = true
							sh.vls |= 1 << vl
							if prev >= 0 {
								sh.edges.add(int32(prev), int32(node), int32(chOff[at.Node]*16))
							}
							prev = node
							state := (chOff[at.Node]+out)*16 + int(sl)
							if inWalk[state] == walk {
								problem("LID 0x%04x from %s loops (seen at %s port %d)", dlid, f.PortString(src.Port), n.Name, out)
								break
							}
							inWalk[state] = walk
							if done[state] == epoch {
								break // the rest of this path is known
							}
							done[state] = epoch
							at = next
						}
					}
				}
			}
		}(&shares[w], dlids[w*len(dlids)/workers:(w+1)*len(dlids)/workers], w*len(dlids)/workers)
	}
	wg.Wait()
	edges := shares[0].edges
	used := make([]bool, C*16)
	var vls uint16
	for i, sh := range shares {
		if i > 0 {
			edges.merge(sh.edges)
		}
		for i, u := range sh.used {
			used[i] = used[i] || u
		}
		vls |= sh.vls
		rep.Walks += sh.walks
		problems = append(problems, sh.problems...)
	}
	if len(problems) > 10 {
		problems = problems[:10]
	}
	if len(problems) > 0 {
		return rep, fmt.Errorf("the forwarding tables are broken: %s", strings.Join(problems, "; "))
	}
	for _, u := range used {
		if u {
			rep.Channels++
		}
	}
	list := edges.list()
	rep.Dependencies, rep.VLs = len(list), bits.OnesCount16(vls)
	cycle := newDigraph(C*16, list).findCycle()
	for _, node := range cycle {
		ch, vl := int(node)/16, uint8(node%16)
		sw := 0
		for chOff[sw+1] <= ch {
			sw++
		}
		rep.Cycle = append(rep.Cycle, CycleHop{Switch: f.Node(fabric.NodeID(sw)).Name, Port: ch - chOff[sw], VL: vl})
	}
	return rep, nil
}

// fillColumns writes the LFT entries of dlids into cols, DLID-major: entry
// (dlid i, switch j) at i*len(switches)+j.
func fillColumns(p Program, switches []fabric.NodeID, dlids []uint16, cols []uint8) {
	S := len(switches)
	for j, sw := range switches {
		for i, dlid := range dlids {
			cols[i*S+j] = p.LFT(sw, dlid)
		}
	}
}

// sourceGroup is a set of HCA ports (indices into Program.LIDs) that
// Verify follows as one: the first member stands for all.
type sourceGroup struct {
	entry   fabric.PortRef // the switch port the members' cables end in (of the first member)
	members []int
}

// groupSources puts the HCA ports holding LIDs into groups: same SLKey
// (every port its own key without one), same entry switch, and entry ports
// with identical SL2VL rows on that switch. Groups come in order of their
// first member.
func groupSources(p Program, peer []fabric.PortRef, pOff []int, swIndex []int32) ([]sourceGroup, []string) {
	f := p.Fabric
	var groups []sourceGroup
	var problems []string
	type gkey struct {
		key   int
		sw    fabric.NodeID
		class int
	}
	index := map[gkey]int{}
	// per switch: representative entry ports of its SL2VL classes
	classes := map[fabric.NodeID][]int{}
	row := func(sw fabric.NodeID, in int) []uint8 {
		n := f.Node(sw).Ports
		r := make([]uint8, 0, n*16)
		for out := 1; out <= n; out++ {
			for sl := uint8(0); sl < 16; sl++ {
				r = append(r, p.SL2VL(sw, in, out, sl))
			}
		}
		return r
	}
	rows := map[fabric.PortRef][]uint8{}
	for i, pl := range p.LIDs {
		if pl.Port.Port == 0 {
			continue // a switch's own LID: a destination only
		}
		at := fabric.PortRef{Node: -1}
		if int(pl.Port.Node) < len(pOff)-1 && pl.Port.Port < pOff[pl.Port.Node+1]-pOff[pl.Port.Node] {
			at = peer[pOff[pl.Port.Node]+pl.Port.Port]
		}
		if at.Node < 0 {
			if len(problems) < 10 {
				problems = append(problems, fmt.Sprintf("%s is not cabled", f.PortString(pl.Port)))
			}
			continue
		}
		key := i
		if p.SLKey != nil {
			key = p.SLKey(pl.Port)
		}
		class := -1
		if p.SLKey != nil && swIndex[at.Node] >= 0 {
			r, ok := rows[at]
			if !ok {
				r = row(at.Node, at.Port)
				rows[at] = r
			}
			for c, in := range classes[at.Node] {
				if string(rows[fabric.PortRef{Node: at.Node, Port: in}]) == string(r) {
					class = c
					break
				}
			}
			if class < 0 {
				class = len(classes[at.Node])
				classes[at.Node] = append(classes[at.Node], at.Port)
			}
		}
		k := gkey{key, at.Node, class}
		if class < 0 {
			k.class = -1 - at.Port
		}
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, sourceGroup{entry: at})
		}
		groups[g].members = append(groups[g].members, i)
	}
	return groups, problems
}

// checkSLKey asks every member of every group for its SLs to every DLID
// and fails where they differ from the group's first member's.
func checkSLKey(p Program, groups []sourceGroup, dlids []uint16) error {
	for _, g := range groups {
		a := p.LIDs[g.members[0]]
		for _, m := range g.members[1:] {
			b := p.LIDs[m]
			for _, dlid := range dlids {
				for off := 0; off < 1<<min(a.LMC, b.LMC); off++ {
					if x, y := p.SL(a.Port, a.Base+uint16(off), dlid), p.SL(b.Port, b.Base+uint16(off), dlid); x != y {
						return fmt.Errorf("SLKey puts %s and %s together, but toward LID 0x%04x their LID offset %d has SL %d and %d",
							p.Fabric.PortString(a.Port), p.Fabric.PortString(b.Port), dlid, off, x, y)
					}
				}
			}
		}
	}
	return nil
}

// edgeSet is a set of CDG edges between (channel, VL) nodes. An edge
// leaves a node a = (channel, VL) for a node b on a channel of the switch
// that channel leads to, so per a the targets form one short bit row,
// indexed from that switch's first node and allocated when a gets its
// first edge.
type edgeSet struct {
	width int        // bits per row: the most ports of a switch, plus 1, times 16 VLs
	rows  [][]uint64 // per node a
	base  []int32    // per node a: node number of bit 0 of its row
}

func newEdgeSet(n, width int) edgeSet {
	return edgeSet{width: width, rows: make([][]uint64, n), base: make([]int32, n)}
}

// add records a → b; base is the first node of b's switch.
func (e *edgeSet) add(a, b, base int32) {
	row := e.rows[a]
	if row == nil {
		row = make([]uint64, (e.width+63)/64)
		e.rows[a], e.base[a] = row, base
	}
	i := b - base
	row[i/64] |= 1 << (i % 64)
}

func (e *edgeSet) merge(o edgeSet) {
	for a, row := range o.rows {
		if row == nil {
			continue
		}
		if e.rows[a] == nil {
			e.rows[a], e.base[a] = make([]uint64, len(row)), o.base[a]
		}
		for i, w := range row {
			e.rows[a][i] |= w
		}
	}
}

// list returns the edges ordered by source node, then target.
func (e *edgeSet) list() [][2]int32 {
	var out [][2]int32
	for a, row := range e.rows {
		for i, w := range row {
			for w != 0 {
				j := int32(i*64 + bits.TrailingZeros64(w))
				out = append(out, [2]int32{int32(a), e.base[a] + j})
				w &= w - 1
			}
		}
	}
	return out
}
