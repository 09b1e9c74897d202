package wiringfaults_test

import (
	"fmt"
	"strings"

	"slimroute/internal/wiringfaults"
)

// Unplug one HCA cable of the q=5 Slim Fly (250 nodes, 375 cables), seen by
// a discovery with factory switch descriptions and new GUIDs, and judge a
// report that calls the fabric clean: the HCA is not discovered, it and
// its switch are touched, and the judge refuses the report.
func Example() {
	plan, err := wiringfaults.Plan("sf5")
	if err != nil {
		panic(err)
	}
	c, err := wiringfaults.Generate(plan, 42, wiringfaults.Options{
		Naming: wiringfaults.FactoryNewGUIDs, Faults: 1, Kinds: []wiringfaults.Kind{wiringfaults.MissingHCACable}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d of %d nodes discovered, %d touched\n", c.Found.NumNodes(), plan.NumNodes(), len(c.Touched))
	_, err = wiringfaults.Judge(plan, c, []byte(`{"planned_cables": 375, "cables_as_planned": 375, "findings": []}`))
	fmt.Println(strings.SplitN(err.Error(), " (", 2)[0])
	// Output:
	// 249 of 250 nodes discovered, 2 touched
	// cables_as_planned is 375, but 374 of 375 planned cables are really as planned
}
