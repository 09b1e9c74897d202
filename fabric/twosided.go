package fabric

import "sort"

// halfLink is one end's record of a cable, as the ibsim net format and
// ibnetdiscover output list every link once from each end.
type halfLink struct {
	local      string // node key (ibsim node id, ibnetdiscover "S-…" id)
	localPort  int
	remote     string
	remotePort int
	line       int
	width      Width
	speed      Speed
}

type portKey struct {
	node string
	port int
}

// pairHalves matches the two records of every link. bad holds the ports
// whose line was refused (an error already names it): a record pointing at
// one is not reported again as one-sided. ids maps node keys to NodeIDs;
// names gives the human name of a key for messages. Problems go to errs
// with the line of the offending record.
func pairHalves(halves []halfLink, bad map[portKey]bool, ids map[string]NodeID, names func(string) string, errs *errorList) []Link {
	at := make(map[portKey]int, len(halves))
	for i, h := range halves {
		k := portKey{h.local, h.localPort}
		if j, dup := at[k]; dup {
			errs.add(h.line, "port %d of %q is listed twice (first at line %d); each port holds one cable", h.localPort, names(h.local), halves[j].line)
			continue
		}
		at[k] = i
	}
	var links []Link
	done := make([]bool, len(halves))
	order := make([]int, 0, len(halves))
	for i := range halves {
		order = append(order, i)
	}
	sort.SliceStable(order, func(a, b int) bool { return halves[order[a]].line < halves[order[b]].line })
	for _, i := range order {
		h := halves[i]
		if done[i] || at[portKey{h.local, h.localPort}] != i {
			continue
		}
		if _, ok := ids[h.remote]; !ok {
			errs.add(h.line, "port %d of %q is cabled to unknown node %q; add a record for it or remove the line", h.localPort, names(h.local), h.remote)
			continue
		}
		j, ok := at[portKey{h.remote, h.remotePort}]
		if !ok && bad[portKey{h.remote, h.remotePort}] {
			continue
		}
		if !ok {
			errs.add(h.line, "%q[%d] -> %q[%d] is listed on one side only; add the line [%d] %q[%d] to the record of %q",
				names(h.local), h.localPort, names(h.remote), h.remotePort, h.remotePort, h.local, h.localPort, names(h.remote))
			continue
		}
		o := halves[j]
		if o.remote != h.local || o.remotePort != h.localPort {
			errs.add(h.line, "%q[%d] -> %q[%d], but line %d says %q[%d] -> %q[%d]; the two ends of a cable must agree",
				names(h.local), h.localPort, names(h.remote), h.remotePort, o.line, names(o.local), o.localPort, names(o.remote), o.remotePort)
			done[j] = true
			continue
		}
		done[i], done[j] = true, true
		w, s := h.width, h.speed
		if w == 0 {
			w = o.width
		}
		if s == 0 {
			s = o.speed
		}
		links = append(links, Link{
			A:     PortRef{ids[h.local], h.localPort},
			B:     PortRef{ids[h.remote], h.remotePort},
			Width: w, Speed: s,
		})
	}
	return links
}

// assemble ends a reader of a format that lists each cable from both
// ends: node names from the descriptions (uniqueNames), the halves
// pruned by prune if given, then paired into cables, and the fabric made
// unless errs holds a problem.
func assemble(file string, nodes []Node, descs []string, ids map[string]NodeID, halves []halfLink, errs *errorList,
	prune func([]halfLink, map[string]NodeID, func(string) string, *errorList) []halfLink) (*Fabric, error) {
	uniqueNames(nodes, descs)
	names := func(k string) string {
		if id, ok := ids[k]; ok {
			return nodes[id].Name
		}
		return k
	}
	if prune != nil {
		halves = prune(halves, ids, names, errs)
	}
	links := pairHalves(halves, nil, ids, names, errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	f, err := New(nodes, links)
	return f, wrapValidation(file, err)
}
