package lft

import "fmt"

// DiffLFTs compares the forwarding tables of got with those of want, switch
// by switch (by node GUID) and LID by LID, and returns up to limit
// differences, each as a sentence. A LID want drops may be missing from
// got.
func DiffLFTs(want, got *Tables, limit int) []string {
	var out []string
	for _, sw := range want.SortedSwitches() {
		n := want.f.Node(sw)
		gsw, ok := got.f.NodeByGUID(n.GUID)
		if !ok || got.switchIndex(gsw) < 0 {
			out = append(out, fmt.Sprintf("%s (%s): no table", n.Name, n.GUID))
			if len(out) >= limit {
				return out
			}
			continue
		}
		wt, gt := want.lft[want.switchIndex(sw)], got.lft[got.switchIndex(gsw)]
		for lid := 1; lid < max(len(wt), len(gt)); lid++ {
			w, g := entry(wt, lid), entry(gt, lid)
			if w == g {
				continue
			}
			gs := "none"
			if g != Drop {
				gs = fmt.Sprint(g)
			}
			ws := "none"
			if w != Drop {
				ws = fmt.Sprint(w)
			}
			out = append(out, fmt.Sprintf("%s LID 0x%04x: port %s, want %s", n.Name, lid, gs, ws))
			if len(out) >= limit {
				return out
			}
		}
	}
	return out
}

func entry(tab []uint8, lid int) uint8 {
	if lid < len(tab) {
		return tab[lid]
	}
	return Drop
}
