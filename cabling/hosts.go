package cabling

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"slimroute/fabric"
)

// Hosts is the cluster's inventory of host names, for a plan whose HCAs
// should carry them (NameHosts): a list in rack order, a numbering
// pattern, or host names at rack positions.
type Hosts struct {
	source  string   // where the names come from, for errors
	names   []string // in rack order (a list)
	pattern string   // a numbering pattern, e.g. node%03d
	at      []hostAt // at rack positions (a CSV)
}

// hostAt is one row of a hosts CSV.
type hostAt struct {
	rack, u int
	host    string
	line    int
}

// hostVerb is the one integer verb a host pattern holds.
var hostVerb = regexp.MustCompile(`%0?[0-9]*d`)

// HostPattern names the HCAs with a numbering pattern holding one integer
// verb, such as node%03d: the first HCA in rack order is node001.
func HostPattern(pattern string) (Hosts, error) {
	if len(hostVerb.FindAllString(pattern, -1)) != 1 || strings.Count(pattern, "%") != 1 {
		return Hosts{}, fmt.Errorf("host pattern %q: want one integer verb such as %%d or %%03d (node%%03d names node001, node002, …)", pattern)
	}
	if err := checkHostName(strings.Replace(pattern, "%", "", 1)); err != nil {
		return Hosts{}, fmt.Errorf("host pattern %q: %w", pattern, err)
	}
	return Hosts{source: fmt.Sprintf("pattern %q", pattern), pattern: pattern}, nil
}

// ReadHosts reads host names: one per line, in rack order (rack by rack,
// from the lowest unit up), or a CSV whose first line is the header
// rack,u,host that puts each host at a rack position. Blank lines and
// lines starting with # are skipped.
func ReadHosts(r io.Reader, file string) (Hosts, error) {
	h := Hosts{source: file}
	csv := false
	err := fabric.ScanLines(r, file, func(ln int, text string) error {
		text = strings.TrimSpace(text)
		if text == "" || strings.HasPrefix(text, "#") {
			return nil
		}
		if !csv && h.names == nil && strings.EqualFold(strings.ReplaceAll(text, " ", ""), "rack,u,host") {
			csv = true
			return nil
		}
		if csv {
			at, err := parseHostAt(text, ln)
			if err != nil {
				return fmt.Errorf("%s:%d: %w", file, ln, err)
			}
			h.at = append(h.at, at)
			return nil
		}
		if strings.Contains(text, ",") {
			return fmt.Errorf("%s:%d: %q: a host list has one name per line; a CSV starts with the header rack,u,host", file, ln, text)
		}
		if err := checkHostName(text); err != nil {
			return fmt.Errorf("%s:%d: %w", file, ln, err)
		}
		h.names = append(h.names, text)
		return nil
	})
	if err != nil {
		return Hosts{}, err
	}
	if len(h.names) == 0 && len(h.at) == 0 {
		return Hosts{}, fmt.Errorf("%s: no host names (one per line, or a CSV with the header rack,u,host)", file)
	}
	return h, nil
}

func parseHostAt(text string, ln int) (hostAt, error) {
	f := strings.Split(text, ",")
	if len(f) != 3 {
		return hostAt{}, fmt.Errorf("%q: want rack,u,host", text)
	}
	at := hostAt{host: strings.TrimSpace(f[2]), line: ln}
	var err error
	if at.rack, err = strconv.Atoi(strings.TrimSpace(f[0])); err != nil || at.rack < 1 {
		return hostAt{}, fmt.Errorf("%q: rack %q is not a rack number (1, 2, …)", text, f[0])
	}
	if at.u, err = strconv.Atoi(strings.TrimSpace(f[1])); err != nil || at.u < 1 || at.u > maxRackUnits {
		return hostAt{}, fmt.Errorf("%q: unit %q is not a rack unit (1..%d)", text, f[1], maxRackUnits)
	}
	return at, checkHostName(at.host)
}

// checkHostName refuses what cannot be a host name in a node description.
func checkHostName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("an empty host name")
	case strings.ContainsAny(s, " \t\"#@"):
		return fmt.Errorf("host name %q: no spaces, quotes, # or @ (the node description is the host name, a space and the device)", s)
	}
	return nil
}

// NameHosts returns plan fabric f (its nodes placed, as MakePlan lays
// them out) with every HCA named after its host. A list or pattern names
// the HCAs in rack order: by rack, then unit from the bottom, then plan
// name; hosts at rack positions name the HCAs at each position in plan
// name order. Every HCA needs a host, and every host an HCA.
func NameHosts(f *fabric.Fabric, h Hosts) (*fabric.Fabric, error) {
	nodes := f.Nodes()
	var hcas []int
	for i, n := range nodes {
		if n.Kind == fabric.HCA {
			hcas = append(hcas, i)
		}
	}
	slices.SortStableFunc(hcas, func(a, b int) int {
		x, y := nodes[a].Place, nodes[b].Place
		if x.Rack != y.Rack {
			return rackOrder(x.Rack) - rackOrder(y.Rack)
		}
		if x.U != y.U {
			return x.U - y.U
		}
		switch {
		case naturalLess(nodes[a].Name, nodes[b].Name):
			return -1
		case naturalLess(nodes[b].Name, nodes[a].Name):
			return 1
		}
		return 0
	})
	names, err := h.forHCAs(nodes, hcas)
	if err != nil {
		return nil, err
	}
	taken := map[string]string{}
	for _, n := range nodes {
		if n.Kind == fabric.Switch {
			taken[n.Name] = "a switch"
		}
	}
	for k, i := range hcas {
		if other, dup := taken[names[k]]; dup {
			return nil, fmt.Errorf("%s: host name %q is used twice (also for %s)", h.source, names[k], other)
		}
		taken[names[k]] = nodes[i].Name
		nodes[i].Name = names[k]
	}
	links := make([]fabric.Link, f.NumLinks())
	for i := range links {
		links[i] = f.Link(i)
	}
	return fabric.New(nodes, links)
}

// rackOrder puts unracked nodes (rack 0) after every rack.
func rackOrder(rack int) int {
	if rack == 0 {
		return 1 << 30
	}
	return rack
}

// forHCAs returns the host name of each HCA of hcas (indices into nodes,
// in rack order).
func (h Hosts) forHCAs(nodes []fabric.Node, hcas []int) ([]string, error) {
	switch {
	case h.pattern != "":
		names := make([]string, len(hcas))
		for k := range hcas {
			names[k] = fmt.Sprintf(h.pattern, k+1)
		}
		return names, nil
	case h.at == nil:
		if len(h.names) != len(hcas) {
			return nil, fmt.Errorf("%s lists %d host names, the plan has %d HCAs: list one host per HCA, in rack order", h.source, len(h.names), len(hcas))
		}
		return h.names, nil
	}
	type pos struct{ rack, u int }
	rows := map[pos][]hostAt{}
	for _, at := range h.at {
		rows[pos{at.rack, at.u}] = append(rows[pos{at.rack, at.u}], at)
	}
	names := make([]string, len(hcas))
	for k, i := range hcas {
		p := pos{nodes[i].Place.Rack, nodes[i].Place.U}
		if len(rows[p]) == 0 {
			return nil, fmt.Errorf("%s: no host for %s in rack %d, unit %d: add a row %d,%d,HOST", h.source, nodes[i].Name, p.rack, p.u, p.rack, p.u)
		}
		names[k], rows[p] = rows[p][0].host, rows[p][1:]
	}
	for _, at := range h.at {
		if left := rows[pos{at.rack, at.u}]; len(left) > 0 && left[0] == at {
			return nil, fmt.Errorf("%s:%d: no planned HCA left in rack %d, unit %d for host %q (racks.html of the plan shows what each unit holds)", h.source, at.line, at.rack, at.u, at.host)
		}
	}
	return names, nil
}
