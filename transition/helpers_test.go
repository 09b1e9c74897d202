package transition

import (
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/slimfly"
)

// route routes f with the pipeline under seed.
func route(t testing.TB, f *fabric.Fabric, seed uint64) *lft.Tables {
	t.Helper()
	res, err := pipeline.Run(f, pipeline.Config{Layers: 4, Deadlock: "auto", VLs: 4, Seed: seed, LMC: -1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return res.Tables
}

// slimFly builds Slim Fly q.
func slimFly(t testing.TB, q int) *fabric.Fabric {
	t.Helper()
	f, err := slimfly.Build(slimfly.Params{Q: q})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// edits changes tables as rebuild copies them; nil fields change nothing.
type edits struct {
	lft   func(sw fabric.NodeID, row []uint8)
	sl    func(class int, row []uint8)
	sl2vl func(sw fabric.NodeID, in int, table []uint8)
	ca    func(p fabric.PortRef, vls *[16]uint8)
}

// rebuild copies t through lft.Builder, applying e.
func rebuild(t testing.TB, tab *lft.Tables, e edits) *lft.Tables {
	t.Helper()
	f := tab.Fabric()
	b := lft.NewBuilder(f, tab.LIDs())
	for _, sw := range tab.Switches() {
		row := b.LFT(sw)
		tab.CopyLFT(row, sw)
		if e.lft != nil {
			e.lft(sw, row)
		}
		for in := 0; in <= f.Ports(sw); in++ {
			vls := tab.SL2VLTable(sw, in)
			if e.sl2vl != nil {
				e.sl2vl(sw, in, vls)
			}
			must(t, b.SetSL2VL(sw, in, vls))
		}
	}
	rows := map[int]int{}
	for _, p := range tab.LIDs().Ports() {
		c := tab.SLClass(p.Port)
		if f.Kind(p.Port.Node) != fabric.HCA || c < 0 {
			continue
		}
		if _, ok := rows[c]; !ok {
			r, row := b.AddSLRow()
			tab.CopyClassSLs(row, c)
			if e.sl != nil {
				e.sl(c, row)
			}
			rows[c] = r
		}
		must(t, b.SetSLRow(p.Port, rows[c]))
		vls := tab.CASL2VL(p.Port)
		if e.ca != nil {
			e.ca(p.Port, &vls)
		}
		must(t, b.SetCASL2VL(p.Port, vls))
	}
	return b.Tables()
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
