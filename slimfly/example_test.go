package slimfly_test

import (
	"fmt"

	"slimroute/fabric"
	"slimroute/slimfly"
)

// The Slim Fly of the NSDI'24 deployment.
func ExampleBuild() {
	f, err := slimfly.Build(slimfly.Params{Q: 5})
	if err != nil {
		panic(err)
	}
	st := fabric.ComputeStats(f)
	fmt.Println(st.Switches, "switches,", st.HCAs, "endpoints, degree", st.MaxDegree, "diameter", st.Diameter)
	// Output: 50 switches, 200 endpoints, degree 7 diameter 2
}

func ExampleNewDesign() {
	d, _ := slimfly.NewDesign(7)
	fmt.Printf("q=%d: δ=%d, k′=%d, X=%v, X′=%v\n", d.Q, d.Delta, d.Degree, d.X, d.XPrime)
	// Output: q=7: δ=-1, k′=11, X=[1 2 5 6], X′=[1 3 4 6]
}
