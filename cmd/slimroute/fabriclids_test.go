package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/slimfly"
)

// TestLIDsFromTheFabricFileAreNamedWithIt writes a Slim Fly whose recorded
// LIDs (an SM's plan at LMC 2) have one HCA port off its alignment, and
// expects route and lft from-pcap with --lids-from-fabric to refuse it
// naming the file, the flag and the port; with the plan as recorded,
// route takes it.
func TestLIDsFromTheFabricFileAreNamedWithIt(t *testing.T) {
	f, err := slimfly.Build(slimfly.Params{Q: 3})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := lft.AssignLIDs(f, lft.LIDOptions{LMC: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, shift int) string {
		ports := plan.Ports()
		ports[len(ports)-1].Base += lft.LID(shift)
		g, err := lft.RecordLIDs(f, ports)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		fh, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		if err := fabric.WriteJSON(fh, g); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good, bad := write("good.json", 0), write("bad.json", 1)
	capture := filepath.Join(dir, "empty.pcap") // the LIDs are refused before it is read
	if err := os.WriteFile(capture, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if o := runCLI("route", "--fabric", good, "--lids-from-fabric", "-o", filepath.Join(dir, "out")); o.status != 0 {
		t.Fatalf("recorded plan: exit %d: %s", o.status, o.stderr)
	}
	port := f.PortString(plan.Ports()[len(plan.Ports())-1].Port)
	for _, args := range [][]string{
		{"route", "--fabric", bad, "--lids-from-fabric", "-o", filepath.Join(dir, "out2")},
		{"lft", "from-pcap", "--fabric", bad, "--lids-from-fabric", capture},
	} {
		o := runCLI(args...)
		for _, want := range []string{"--fabric " + bad + " (--lids-from-fabric)", port, "not aligned to LMC 2"} {
			if o.status != 2 || !strings.Contains(o.stderr, want) {
				t.Fatalf("%v: exit %d, %q does not say %q", args[:2], o.status, o.stderr, want)
			}
		}
	}
}
