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
}

// Report is the verdict of Verify.
type Report struct {
	Sources      int `json:"sources"`      // HCA ports
	DLIDs        int `json:"dlids"`        // destination LIDs
	Walks        int `json:"walks"`        // (source, SL, DLID) paths followed
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
func Verify(p Program) (*Report, error) {
	f := p.Fabric
	// channel ids: per switch node, ports 1..n
	chOff := make([]int, f.NumNodes()+1)
	for i := range f.Nodes() {
		n := f.Node(fabric.NodeID(i))
		w := 0
		if n.Kind == fabric.Switch {
			w = n.Ports + 1
		}
		chOff[i+1] = chOff[i] + w
	}
	C := chOff[f.NumNodes()]
	top := 0
	for _, pl := range p.LIDs {
		top = max(top, int(pl.Base)+1<<pl.LMC-1)
	}
	owner := make([]int32, top+1) // LID -> index in p.LIDs
	var sources []int
	nlids := 0
	for i, pl := range p.LIDs {
		for off := 0; off < 1<<pl.LMC; off++ {
			owner[int(pl.Base)+off] = int32(i)
			nlids++
		}
		if pl.Port.Port != 0 {
			sources = append(sources, i)
		}
	}
	rep := &Report{Sources: len(sources), DLIDs: nlids}
	dlids := make([]uint16, 0, len(owner))
	for _, pl := range p.LIDs {
		for off := 0; off < 1<<pl.LMC; off++ {
			dlids = append(dlids, pl.Base+uint16(off))
		}
	}
	// Destination LIDs are independent: each worker follows a contiguous
	// share of them with its own memo, and the results are merged — sets
	// by union, problems in share order — so the report does not depend on
	// the number of workers.
	type share struct {
		edges    map[uint64]struct{}
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
			sh.edges, sh.used = map[uint64]struct{}{}, make([]bool, C*16)
			done := make([]uint32, C*16) // (arrival channel, SL) finished for the current DLID
			inWalk := make([]uint32, C*16)
			var walk uint32
			problem := func(format string, args ...any) {
				if len(sh.problems) < 10 {
					sh.problems = append(sh.problems, fmt.Sprintf(format, args...))
				}
			}
			for di, dlid := range part {
				dst := p.LIDs[owner[dlid]].Port
				epoch := uint32(first + di + 1)
				for _, si := range sources {
					src := p.LIDs[si]
					var sls uint16 // the SLs the source's LIDs use toward dlid
					for off := 0; off < 1<<src.LMC; off++ {
						sls |= 1 << (p.SL(src.Port, src.Base+uint16(off), dlid) & 15)
					}
					for sl := uint8(0); sl < 16; sl++ {
						if sls&(1<<sl) == 0 || src.Port == dst {
							continue
						}
						sh.walks++
						walk++
						at, ok := f.Peer(src.Port)
						if !ok {
							problem("%s is not cabled", f.PortString(src.Port))
							continue
						}
						prev := -1
						for steps := 0; ; steps++ {
							if at == dst {
								break // delivered to the HCA port
							}
							n := f.Node(at.Node)
							if n.Kind != fabric.Switch {
								problem("LID 0x%04x from %s is delivered to %s, which does not own it", dlid, f.PortString(src.Port), f.PortString(at))
								break
							}
							if steps > f.NumNodes() {
								problem("LID 0x%04x from %s loops (seen at %s)", dlid, f.PortString(src.Port), n.Name)
								break
							}
							out := int(p.LFT(at.Node, dlid))
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
							next, ok := f.Peer(fabric.PortRef{Node: at.Node, Port: out})
							if !ok {
								problem("%s forwards LID 0x%04x to port %d, which has no cable", n.Name, dlid, out)
								break
							}
							if f.Node(next.Node).Kind != fabric.Switch {
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
								sh.edges[uint64(prev)<<32|uint64(node)] = struct{}{}
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
	edges := map[uint64]struct{}{}
	used := make([]bool, C*16)
	var vls uint16
	var problems []string
	for _, sh := range shares {
		for e := range sh.edges {
			edges[e] = struct{}{}
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
	rep.Dependencies, rep.VLs = len(edges), bits.OnesCount16(vls)
	list := make([][2]int32, 0, len(edges))
	for e := range edges {
		list = append(list, [2]int32{int32(e >> 32), int32(uint32(e))})
	}
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
