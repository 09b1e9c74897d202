package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/internal/disguise"
	"slimroute/slimfly"
)

// TestRouteDoesNotDependOnTheInputsOrder writes Slim Flies and a Clos
// fabric as files — JSON, ibsim net and ibnetdiscover output — with their
// nodes, cables and cable ends in seeded random orders, routes each with
// route --fabric, and requires every file route writes (timings.json
// aside) to be the bytes of the file in the builder's order in the same
// format: the routing depends on the fabric, not on how it was listed.
func TestRouteDoesNotDependOnTheInputsOrder(t *testing.T) {
	builds := []struct {
		name  string
		build func() (*fabric.Fabric, error)
	}{
		{"q5", func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 5}) }},
		{"q4", func() (*fabric.Fabric, error) { return slimfly.Build(slimfly.Params{Q: 4}) }},
		{"clos", func() (*fabric.Fabric, error) { return clos.Build(clos.Params{Radix: 12}) }},
	}
	for bi, b := range builds {
		f, err := b.build()
		if err != nil {
			t.Fatal(err)
		}
		for fi, format := range []fabric.Format{"json", "ibsim", "ibnetdiscover"} {
			t.Run(fmt.Sprintf("%s/%s", b.name, format), func(t *testing.T) {
				// each case its own draws: the same shuffles whichever cases -run picks
				rng := rand.New(rand.NewPCG(27, uint64(3*bi+fi)))
				want := routeFile(t, f, format, "want")
				for i := 0; i < 2; i++ {
					got := routeFile(t, shuffled(t, f, rng), format, "got")
					for file, b := range want {
						if !bytes.Equal(got[file], b) {
							t.Errorf("shuffle %d: %s differs from the file in the builder's order", i, file)
						}
					}
				}
			})
		}
	}
}

// routeFile writes f in format, routes it with route --fabric into a
// directory of the given name, and returns the files route wrote.
func routeFile(t *testing.T, f *fabric.Fabric, format fabric.Format, name string) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "fabric."+string(format))
	var b bytes.Buffer
	if err := fabric.Write(&b, f, format); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(os.TempDir(), "slimroute-order-"+name) // the same path each time: route prints it
	defer os.RemoveAll(out)
	os.RemoveAll(out)
	if _, err := runApp(t, "route", "--fabric", in, "--in-format", string(format), "-o", out); err != nil {
		t.Fatal(err)
	}
	files, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for _, e := range files {
		if e.Name() != "timings.json" {
			got[e.Name()], _ = os.ReadFile(filepath.Join(out, e.Name()))
		}
	}
	return got
}

// shuffled returns f as disguise.Shuffled lists it.
func shuffled(t *testing.T, f *fabric.Fabric, rng *rand.Rand) *fabric.Fabric {
	t.Helper()
	g, err := disguise.Shuffled(f, rng)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
