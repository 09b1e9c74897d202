package cabling

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"slimroute/internal/wiringfaults"
)

var taskSection = regexp.MustCompile(`(?s)<section><h1>(.*?):.*?</section>`)

// TestTasksListEveryFindingOnEveryRackItTouches: on generated faults of
// every plan, the task sheet has a page for each rack a finding's steps
// touch, and on it that finding's row (its number, kind, instruction) and
// each of its planned nodes in the rack drawn with a red outline; no page
// lists a finding that does not touch its rack.
func TestTasksListEveryFindingOnEveryRackItTouches(t *testing.T) {
	for name, p := range generatedPlans(t) {
		for seed := uint64(1); seed <= 6; seed++ {
			c, err := wiringfaults.Generate(p.Fabric, seed, wiringfaults.Options{Naming: wiringfaults.Namings[seed%4], Faults: 4})
			if err != nil {
				t.Fatal(err)
			}
			r := Verify(p.Fabric, c.Found)
			r.WithCables(p.Cables)
			var b bytes.Buffer
			if err := WriteTasksHTML(&b, p.Fabric, r); err != nil {
				t.Fatal(err)
			}
			pages := map[string]string{}
			for _, m := range taskSection.FindAllStringSubmatch(b.String(), -1) {
				pages[m[1]] = m[0]
			}
			for i, f := range r.Findings {
				racks := map[string][]string{} // page title → the finding's planned nodes there
				for _, node := range append([]string{f.Node}, endsOf(f)...) {
					if id, ok := p.Fabric.NodeByName(node); ok && p.Fabric.Node(id).Place.Rack > 0 {
						title := fmt.Sprintf("Rack %d", p.Fabric.Node(id).Place.Rack)
						racks[title] = append(racks[title], node)
					}
				}
				if len(racks) == 0 {
					racks["Not in a planned rack"] = nil
				}
				row := fmt.Sprintf(`<td class="n">%d</td><td class="kind">%s</td><td>%s</td>`, i+1, f.Kind, html.EscapeString(f.Instruction))
				for title, nodes := range racks {
					page, ok := pages[title]
					if !ok || !strings.Contains(page, row) {
						t.Fatalf("%s seed %d: task %d (%s) is not on the page %q", name, seed, i+1, f.Kind, title)
					}
					for _, n := range nodes {
						if !regexp.MustCompile(`stroke="#d62728" stroke-width="2"><title>U\d+ ` + regexp.QuoteMeta(html.EscapeString(n)) + `</title>`).MatchString(page) {
							t.Errorf("%s seed %d: task %d: %s is not marked on %q", name, seed, i+1, n, title)
						}
					}
				}
				for title, page := range pages {
					if _, touches := racks[title]; !touches && strings.Contains(page, row) {
						t.Errorf("%s seed %d: task %d is on %q, which it does not touch", name, seed, i+1, title)
					}
				}
			}
		}
	}
}

func endsOf(f Finding) []string {
	var out []string
	for _, a := range f.Actions {
		out = append(out, a.A.Node, a.B.Node)
	}
	return out
}
