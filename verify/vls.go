package verify

import (
	"slices"

	"slimroute/fabric"
	"slimroute/lft"
)

// vlTables holds the switches' SL-to-VL tables as the walks read them,
// small enough to stay in a cache: each (in port, out port) pair of a
// switch names one of a few distinct 16-entry rows (SL → VL), shared by
// every switch. A switch's pairs take (ports+1)² bytes, and a fabric
// whose tables hold more than 256 distinct rows keeps one row per pair
// (wide).
type vlTables struct {
	at   []int32 // per switch index: offset of its pairs, in*(ports+1)+out
	pair []uint8 // row number per pair (narrow)
	wide []int32 // row number per pair, when there are more than 256 rows
	rows [][16]uint8
}

// newVLTables copies t's SL-to-VL tables for every in and out port
// 0..ports of every switch, reading each SL2VL class's table once.
func newVLTables(t *lft.Tables, lay *layout) *vlTables {
	f := t.Fabric()
	v := &vlTables{at: make([]int32, len(lay.switches))}
	index := map[[16]uint8]int32{}
	rowOf := func(row [16]uint8) int32 {
		r, ok := index[row]
		if !ok {
			r = int32(len(v.rows))
			index[row] = r
			v.rows = append(v.rows, row)
		}
		return r
	}
	size := 0
	for _, sw := range lay.switches {
		size += (f.Ports(sw) + 1) * (f.Ports(sw) + 1)
	}
	pairs := make([]int32, 0, size)
	known := map[string][]int32{} // per class table: its rows per out port
	var table []uint8
	for s, sw := range lay.switches {
		ports := f.Ports(sw)
		v.at[s] = int32(len(pairs))
		table = slices.Grow(table[:0], (ports+1)*16)[:(ports+1)*16]
		classes := map[int][]int32{} // per SL2VL class of this switch
		for in := 0; in <= ports; in++ {
			class := t.SL2VLClass(sw, in)
			rows, ok := classes[class]
			if !ok {
				clear(table) // SL2VL's 0 beyond the switch's table
				t.CopySL2VLTable(table, sw, in)
				if rows, ok = known[string(table)]; !ok {
					rows = make([]int32, ports+1)
					for out := range rows {
						rows[out] = rowOf([16]uint8(table[out*16:]))
					}
					known[string(table)] = rows
				}
				classes[class] = rows
			}
			pairs = append(pairs, rows...)
		}
	}
	if len(v.rows) > 256 {
		v.wide = pairs
		return v
	}
	v.pair = make([]uint8, len(pairs))
	for i, r := range pairs {
		v.pair[i] = uint8(r)
	}
	return v
}

// of returns the VL that switch port in.Node:in.Port maps SL sl onto
// toward out port out, as lft.Tables.SL2VL does.
func (v *vlTables) of(lay *layout, in fabric.PortRef, out int, sl uint8) uint8 {
	s := lay.swIndex[in.Node]
	width := lay.pOff[in.Node+1] - lay.pOff[in.Node] // ports + 1
	i := int(v.at[s]) + in.Port*width + out
	if v.wide != nil {
		return v.rows[v.wide[i]][sl&15]
	}
	return v.rows[v.pair[i]][sl&15]
}
