package transition

// changes counts what differs between the two states: LFT entries,
// path SLs of every source port and SL-to-VL entries of switches (in port 0
// or cabled, out port cabled) and of the source HCA ports.
func (m *model) changes() Changes {
	var c Changes
	for s := range m.sw {
		c.Entries += differ(m.lft[oldState][s], m.lft[newState][s])
		n := len(m.ends[s])
		for in := range n {
			if in != 0 && !m.ends[s][in].cabled {
				continue
			}
			for out := 1; out < n; out++ {
				if m.ends[s][out].cabled {
					at := (in*n + out) * 16
					c.SL2VL += differ(m.vl[oldState][s][at:at+16], m.vl[newState][s][at:at+16])
				}
			}
		}
	}
	for _, src := range m.srcs {
		c.PathSLs += differ(m.sl[oldState][src.class[oldState]], m.sl[newState][src.class[newState]])
		c.SL2VL += differ(src.ca[oldState][:], src.ca[newState][:])
	}
	return c
}

// differ counts the indices at which a and b differ.
func differ(a, b []uint8) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}
