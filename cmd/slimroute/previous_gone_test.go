package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/internal/failures"
	"slimroute/lft"
	"slimroute/osmplugin/engine"
	"slimroute/slimfly"
	"slimroute/verify"
)

// withLIDs returns f with the LIDs route assigns (LMC lmc) recorded on
// its ports, as OpenSM hands its subnet to the plugin.
func withLIDs(t *testing.T, f *fabric.Fabric, lmc int) *fabric.Fabric {
	t.Helper()
	lids, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: lmc})
	if err != nil {
		t.Fatal(err)
	}
	g, err := engine.RecordLIDs(f, lids)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func fabricJSON(t *testing.T, f *fabric.Fabric) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := fabric.WriteJSON(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// routeArgs are the settings both route and the plugin (settingsText) use.
var routeArgs = []string{"--layers", "4", "--deadlock", "auto", "--vls", "4", "--seed", "1"}

const settingsText = "layers = 4\ndeadlock = \"auto\"\nvls = 4\nseed = 1\n"

// TestRoutePreviousRepairsRemovedSwitches: over damaged fabrics drawn by
// the seeded failure generator (1 or 2 switches gone from the Slim Fly
// q=5 and q=7), `route --previous` repairs the intact routing instead of
// recomputing it, names the switches that are gone, and writes tables
// that the verifier accepts, in which every entry whose previous path
// (followed through the intact tables) never met a gone switch is as it
// was, and which are what the OpenSM plugin's engine hands OpenSM after
// the same change (every LFT, path SL and SL2VL entry). A fabric with a
// switch the previous routing lacks is recomputed in full, and the
// command says which switch is new.
func TestRoutePreviousRepairsRemovedSwitches(t *testing.T) {
	for _, c := range []struct{ q, cases, maxGone int }{{5, 24, 1}, {7, 6, 2}} {
		t.Run(fmt.Sprintf("q=%d", c.q), func(t *testing.T) {
			dir := t.TempDir()
			sf, err := slimfly.Build(slimfly.Params{Q: c.q})
			if err != nil {
				t.Fatal(err)
			}
			intact := withLIDs(t, sf, 2)
			prevDir := filepath.Join(dir, "prev")
			if _, err := runApp(t, append(append([]string{"route", "--fabric", writeFabric(t, dir, "intact.json", intact)}, routeArgs...), "-o", prevDir)...); err != nil {
				t.Fatal(err)
			}
			settings := filepath.Join(dir, "slimroute.toml")
			if err := os.WriteFile(settings, []byte(settingsText), 0o644); err != nil {
				t.Fatal(err)
			}
			first, err := engine.Compute(fabricJSON(t, intact), settings, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			prev, _, err := readPrevious(prevDir, intact)
			if err != nil {
				t.Fatal(err)
			}
			for _, sw := range prev.Switches() {
				if tab, _ := first.LFT(intact.GUID(sw)); !bytes.Equal(tab, prev.LFT(sw)) {
					t.Fatalf("%s: the plugin's intact routing differs from route's", intact.Name(sw))
				}
			}
			for seed := uint64(0); seed <= uint64(c.cases); seed++ {
				gone := 1 + int(seed)%c.maxGone
				damaged, err := failures.Draw(intact, 0, gone, seed)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("seed %d, %d switches gone", seed, gone)
				if seed%3 == 0 {
					// as OpenSM discovers it: the HCAs behind a gone switch go too
					name += " with their HCAs"
					damaged = withoutLoneHCAs(t, damaged)
				}
				if seed == 0 {
					// the switch of the top LID's HCA: its LIDs and path SLs end
					// earlier now
					name = "the top LID's switch gone with its HCAs"
					damaged = withoutLoneHCAs(t, withoutTopSwitch(t, intact))
				}
				outDir := filepath.Join(dir, fmt.Sprint("repaired-", seed))
				out, err := runApp(t, append(append([]string{"route", "--fabric", writeFabric(t, dir, "damaged.json", damaged)}, routeArgs...), "--previous", prevDir, "-o", outDir)...)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				plugin, err := engine.Compute(fabricJSON(t, damaged), settings, 2, first)
				if err != nil {
					t.Fatalf("%s: the plugin: %v", name, err)
				}
				if !strings.Contains(out, "repaired the routing in "+prevDir) {
					t.Fatalf("%s: no repair:\n%s", name, out)
				}
				if !strings.Contains(plugin.Summary(), "repaired the last routing") {
					t.Fatalf("%s: the plugin did not repair: %s", name, plugin.Summary())
				}
				for _, sw := range intact.IDsOf(fabric.Switch) {
					if _, ok := damaged.NodeByGUID(intact.GUID(sw)); !ok && !strings.Contains(out, intact.Name(sw)+" ("+intact.GUID(sw).String()+")") {
						t.Fatalf("%s: the report does not name %s, which is gone:\n%s", name, intact.Name(sw), out)
					}
				}
				if n, want := goneLIDs(t, outDir), lidsGone(intact, damaged); n != want {
					t.Fatalf("%s: summary.json says %d LIDs are gone, the fabric lost %d", name, n, want)
				}
				got, _, err := readPrevious(outDir, damaged)
				if err != nil {
					t.Fatal(err)
				}
				if rep, err := verify.Check(got, 2); err != nil || !rep.Acyclic() {
					t.Fatalf("%s: the written tables fail the verifier: %v", name, err)
				}
				kept := unaffectedKept(t, name, intact, prev, damaged, got, repairCountsIn(t, outDir).Mended)
				samePlugin(t, name, damaged, got, plugin)
				t.Logf("%s: repaired; %d entries whose paths missed the gone switches kept; tables as the plugin's", name, kept)
			}

			// the other way round: a switch the previous routing lacks
			damaged, err := failures.Draw(intact, 0, 1, 99)
			if err != nil {
				t.Fatal(err)
			}
			smallDir := filepath.Join(dir, "small")
			if _, err := runApp(t, append(append([]string{"route", "--fabric", writeFabric(t, dir, "small.json", damaged)}, routeArgs...), "-o", smallDir)...); err != nil {
				t.Fatal(err)
			}
			out, err := runApp(t, append(append([]string{"route", "--fabric", writeFabric(t, dir, "intact.json", intact)}, routeArgs...), "--previous", smallDir, "-o", filepath.Join(dir, "full"))...)
			if err != nil {
				t.Fatal(err)
			}
			var added fabric.NodeID
			for _, sw := range intact.IDsOf(fabric.Switch) {
				if _, ok := damaged.NodeByGUID(intact.GUID(sw)); !ok {
					added = sw
				}
			}
			want := fmt.Sprintf("cannot repair the routing in %s: switch %s (%s) is new", smallDir, intact.Name(added), intact.GUID(added))
			if !strings.Contains(out, want) || !strings.Contains(out, "recomputing in full") || !strings.Contains(out, "verifier:") {
				t.Fatalf("a new switch: want %q and a full recompute, got\n%s", want, out)
			}
		})
	}
}

// goneLIDs is lids_gone of the summary.json in dir.
func goneLIDs(t *testing.T, dir string) int { return repairCountsIn(t, dir).GoneLIDs }

// repairCountsIn reads the repair's counts from summary.json in dir.
func repairCountsIn(t *testing.T, dir string) repairCounts {
	t.Helper()
	var sum repairSummary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil {
		t.Fatal(err)
	}
	return sum.Repair
}

// lidsGone counts the LIDs intact's ports hold (as recorded on them) whose
// port damaged lacks or holds without a cable.
func lidsGone(intact, damaged *fabric.Fabric) int {
	n := 0
	for i := range intact.NumNodes() {
		id := fabric.NodeID(i)
		for p, a := range intact.Node(id).Attrs {
			if a.LID == 0 {
				continue
			}
			now, ok := damaged.NodeByGUID(intact.GUID(id))
			if ok && p != 0 {
				_, ok = damaged.Peer(fabric.PortRef{Node: now, Port: p})
			}
			if !ok {
				n += 1 << a.LMC
			}
		}
	}
	return n
}

// withoutLoneHCAs returns f without its HCAs that have no cable.
func withoutLoneHCAs(t *testing.T, f *fabric.Fabric) *fabric.Fabric {
	t.Helper()
	var lone []fabric.NodeID
	for _, h := range f.IDsOf(fabric.HCA) {
		if _, ok := f.Peer(fabric.PortRef{Node: h, Port: 1}); !ok {
			lone = append(lone, h)
		}
	}
	g, err := f.Without(lone, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// withoutTopSwitch returns f without the switch whose HCA holds f's top LID.
func withoutTopSwitch(t *testing.T, f *fabric.Fabric) *fabric.Fabric {
	t.Helper()
	var top fabric.PortRef
	for _, h := range f.IDsOf(fabric.HCA) {
		for p := 1; p <= f.Ports(h); p++ {
			a, _ := f.PortAttr(fabric.PortRef{Node: h, Port: p})
			if b, _ := f.PortAttr(top); a.LID > b.LID {
				top = fabric.PortRef{Node: h, Port: p}
			}
		}
	}
	peer, _ := f.Peer(top)
	g, err := f.Without([]fabric.NodeID{peer.Node}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// unaffectedKept requires every entry of the repaired tables got (on
// fabric damaged) whose path in the previous tables prev (on fabric
// intact) never met a switch damaged lacks to be prev's entry, and
// returns how many such entries there are.
func unaffectedKept(t *testing.T, name string, intact *fabric.Fabric, prev *lft.Tables, damaged *fabric.Fabric, got *lft.Tables, mended int) int {
	t.Helper()
	kept, moved := 0, 0
	for _, sw := range got.Switches() {
		was, _ := intact.NodeByGUID(damaged.GUID(sw))
		for lid := lft.LID(1); lid <= got.LIDs().Top(); lid++ {
			if _, _, ok := got.LIDs().Owner(lid); !ok || metGone(intact, prev, damaged, was, lid) {
				continue
			}
			if a, b := prev.Port(was, lid), got.Port(sw, lid); a != b {
				if moved++; moved > mended {
					t.Fatalf("%s: %s LID 0x%04x: port %d, was %d, though its path missed every gone switch (and %d entries were mended)", name, damaged.Name(sw), lid, b, a, mended)
				}
				continue
			}
			kept++
		}
	}
	if moved != mended {
		t.Fatalf("%s: %d entries whose paths missed the gone switches moved, summary.json says %d were mended", name, moved, mended)
	}
	return kept
}

// metGone follows the previous tables from switch sw toward lid and says
// whether the path enters a switch fabric damaged lacks.
func metGone(intact *fabric.Fabric, prev *lft.Tables, damaged *fabric.Fabric, sw fabric.NodeID, lid lft.LID) bool {
	for hop := 0; hop < intact.NumNodes(); hop++ {
		if _, ok := damaged.NodeByGUID(intact.GUID(sw)); !ok {
			return true
		}
		port := int(prev.Port(sw, lid))
		if port == 0 || port == int(lft.Drop) {
			return false
		}
		peer, ok := intact.Peer(fabric.PortRef{Node: sw, Port: port})
		if !ok || intact.Kind(peer.Node) != fabric.Switch {
			return false
		}
		sw = peer.Node
	}
	return false
}

// samePlugin requires the tables route wrote (got, on fabric f) to be
// what the plugin's state answers: every switch's LFT, the path SL of
// every HCA LID to every DLID, and the SL2VL entries of every cabled port
// pair.
func samePlugin(t *testing.T, name string, f *fabric.Fabric, got *lft.Tables, plugin *engine.State) {
	t.Helper()
	for _, sw := range got.Switches() {
		if tab, _ := plugin.LFT(f.GUID(sw)); !bytes.Equal(tab, got.LFT(sw)) {
			t.Fatalf("%s: %s: route's repaired LFT differs from the plugin's", name, f.Name(sw))
		}
		for in := 0; in <= f.Ports(sw); in++ {
			if _, ok := f.Peer(fabric.PortRef{Node: sw, Port: in}); !ok && in != 0 {
				continue
			}
			for out := 1; out <= f.Ports(sw); out++ {
				if _, ok := f.Peer(fabric.PortRef{Node: sw, Port: out}); !ok || out == in {
					continue
				}
				for sl := uint8(0); sl < 16; sl++ {
					if a, b := got.SL2VL(sw, in, out, sl), plugin.SL2VL(f.GUID(sw), in, out, sl); a != b {
						t.Fatalf("%s: %s %d->%d SL %d: VL %d, the plugin's %d", name, f.Name(sw), in, out, sl, a, b)
					}
				}
			}
		}
	}
	for _, src := range got.LIDs().Ports() {
		if src.Port.Port == 0 {
			continue
		}
		for dlid := lft.LID(1); dlid <= got.LIDs().Top(); dlid++ {
			if a, b := got.PathSL(src.Port, dlid), plugin.PathSL(src.Base, dlid); a != b {
				t.Fatalf("%s: path SL %s -> 0x%04x: %d, the plugin's %d", name, f.PortString(src.Port), dlid, a, b)
			}
		}
	}
}

// TestRoutePreviousDoesNotDependOnTheCores: with two switches gone, the
// files route --previous writes are the same bytes at GOMAXPROCS 1, 2
// and 8 (its printout holds the repair's wall time).
func TestRoutePreviousDoesNotDependOnTheCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	dir := t.TempDir()
	sf, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		t.Fatal(err)
	}
	prevDir := filepath.Join(dir, "prev")
	if _, err := runApp(t, append(append([]string{"route", "--fabric", writeFabric(t, dir, "intact.json", sf)}, routeArgs...), "-o", prevDir)...); err != nil {
		t.Fatal(err)
	}
	damaged, err := failures.Draw(sf, 0, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	damagedFile := writeFabric(t, dir, "damaged.json", damaged)
	var first map[string][]byte
	for _, procs := range []int{1, 2, 8} {
		runtime.GOMAXPROCS(procs)
		outDir := filepath.Join(dir, fmt.Sprint("repaired-", procs))
		out, err := runApp(t, append(append([]string{"route", "--fabric", damagedFile}, routeArgs...), "--previous", prevDir, "-o", outDir)...)
		if err != nil || !strings.Contains(out, "repaired the routing") {
			t.Fatalf("GOMAXPROCS %d: no repair (%v):\n%s", procs, err, out)
		}
		got := map[string][]byte{}
		for _, name := range []string{"opensm-lfts.txt", "guid2lid", "path-sl.txt", "sl2vl.txt", "summary.json"} {
			if got[name], err = os.ReadFile(filepath.Join(outDir, name)); err != nil {
				t.Fatal(err)
			}
		}
		if first == nil {
			first = got
			continue
		}
		for name, b := range first {
			if !bytes.Equal(got[name], b) {
				t.Errorf("%s differs at GOMAXPROCS %d from GOMAXPROCS 1", name, procs)
			}
		}
	}
}
