package cabling

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"slimroute/internal/wiringfaults"
)

// TestCSVReadsBackWhatPlanWrote: every generated plan's cables.csv reads
// back to its cable list; damaged files name the file and line.
func TestCSVReadsBackWhatPlanWrote(t *testing.T) {
	for name, p := range generatedPlans(t) {
		var b bytes.Buffer
		if err := WriteCSV(&b, p); err != nil {
			t.Fatal(err)
		}
		got, err := ReadCSV(bytes.NewReader(b.Bytes()), "cables.csv")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, p.Cables) {
			t.Errorf("%s: read back %d cables, not the %d written", name, len(got), len(p.Cables))
		}
	}
	head := "cable,a_rack,a_u,a_node,a_port,b_rack,b_u,b_node,b_port,scope,kind,length_m\n"
	for _, c := range []struct{ text, want string }{
		{"", "cables.csv: EOF"},
		{"id,a,b\n", "cables.csv: record on line 1: wrong number of fields"},
		{strings.Replace(head, "cable,", "id,", 1), "cables.csv:1: the header is not"},
		{head + "R01-0001,1,1,a,1,1,2,b,x,intra-rack,copper,1\n", "cables.csv:2: b_port = \"x\""},
		{head + "R01-0001,1,1,a,1,1,2,b,2,intra-rack,copper,1\nR01-0002,1\n", "cables.csv: record on line 3: wrong number of fields"},
		{head + "R01-0001,1,1,a,1,1,2,b,2,intra-rack,copper,long\n", "cables.csv:2: length_m = \"long\""},
	} {
		if _, err := ReadCSV(strings.NewReader(c.text), "cables.csv"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v (want %q)", c.text, err, c.want)
		}
	}
}

// TestFindingsNameThePlannedCables: on generated faults of every plan,
// each finding with steps names the planned cable of every planned port
// its steps act on — its ID, ends and kind, as the labels print them —
// and no other.
func TestFindingsNameThePlannedCables(t *testing.T) {
	for name, p := range generatedPlans(t) {
		label := map[string]Cable{} // "node port" → its planned cable
		for _, c := range p.Cables {
			label[fmt.Sprintf("%s %d", c.A.Node, c.A.Port)] = c
			label[fmt.Sprintf("%s %d", c.B.Node, c.B.Port)] = c
		}
		named := 0
		for seed := uint64(1); seed <= 20; seed++ {
			c, err := wiringfaults.Generate(p.Fabric, seed, wiringfaults.Options{Naming: wiringfaults.PlanDescriptions, Faults: 3})
			if err != nil {
				t.Fatal(err)
			}
			r := Verify(p.Fabric, c.Found)
			r.WithCables(p.Cables)
			for _, fd := range r.Findings {
				want := map[string]bool{}
				for _, a := range fd.Actions {
					for _, e := range []End{a.A, a.B} {
						if pc, ok := label[fmt.Sprintf("%s %d", e.Node, e.Port)]; ok {
							want[pc.ID] = true
						}
					}
				}
				if pc, ok := label[fmt.Sprintf("%s %d", fd.Node, fd.Port)]; ok {
					want[pc.ID] = true
				}
				if len(fd.Cables) != len(want) {
					t.Errorf("%s seed %d: %s names %d cables, its ports have %d planned: %v", name, seed, fd.Kind, len(fd.Cables), len(want), fd.Cables)
				}
				for _, pc := range fd.Cables {
					if !want[pc.ID] || !strings.Contains(fd.Instruction, pc.ID) || pc.A != EndLabel(cableByID(p, pc.ID).A) || pc.Kind != cableByID(p, pc.ID).Kind {
						t.Errorf("%s seed %d: %s names cable %v, not one of its ports' or not as labelled", name, seed, fd.Kind, pc)
					}
					named++
				}
			}
		}
		if named == 0 {
			t.Errorf("%s: no finding named a planned cable", name)
		}
	}
}

// generatedPlans yields the plans of wiringfaults' fabrics, by name.
func generatedPlans(t *testing.T) func(yield func(string, *Plan) bool) {
	return func(yield func(string, *Plan) bool) {
		for _, name := range wiringfaults.Plans {
			f, err := wiringfaults.Plan(name)
			if err != nil {
				t.Fatal(err)
			}
			p, err := MakePlan(f, DefaultGeometry())
			if err != nil {
				t.Fatal(err)
			}
			if !yield(name, p) {
				return
			}
		}
	}
}

func cableByID(p *Plan, id string) Cable {
	for _, c := range p.Cables {
		if c.ID == id {
			return c
		}
	}
	return Cable{}
}
