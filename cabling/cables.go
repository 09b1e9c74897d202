package cabling

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// csvHeader is the first row of cables.csv (WriteCSV).
var csvHeader = []string{"cable", "a_rack", "a_u", "a_node", "a_port", "b_rack", "b_u", "b_node", "b_port", "scope", "kind", "length_m"}

// ReadCSV reads a plan's cable list as WriteCSV writes it (cables.csv).
func ReadCSV(r io.Reader, file string) ([]Cable, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(csvHeader)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w (a cables.csv written by cabling plan)", file, err)
	}
	if !slices.Equal(head, csvHeader) {
		return nil, fmt.Errorf("%s:1: the header is not %s (a cables.csv written by cabling plan)", file, strings.Join(csvHeader, ","))
	}
	var out []Cable
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		c, err := parseCable(row)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, line, err)
		}
		out = append(out, c)
	}
}

// parseCable reads one row of cables.csv.
func parseCable(row []string) (Cable, error) {
	c := Cable{ID: row[0], Kind: row[10], IntraRack: row[9] == "intra-rack"}
	ints := []*int{&c.A.Rack, &c.A.U, &c.A.Port, &c.B.Rack, &c.B.U, &c.B.Port}
	for i, col := range []int{1, 2, 4, 5, 6, 8} {
		v, err := strconv.Atoi(row[col])
		if err != nil || v < 0 {
			return Cable{}, fmt.Errorf("%s = %q is not a number ≥ 0", csvHeader[col], row[col])
		}
		*ints[i] = v
	}
	c.A.Node, c.B.Node = row[3], row[7]
	var err error
	if c.Length, err = strconv.ParseFloat(row[11], 64); err != nil || c.Length < 0 {
		return Cable{}, fmt.Errorf("length_m = %q is not a length", row[11])
	}
	if c.ID == "" || c.A.Node == "" || c.B.Node == "" {
		return Cable{}, fmt.Errorf("a cable without ID or node names")
	}
	return c, nil
}

// PlannedCable is a cable of the plan as a finding names it: its ID and
// its ends as the labels print them (EndLabel), its kind and length.
type PlannedCable struct {
	ID     string  `json:"id"`
	A      string  `json:"a"`
	B      string  `json:"b"`
	Kind   string  `json:"kind"`
	Length float64 `json:"length_m"`
}

func (c PlannedCable) String() string {
	return fmt.Sprintf("%s (%s ↔ %s, %s %g m)", c.ID, c.A, c.B, c.Kind, c.Length)
}

// WithCables names in every finding the planned cables of the ports its
// steps act on (and of its own port): Finding.Cables, in ID order, and at
// the end of its instruction — the ID on the cable's label, both ends'
// rack and unit, its kind and length, as the plan's sheets print them.
// cables is the plan's cable list (ReadCSV of its cables.csv).
func (r *Report) WithCables(cables []Cable) {
	type port struct {
		node string
		port int
	}
	at := map[port]Cable{}
	for _, c := range cables {
		at[port{c.A.Node, c.A.Port}] = c
		at[port{c.B.Node, c.B.Port}] = c
	}
	for i := range r.Findings {
		f := &r.Findings[i]
		ends := []port{{f.Node, f.Port}}
		for _, a := range f.Actions {
			ends = append(ends, port{a.A.Node, a.A.Port}, port{a.B.Node, a.B.Port})
		}
		f.Cables = f.Cables[:0]
		for _, e := range ends {
			if c, ok := at[e]; ok && !slices.ContainsFunc(f.Cables, func(p PlannedCable) bool { return p.ID == c.ID }) {
				f.Cables = append(f.Cables, PlannedCable{ID: c.ID, A: EndLabel(c.A), B: EndLabel(c.B), Kind: c.Kind, Length: c.Length})
			}
		}
		if len(f.Cables) == 0 {
			continue
		}
		slices.SortFunc(f.Cables, func(a, b PlannedCable) int { return strings.Compare(a.ID, b.ID) })
		names := make([]string, len(f.Cables))
		for k, c := range f.Cables {
			names[k] = c.String()
		}
		f.Instruction += fmt.Sprintf(" [planned %s: %s]", plural(len(names), "cable", "cables"), strings.Join(names, "; "))
	}
}
