// Package lft is the forwarding state a subnet manager programs: LIDs,
// linear forwarding tables (layer k at LID offset k under LMC), path SLs
// and SL-to-VL tables, as one value (Tables). Build makes it from a
// layered routing and its VL assignment; one file per text format reads
// and writes it: OpenSM's LFT dump (opensm.go), ibroute's output
// (ibroute.go), slimroute's path-SL file (pathsl.go), the SL2VL file
// (sl2vl.go), OpenSM's guid2lid cache (guid2lid.go) and ibdmchk's input
// files (ibdmchk.go); the two LFT listings (OpenSM's and ibroute's) share
// one reader and writer for their common layout (listing.go). It depends
// on package fabric alone.
package lft

import (
	"fmt"
	"maps"
	"math/bits"
	"sort"

	"slimroute/fabric"
)

// LID is an InfiniBand local identifier.
type LID uint16

// MaxUnicastLID is the highest unicast LID (0xC000 and up are multicast).
const MaxUnicastLID LID = 0xBFFF

// PortLIDs is the LID range of one port: Base .. Base+2^LMC−1.
type PortLIDs struct {
	Port fabric.PortRef // an HCA port, or a switch's port 0
	Base LID
	LMC  uint8
}

// Top returns the port's highest LID.
func (p PortLIDs) Top() LID { return p.Base + LID(1)<<p.LMC - 1 }

// LIDs is a LID plan for a fabric. It never changes once made; Ports
// returns a copy.
type LIDs struct {
	lmc    uint8      // of the HCA ports; switches use LMC 0
	ports  []PortLIDs // switches (port 0) first, then the cabled HCA ports, each in port-GUID order
	top    LID        // the highest LID in use
	byPort map[fabric.PortRef]int
	byLID  []int32 // LID -> index in ports, -1 when unused
}

// LMC returns the LMC of the HCA ports (switches use LMC 0).
func (l *LIDs) LMC() uint8 { return l.lmc }

// Ports lists every LID-holding port: switches (port 0) first, then the
// cabled HCA ports, each in port-GUID order. The slice is a copy.
func (l *LIDs) Ports() []PortLIDs { return append([]PortLIDs(nil), l.ports...) }

// NumPorts returns the number of LID-holding ports.
func (l *LIDs) NumPorts() int { return len(l.ports) }

// Top returns the highest LID in use.
func (l *LIDs) Top() LID { return l.top }

// LIDOptions configure AssignLIDs.
type LIDOptions struct {
	// LMC for the HCA ports (0..7): 2^LMC LIDs each.
	LMC int
	// LFTCap is the smallest linear forwarding table capacity of the
	// fabric's switches (LinearFDBCap); 0 means 49152, the full unicast
	// space. Every LID must fit below it.
	LFTCap int
	// FromFabric takes the LIDs recorded in the fabric (ibnetdiscover after
	// an SM ran, or a JSON fabric) instead of assigning new ones.
	FromFabric bool
	// Keep, when set, is the LIDs in force by port GUID (CacheOf, or a
	// guid2lid file): every port it holds keeps its LIDs (an HCA port only
	// at the same LMC), the LIDs of ports the fabric lacks stay reserved,
	// as OpenSM keeps its guid2lid cache, and new ports take the lowest
	// free LIDs. Ignored with FromFabric.
	Keep LIDCache
}

// AssignLIDs gives switch port 0s LIDs 1, 2, … in node GUID order and HCA
// ports blocks of 2^LMC aligned LIDs after them, in port GUID order. It
// fails when the fabric does not fit the unicast LID space or the switches'
// tables, saying how many LIDs it needs and which LMC would fit.
func AssignLIDs(f *fabric.Fabric, opts LIDOptions) (*LIDs, error) {
	if opts.LMC < 0 || opts.LMC > 7 {
		return nil, fmt.Errorf("lmc=%d: LMC is 0..7", opts.LMC)
	}
	limit := LID(MaxUnicastLID)
	if opts.LFTCap > 0 && opts.LFTCap-1 < int(limit) {
		limit = LID(opts.LFTCap - 1)
	}
	switches, hcas := lidPorts(f)
	if opts.FromFabric {
		return fromFabric(f, switches, hcas, uint8(opts.LMC), limit)
	}
	if opts.Keep != nil {
		return keepLIDs(f, switches, hcas, opts, limit)
	}
	if err := fits(len(switches), len(hcas), opts, limit); err != nil {
		return nil, err
	}
	l := &LIDs{lmc: uint8(opts.LMC)}
	next := LID(1)
	for _, p := range switches {
		l.ports = append(l.ports, PortLIDs{Port: p, Base: next})
		next++
	}
	step := LID(1) << opts.LMC
	next = LID(firstHCALID(len(switches), opts.LMC))
	for _, p := range hcas {
		l.ports = append(l.ports, PortLIDs{Port: p, Base: next, LMC: uint8(opts.LMC)})
		next += step
	}
	return l, l.index()
}

// topLID returns the highest LID AssignLIDs gives s switches and h HCA
// ports at LMC lmc: the switches take 1..s, the HCA ports aligned blocks
// of 2^lmc from the first multiple of 2^lmc after s.
func topLID(s, h, lmc int) int {
	if h == 0 {
		return s
	}
	return firstHCALID(s, lmc) + h<<lmc - 1
}

// firstHCALID is the base LID of the first HCA port's block: the first
// multiple of 2^lmc after the s switches' LIDs 1..s.
func firstHCALID(s, lmc int) int {
	step := 1 << lmc
	return (s + step) / step * step
}

// fits says, when s switches and h HCA ports at opts.LMC need a LID above
// limit, how many LIDs they need and what would fit: a smaller LMC, fewer
// endpoints, or larger tables.
func fits(s, h int, opts LIDOptions, limit LID) error {
	need := topLID(s, h, opts.LMC)
	if need <= int(limit) {
		return nil
	}
	fit := -1
	for l := opts.LMC - 1; l >= 0; l-- {
		if topLID(s, h, l) <= int(limit) {
			fit = l
			break
		}
	}
	maxEP := (int(limit) - firstHCALID(s, opts.LMC) + 1) / (1 << opts.LMC)
	msg := fmt.Sprintf("%d switches and %d endpoints at LMC %d need LIDs up to %d, but LIDs end at %d (unicast LIDs end at 0x%04X", s, h, opts.LMC, need, limit, MaxUnicastLID)
	capped := opts.LFTCap > 0 && int(limit) < int(MaxUnicastLID)
	if capped {
		msg += fmt.Sprintf("; the switches' tables hold %d", opts.LFTCap)
	}
	msg += ")"
	switch {
	case fit >= 0:
		msg += fmt.Sprintf(": use LMC %d (%d layers) or at most %d endpoints", fit, 1<<fit, max(maxEP, 0))
	case capped:
		msg += fmt.Sprintf(": even at LMC 0 they need tables of %d entries; check --lft-cap (the switches' LinearFDBCap)", topLID(s, h, 0)+1)
	default:
		msg += ": the fabric is too large for one subnet"
	}
	return fmt.Errorf("%s", msg)
}

// lidPorts lists the LID-holding ports: switch port 0s by node GUID, then
// cabled HCA ports by port GUID (ties by node and port).
func lidPorts(f *fabric.Fabric) (switches, hcas []fabric.PortRef) {
	for i := range f.Nodes() {
		id := fabric.NodeID(i)
		n := f.Node(id)
		if n.Kind == fabric.Switch {
			switches = append(switches, fabric.PortRef{Node: id})
			continue
		}
		for p := 1; p <= n.Ports; p++ {
			if _, ok := f.Peer(fabric.PortRef{Node: id, Port: p}); ok {
				hcas = append(hcas, fabric.PortRef{Node: id, Port: p})
			}
		}
	}
	guid := func(p fabric.PortRef) fabric.GUID { return f.PortGUID(p) }
	less := func(s []fabric.PortRef) func(i, j int) bool {
		return func(i, j int) bool {
			if a, b := guid(s[i]), guid(s[j]); a != b {
				return a < b
			}
			if s[i].Node != s[j].Node {
				return s[i].Node < s[j].Node
			}
			return s[i].Port < s[j].Port
		}
	}
	sort.SliceStable(switches, less(switches))
	sort.SliceStable(hcas, less(hcas))
	return switches, hcas
}

func fromFabric(f *fabric.Fabric, switches, hcas []fabric.PortRef, lmc uint8, limit LID) (*LIDs, error) {
	l := &LIDs{lmc: lmc}
	for _, p := range append(append([]fabric.PortRef(nil), switches...), hcas...) {
		a, ok := f.PortAttr(p)
		if !ok || a.LID == 0 {
			return nil, &FabricLIDsError{fmt.Sprintf("%s has no LID in the fabric description; discover the fabric after an SM ran (ibnetdiscover shows LIDs) or let slimroute assign LIDs", f.PortString(p))}
		}
		pl := PortLIDs{Port: p, Base: LID(a.LID)}
		from := fmt.Sprintf("the LMC for the layers; the description gives %s none or 0", f.PortString(p))
		if p.Port != 0 {
			pl.LMC = a.LMC
			if a.LMC == 0 {
				pl.LMC = lmc
			} else {
				from = "its lmc in the description"
			}
		}
		if pl.Base&(LID(1)<<pl.LMC-1) != 0 {
			fewer := "" // fewer layers help only when the layers set the LMC
			if a.LMC == 0 || p.Port == 0 {
				fewer = fmt.Sprintf(", route at most %d layers (--layers %d: its LID is aligned to that many)", 1<<bits.TrailingZeros16(uint16(pl.Base)), 1<<bits.TrailingZeros16(uint16(pl.Base)))
			}
			return nil, &FabricLIDsError{fmt.Sprintf("%s: LID 0x%04x is not aligned to LMC %d (%s): have the SM assign LIDs with LMC %d (OpenSM: -l %d) and discover again%s, or let slimroute assign LIDs (leave out --lids-from-fabric)",
				f.PortString(p), pl.Base, pl.LMC, from, pl.LMC, pl.LMC, fewer)}
		}
		if pl.Top() > limit {
			return nil, &FabricLIDsError{fmt.Sprintf("%s: LID 0x%04x is beyond the usable LIDs (up to 0x%04x)", f.PortString(p), pl.Top(), limit)}
		}
		l.ports = append(l.ports, pl)
	}
	if err := l.index(); err != nil {
		if s, ok := err.(*sharedLIDError); ok {
			a, b := l.ports[s.a], l.ports[s.b]
			return nil, &FabricLIDsError{fmt.Sprintf("LID 0x%04x is held by both %s (LIDs 0x%04x–0x%04x) and %s (LIDs 0x%04x–0x%04x): discover the fabric again once the SM has run, or let slimroute assign LIDs (leave out --lids-from-fabric)",
				s.lid, f.PortString(a.Port), a.Base, a.Top(), f.PortString(b.Port), b.Base, b.Top())}
		}
		return nil, err
	}
	return l, nil
}

// RecordLIDs returns f with ports' LIDs and LMCs in its port attributes,
// as ibnetdiscover shows a fabric after an SM assigned them: the input
// AssignLIDs reads with FromFabric.
func RecordLIDs(f *fabric.Fabric, ports []PortLIDs) (*fabric.Fabric, error) {
	nodes := f.Nodes()
	for i := range nodes {
		nodes[i].Attrs = maps.Clone(nodes[i].Attrs)
		if nodes[i].Attrs == nil {
			nodes[i].Attrs = map[int]fabric.PortAttr{}
		}
	}
	for _, pl := range ports {
		a := nodes[pl.Port.Node].Attrs[pl.Port.Port]
		a.LID, a.LMC = uint16(pl.Base), pl.LMC
		nodes[pl.Port.Node].Attrs[pl.Port.Port] = a
	}
	return fabric.New(nodes, f.Links())
}

// FabricLIDsError is a problem with the LIDs a fabric description records,
// found by AssignLIDs with FromFabric; callers name the description's
// file.
type FabricLIDsError struct{ Msg string }

func (e *FabricLIDsError) Error() string { return e.Msg }

// sharedLIDError is index's: LID lid is held by ports a and b (indices
// into ports).
type sharedLIDError struct {
	lid  LID
	a, b int
}

func (e *sharedLIDError) Error() string { return fmt.Sprintf("LID 0x%04x is held by two ports", e.lid) }

func (l *LIDs) index() error {
	l.byPort = make(map[fabric.PortRef]int, len(l.ports))
	l.top = 0
	for _, p := range l.ports {
		l.top = max(l.top, p.Top())
	}
	l.byLID = make([]int32, int(l.top)+1)
	for i := range l.byLID {
		l.byLID[i] = -1
	}
	for i, p := range l.ports {
		l.byPort[p.Port] = i
		for lid := p.Base; lid <= p.Top(); lid++ {
			if l.byLID[lid] >= 0 {
				return &sharedLIDError{lid, int(l.byLID[lid]), i}
			}
			l.byLID[lid] = int32(i)
		}
	}
	return nil
}

// span returns the lowest and the highest LID a port holds; (1, 0) when
// no port holds one.
func (l *LIDs) span() (lo, hi LID) {
	lo = 1
	for i, p := range l.ports {
		if i == 0 || p.Base < lo {
			lo = p.Base
		}
	}
	return lo, l.top
}

// Of returns the LID range of a port.
func (l *LIDs) Of(p fabric.PortRef) (PortLIDs, bool) {
	i, ok := l.byPort[p]
	if !ok {
		return PortLIDs{}, false
	}
	return l.ports[i], true
}

// OtherLIDs compares the LID plans a, of fabric fa, and b, of fabric fb,
// matching ports by node GUID and port number: it names the first port of
// a (in a's order) that b gives other LIDs, or none, or the counts of
// ports when b gives LIDs to more or fewer, and returns "" when both give
// every port the same LIDs.
func OtherLIDs(fa *fabric.Fabric, a *LIDs, fb *fabric.Fabric, b *LIDs) string {
	if a.NumPorts() != b.NumPorts() {
		return fmt.Sprintf("%d ports, not %d,", b.NumPorts(), a.NumPorts())
	}
	for _, p := range a.ports {
		n, ok := fb.NodeByGUID(fa.GUID(p.Port.Node))
		q, has := b.Of(fabric.PortRef{Node: n, Port: p.Port.Port})
		if !ok || !has || q.Base != p.Base || q.LMC != p.LMC {
			return fa.PortString(p.Port)
		}
	}
	return ""
}

// Owner returns the port holding lid and the offset of lid in its range.
func (l *LIDs) Owner(lid LID) (PortLIDs, int, bool) {
	if int(lid) >= len(l.byLID) || l.byLID[lid] < 0 {
		return PortLIDs{}, 0, false
	}
	p := l.ports[l.byLID[lid]]
	return p, int(lid - p.Base), true
}

// lidsFromSpans makes the LID plan of ports whose LIDs span the given
// ranges (as read from tables): base the smallest, LMC the least that
// covers the range. Ports come in AssignLIDs' order.
func lidsFromSpans(f *fabric.Fabric, spans map[fabric.PortRef][2]LID) (*LIDs, error) {
	switches, hcas := lidPorts(f)
	l := &LIDs{}
	for _, p := range append(switches, hcas...) {
		s, ok := spans[p]
		if !ok {
			continue
		}
		lmc := uint8(bits.Len(uint(s[1] - s[0])))
		if lmc > 7 {
			return nil, fmt.Errorf("%s holds LIDs 0x%04x to 0x%04x: more than LMC 7 allows", f.PortString(p), s[0], s[1])
		}
		if s[0]&(LID(1)<<lmc-1) != 0 {
			return nil, fmt.Errorf("%s holds LIDs 0x%04x to 0x%04x: not a range aligned to LMC %d", f.PortString(p), s[0], s[1], lmc)
		}
		if p.Port != 0 {
			l.lmc = max(l.lmc, lmc)
		}
		l.ports = append(l.ports, PortLIDs{Port: p, Base: s[0], LMC: lmc})
	}
	return l, l.index()
}
