package fabric

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// ringFabric is S switches of 8 ports in a ring, two cables between
// neighbours, each with two HCAs.
func ringFabric(t testing.TB, S int) *Fabric {
	t.Helper()
	var nodes []Node
	var links []Link
	for s := 0; s < S; s++ {
		nodes = append(nodes, Node{Name: fmt.Sprintf("sw%d", s), Kind: Switch, Ports: 8, GUID: GUID(0x1000 + s)})
	}
	for s := 0; s < S; s++ {
		links = append(links, Link{A: PortRef{NodeID(s), 1}, B: PortRef{NodeID((s + 1) % S), 2}})
		for h := 0; h < 2; h++ {
			id := NodeID(len(nodes))
			nodes = append(nodes, Node{Name: fmt.Sprintf("h%d-%d", s, h), Kind: HCA, Ports: 1, GUID: GUID(0x90000 + 16*len(nodes))})
			links = append(links, Link{A: PortRef{NodeID(s), 3 + h}, B: PortRef{id, 1}})
		}
	}
	f, err := New(nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// elementLine returns the line of element i of the top-level array key in
// text indented as json.MarshalIndent(…, "", "  ") does: the i-th line
// "    {" after the line that opens the array.
func elementLine(text, key string, i int) int {
	lines := strings.Split(text, "\n")
	in := false
	for n, l := range lines {
		if l == fmt.Sprintf("  %q: [", key) {
			in = true
			continue
		}
		if in && l == "    {" {
			if i == 0 {
				return n + 1
			}
			i--
		}
	}
	return -1
}

// TestJSONErrorsNameTheElementsLine breaks one node or link of generated
// JSON fabrics in one of the ways an edit does — a port the node lacks,
// an unknown node, a cable to itself, a port cabled twice, a name used
// twice, a bad kind or GUID — and wants the error at file:line of that
// element, the line found by reading the text.
func TestJSONErrorsNameTheElementsLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 0))
	for c := 0; c < 400; c++ {
		f := ringFabric(t, 3+rng.IntN(6))
		var buf bytes.Buffer
		if err := WriteJSON(&buf, f); err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		nodes, links := doc["nodes"].([]any), doc["links"].([]any)
		key, i, what := "links", 1+rng.IntN(len(links)-1), ""
		link := links[i].(map[string]any)
		end := link["a"].(map[string]any)
		switch kind := rng.IntN(10); kind {
		case 0:
			end["port"], what = 9+rng.IntN(200), "which has ports"
		case 1:
			end["node"], what = "nobody", "unknown node"
		case 2:
			link["b"], what = map[string]any{"node": end["node"], "port": end["port"]}, "to itself"
		case 3:
			j := rng.IntN(i)
			link["a"], what = links[j].(map[string]any)["a"], "already cabled by"
		default:
			key, i = "nodes", 1+rng.IntN(len(nodes)-1)
			node := nodes[i].(map[string]any)
			switch kind {
			case 4:
				node["name"], what = nodes[rng.IntN(i)].(map[string]any)["name"], "already used by"
			case 5:
				node["kind"], what = "router", "want \"switch\" or \"hca\""
			case 6:
				node["guid"], what = "0xnothex", "invalid GUID"
			case 7: // a rack far past any machine room, or before the first
				node["rack"], what = []int{-1 - rng.IntN(9), MaxRack + 1 + rng.IntN(1<<30)}[rng.IntN(2)], "want a rack of 1.."
			case 8:
				node["u"], what = []int{-1, MaxRackUnits + 1 + rng.IntN(1000)}[rng.IntN(2)], "a unit of 1.."
			case 9: // digits that could be meant in decimal
				node["guid"], what = fmt.Sprint(1+rng.IntN(1<<20)), "want 0x and up to 16 hex digits"
			}
		}
		text, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		_, err = ReadJSON(bytes.NewReader(text), "edited.json")
		want := fmt.Sprintf("edited.json:%d: %s[%d]", elementLine(string(text), key, i), key, i)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), what) {
			t.Fatalf("case %d: %s[%d] broken (%s): error %v, want %q", c, key, i, what, err, want)
		}
	}
}

// TestJSONKeyGivenTwiceIsRefusedAtItsLine: over seeded edits of a ring
// fabric's JSON, one "key": value line of an object repeated right after
// itself (a value the same or another), the reader refuses the file at
// the repeated line, naming the key — encoding/json would keep the last.
func TestJSONKeyGivenTwiceIsRefusedAtItsLine(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, ringFabric(t, 4)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	var keyed []int // lines "key": value, followed by another key of the object
	for i := 0; i+1 < len(lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "\"") && strings.HasSuffix(lines[i], ",") && strings.Contains(lines[i], "\": ") && !strings.HasSuffix(lines[i], "[") {
			keyed = append(keyed, i)
		}
	}
	rng := rand.New(rand.NewPCG(37, 0))
	for range 200 {
		i := keyed[rng.IntN(len(keyed))]
		key := strings.Trim(strings.SplitN(strings.TrimSpace(lines[i]), ":", 2)[0], "\"")
		edited := append(append(append([]string(nil), lines[:i+1]...), lines[i]), lines[i+1:]...)
		_, err := ReadJSON(strings.NewReader(strings.Join(edited, "\n")), "twice.json")
		want := fmt.Sprintf("twice.json:%d: key %q given twice", i+2, key)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("line %d (%s) repeated: %v, want %q", i+1, lines[i], err, want)
		}
	}
}
