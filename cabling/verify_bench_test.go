package cabling

import (
	"testing"

	"slimroute/clos"
	"slimroute/fabric"
	"slimroute/internal/wiringfaults"
	"slimroute/slimfly"
)

// BenchmarkVerify times one verify of a discovery with 10 faults against
// its plan: Slim Fly q=7 and the three-level Clos with 10,368 HCAs (1476
// switches) that pipeline's benchmark routes, with plan descriptions and
// with factory descriptions and new GUIDs (every switch then identified by
// its hosts or neighbours).
func BenchmarkVerify(b *testing.B) {
	sf7, err := slimfly.Build(slimfly.Params{Q: 7, Radix: 20})
	if err != nil {
		b.Fatal(err)
	}
	clos10k, err := clos.Build(clos.Params{Levels: 3, Radix: 36, Pods: 32})
	if err != nil {
		b.Fatal(err)
	}
	for _, fab := range []struct {
		name string
		plan *fabric.Fabric
	}{{"sf7", sf7}, {"clos3-10k", clos10k}} {
		for _, naming := range []wiringfaults.Naming{wiringfaults.PlanDescriptions, wiringfaults.FactoryNewGUIDs} {
			c, err := wiringfaults.Generate(fab.plan, 1, wiringfaults.Options{Naming: naming, Faults: 10})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fab.name+"/"+naming.String(), func(b *testing.B) {
				for b.Loop() {
					if Verify(fab.plan, c.Found).Clean() {
						b.Fatal("10 faults, and clean")
					}
				}
			})
		}
	}
}
