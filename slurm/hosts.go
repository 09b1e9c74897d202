package slurm

import (
	"fmt"
	"sort"
	"strings"

	"slimroute/fabric"
	"slimroute/jobs"
)

// HostAdvice is how to give the HCAs host names Slurm knows.
const HostAdvice = `set each HCA's node description to its host name and device ("node017 mlx5_0"), or name the hosts with --hosts (a pattern such as node%03d, a file of names, or a rack,u,host CSV, as cabling plan --hosts takes)`

// hostsBySwitch gives, per switch of view v, the host names of the HCAs
// whose first cabled port is on it, in natural order. A host name is the
// first word of the HCA's node description (fabric.HostName). An HCA
// without a valid name, or two HCAs with one name, is an error naming
// them (up to five) and what to do.
func hostsBySwitch(f *fabric.Fabric, v *fabric.SwitchView) ([][]string, error) {
	out := make([][]string, v.NumSwitches())
	owner := map[string]fabric.NodeID{}
	var problems []string
	for _, h := range f.IDsOf(fabric.HCA) {
		sw, ok := firstSwitch(f, h)
		if !ok {
			continue // an HCA without a cable is in no job
		}
		host, _ := fabric.HostName(f.Name(h))
		if err := jobs.CheckHostName(host); err != nil {
			problems = append(problems, fmt.Sprintf("HCA %q (%s) names no host Slurm can use: %v", f.Name(h), f.GUID(h), err))
			continue
		}
		if o, dup := owner[host]; dup {
			problems = append(problems, fmt.Sprintf("HCAs %q (%s) and %q (%s) both name host %s", f.Name(o), f.GUID(o), f.Name(h), f.GUID(h), host))
			continue
		}
		owner[host] = h
		out[v.Index[sw]] = append(out[v.Index[sw]], host)
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		more := ""
		if len(problems) > 5 {
			more = fmt.Sprintf("\n(and %d more)", len(problems)-5)
			problems = problems[:5]
		}
		return nil, fmt.Errorf("host names: %s%s\n%s", strings.Join(problems, "\n"), more, HostAdvice)
	}
	for _, hs := range out {
		sortNatural(hs)
	}
	return out, nil
}

// firstSwitch is the switch of HCA h's first cabled port.
func firstSwitch(f *fabric.Fabric, h fabric.NodeID) (fabric.NodeID, bool) {
	for p := 1; p <= f.Ports(h); p++ {
		if peer, ok := f.Peer(fabric.PortRef{Node: h, Port: p}); ok && f.Kind(peer.Node) == fabric.Switch {
			return peer.Node, true
		}
	}
	return 0, false
}

// switchName is a switch's name as Slurm may read it: the characters a
// host list cannot hold (anything but letters, digits, '-', '_', '.')
// become '_', and a name that is empty or taken gets its GUID.
func switchName(name string, guid fabric.GUID, taken map[string]bool) string {
	b := []byte(name)
	for i, c := range b {
		if jobs.CheckHostName(string(c)) != nil && !(i > 0 && strings.IndexByte("-_.", c) >= 0) {
			b[i] = '_'
		}
	}
	s := strings.Trim(string(b), "_")
	if jobs.CheckHostName(s) != nil || taken[s] || len(s) > 64 {
		s = fmt.Sprintf("sw%016x", uint64(guid))
	}
	taken[s] = true
	return s
}
