package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFromPcapReadsOnlyWithThePacketsOwnSettings exports the LFT SMPs of
// small fabrics (Slim Fly q=3 and q=4, a radix-8 Clos) made at LMC 0..2,
// then reads each capture back with every switch as --sm and every LMC
// 0..3: with the packets' own settings the printed tables are route's own
// (the LFT file it wrote); with any other, exit 2 naming a setting to give
// — never tables printed under the wrong settings.
func TestFromPcapReadsOnlyWithThePacketsOwnSettings(t *testing.T) {
	dir := t.TempDir()
	for _, fab := range [][]string{{"--slimfly", "3"}, {"--slimfly", "4"}, {"--config", "../../testdata/specs/clos-2level.toml"}} {
		for lmc := 0; lmc <= 2; lmc++ {
			name := fmt.Sprintf("%s-lmc%d", strings.Join(fab, ""), lmc)
			name = strings.NewReplacer("/", "_", ".", "_").Replace(name)
			pcap := filepath.Join(dir, name+".pcap")
			layers := fmt.Sprint(1 << lmc)
			if o := runCLI(append([]string{"export", "--format", "pcap", "--layers", layers, "-o", pcap}, fab...)...); o.status != 0 {
				t.Fatalf("%s: export: %s", name, o.stderr)
			}
			route := filepath.Join(dir, name)
			if o := runCLI(append([]string{"route", "--layers", layers, "-o", route}, fab...)...); o.status != 0 {
				t.Fatalf("%s: route: %s", name, o.stderr)
			}
			want, err := os.ReadFile(filepath.Join(route, "opensm-lfts.txt"))
			if err != nil {
				t.Fatal(err)
			}
			sms := switchNames(t, fab)
			for _, sm := range sms {
				for l := 0; l <= 3; l++ {
					o := runCLI(append([]string{"lft", "from-pcap", "--sm", sm, "--lmc", fmt.Sprint(l), pcap}, fab...)...)
					own := sm == sms[0] && l == lmc
					switch {
					case own && (o.status != 0 || o.stdout != string(want)):
						t.Fatalf("%s read with its own settings: exit %d, %s; tables equal to route's: %v", name, o.status, o.stderr, o.stdout == string(want))
					case !own && (o.status != 2 || !strings.Contains(o.stderr, "--")):
						t.Fatalf("%s read with --sm %s --lmc %d (made with %s, %d): exit %d, %s", name, sm, l, sms[0], lmc, o.status, o.stderr)
					}
				}
			}
		}
	}
}

// switchNames lists the fabric's switches, the first (export's SM) first.
func switchNames(t *testing.T, fab []string) []string {
	t.Helper()
	o := runCLI(append([]string{"topo", "--format", "json"}, fab...)...)
	if o.status != 0 {
		t.Fatal(o.stderr)
	}
	var doc struct {
		Nodes []struct{ Name, Kind string }
	}
	if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range doc.Nodes {
		if n.Kind == "switch" {
			names = append(names, n.Name)
		}
	}
	if len(names) == 0 {
		t.Fatalf("no switches in %s", o.stdout[:min(len(o.stdout), 300)])
	}
	return names
}
