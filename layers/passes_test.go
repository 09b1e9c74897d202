package layers

import (
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/slimfly"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/passes/*.txt")

// TestPasses runs the data-driven cases of testdata/passes: each file
// names a fabric and options above a "----" line, and below it what
// Compute leaves after each pass — per layer, over the destinations the
// pass searched, the path lengths of every (source switch with hosts,
// destination) pair, the busiest and mean link load (source endpoints
// per directed cable), and a hash of the layer's tables — computed here
// by walking the routes, not from the passes' own statistics. Every case
// runs on 1 and on 2 workers, which must print the same. go test
// ./layers -run TestPasses -rewrite rewrites the expected output; review
// the diff.
func TestPasses(t *testing.T) {
	files, err := filepath.Glob("testdata/passes/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/passes: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			head, want, ok := strings.Cut(string(text), "----\n")
			if !ok {
				t.Fatalf("%s: no ---- line", file)
			}
			f, opts := passCase(t, file, head)
			var got string
			for _, workers := range []int{1, 2} {
				opts.Workers = workers
				out := passTrace(t, f, opts)
				if got != "" && out != got {
					t.Fatalf("%s: 2 workers print otherwise than 1:\n%s\nagainst\n%s", file, out, got)
				}
				got = out
			}
			if *rewrite {
				if err := os.WriteFile(file, []byte(head+"----\n"+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("%s:\ngot:\n%s\nwant:\n%s", file, got, want)
			}
		})
	}
}

// passCase reads a case's head: "fabric slimfly q=5", "fabric clos
// radix=8 levels=2", optionally "fail cables=3 switches=0 seed=2", and
// "options layers=4 seed=1 regrow=false".
func passCase(t *testing.T, file, head string) (*fabric.Fabric, Options) {
	t.Helper()
	var f *fabric.Fabric
	var opts Options
	for ln, line := range strings.Split(head, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		kv, args := map[string]int{}, fields[1:]
		if fields[0] == "fabric" && len(fields) > 1 {
			args = fields[2:] // after the kind
		}
		for _, x := range args {
			k, v, ok := strings.Cut(x, "=")
			n, err := strconv.Atoi(v)
			if !ok || err != nil {
				if v == "false" || v == "true" {
					n = map[string]int{"false": 0, "true": 1}[v]
				} else {
					t.Fatalf("%s:%d: %q is not key=number", file, ln+1, x)
				}
			}
			kv[k] = n
		}
		var err error
		switch fields[0] {
		case "fabric":
			switch fields[1] {
			case "slimfly":
				f, err = slimfly.Build(slimfly.Params{Q: kv["q"]})
			case "clos":
				f, err = clos.Build(clos.Params{Radix: kv["radix"], Levels: kv["levels"]})
			default:
				t.Fatalf("%s:%d: fabric %q: want slimfly or clos", file, ln+1, fields[1])
			}
		case "fail":
			f, err = failures.Draw(f, kv["cables"], kv["switches"], uint64(kv["seed"]))
		case "options":
			opts = Options{Layers: kv["layers"], Seed: uint64(kv["seed"])}
			if v, ok := kv["regrow"]; ok && v == 0 {
				opts.NoRegrow = true
			}
		default:
			t.Fatalf("%s:%d: %q: want fabric, fail or options", file, ln+1, fields[0])
		}
		if err != nil {
			t.Fatalf("%s:%d: %v", file, ln+1, err)
		}
	}
	if f == nil {
		t.Fatalf("%s: no fabric line", file)
	}
	return f, opts
}

// passTrace runs Compute with opts on f and describes what each pass
// leaves.
func passTrace(t *testing.T, f *fabric.Fabric, opts Options) string {
	t.Helper()
	var b strings.Builder
	opts.afterPass = func(pass string, g *graph, r *Routing) {
		fmt.Fprintf(&b, "%s\n", pass)
		if r == nil { // symmetry: the routing is not made yet
			if g.sym != nil {
				fmt.Fprintf(&b, "  a group of %d automorphisms: every destination switch's trees from one switch per orbit\n", g.sym.n)
			} else {
				b.WriteString("  no symmetry used: every destination searched\n")
			}
			return
		}
		for k := range r.layers {
			b.WriteString("  " + layerTrace(g, r, k, pass == "expand") + "\n")
		}
	}
	if _, err := Compute(f, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// layerTrace walks every route of layer k toward the destinations g
// searches (every destination when all is set: after the expansion) with
// trees of their own (not shared ones) and sums them up.
func layerTrace(g *graph, r *Routing, k int, all bool) string {
	lengths := map[int]int{}
	load := map[[2]int]int{}
	h := fnv.New64a()
	S := len(g.adj)
	dests, loops := 0, 0
	for d := range g.dests {
		if (k > 0 && d >= g.nEP) || !(all || g.searched(d)) || r.SharedWith(d) != d {
			continue
		}
		dests++
		h.Write(r.next[k][d*S : (d+1)*S])
		for s := range S {
			if g.hosts[s] == 0 || s == g.dests[d].Switch {
				continue
			}
			hops := 0
			for x := s; hops <= S; hops++ {
				y := r.NextSwitch(k, x, d)
				if y < 0 {
					break
				}
				load[[2]int{x, y}] += g.hosts[s]
				x = y
			}
			if hops > S {
				loops++
				continue
			}
			lengths[hops]++
		}
	}
	switch {
	case dests == 0:
		return fmt.Sprintf("layer %d: no destinations", k)
	case len(lengths) == 0:
		return fmt.Sprintf("layer %d: not routed yet", k)
	case loops > 0:
		return fmt.Sprintf("layer %d: %d routes loop", k, loops)
	}
	var hs []int
	for l := range lengths {
		hs = append(hs, l)
	}
	sort.Ints(hs)
	var parts []string
	for _, l := range hs {
		parts = append(parts, fmt.Sprintf("%d:%d", l, lengths[l]))
	}
	most, total := 0, 0
	for _, v := range load {
		most, total = max(most, v), total+v
	}
	mean := 0
	if len(load) > 0 {
		mean = 100 * total / len(load)
	}
	return fmt.Sprintf("layer %d: %d destinations; hops %s; links used %d, load max %d, mean %d.%02d; tables %016x",
		k, dests, strings.Join(parts, " "), len(load), most, mean/100, mean%100, h.Sum64())
}
