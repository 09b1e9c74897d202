package designcheck

import (
	"fmt"
	"strings"
	"testing"

	"slimroute/fabric"
)

// tuples lists every tuple 0 ≤ c_i < dims[i], last coordinate fastest.
func tuples(dims []int) [][]int {
	out := [][]int{{}}
	for _, d := range dims {
		var next [][]int
		for _, t := range out {
			for x := range d {
				next = append(next, append(append([]int(nil), t...), x))
			}
		}
		out = next
	}
	return out
}

func hxName(c []int) string { return "hx-sw-" + joinInts(c) }
func hxHCA(c []int) string  { return "hx-hca-" + joinInts(c) }

// hyperX builds the Hamming graph of dims from the definition: trunk
// cables between tuples that differ in exactly one coordinate.
func hyperX(dims []int, trunk, endpoints int) fx {
	var x fx
	ts := tuples(dims)
	for i, a := range ts {
		x.sw = append(x.sw, hxName(a))
		for h := 1; h <= endpoints; h++ {
			x.hca = append(x.hca, [2]string{fmt.Sprintf("%s-%d", hxHCA(a), h), hxName(a)})
		}
		for _, b := range ts[i+1:] {
			diff := 0
			for k := range a {
				if a[k] != b[k] {
					diff++
				}
			}
			for range trunk * btoi(diff == 1) {
				x.cab = append(x.cab, [2]string{hxName(a), hxName(b)})
			}
		}
	}
	return x
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func hxCheck(dims []int, trunk, endpoints int) func(*fabric.Fabric) error {
	return func(f *fabric.Fabric) error { return HyperX(f, dims, trunk, endpoints) }
}

func TestHyperXAccepts(t *testing.T) {
	for _, c := range []struct {
		dims             []int
		trunk, endpoints int
	}{{[]int{3, 4}, 2, 2}, {[]int{5}, 1, 1}, {[]int{2, 2, 2}, 1, 3}, {[]int{3, 1, 2}, 3, 0}, {[]int{1}, 1, 2}} {
		t.Run(fmt.Sprint(c.dims), func(t *testing.T) {
			accept(t, hyperX(c.dims, c.trunk, c.endpoints), hxCheck(c.dims, c.trunk, c.endpoints))
		})
	}
}

func TestHyperXRejectsMutants(t *testing.T) {
	dims := []int{3, 4}
	x := hyperX(dims, 2, 2)
	ms := append(cableMutants(x), hcaMutants(x)...)
	ts := tuples(dims)
	for i, a := range ts {
		for _, b := range ts[i+1:] {
			ms = append(ms, mutant{"swap " + hxName(a) + " " + hxName(b), swapNames(x, hxName(a), hxName(b), hxHCA(a), hxHCA(b))})
		}
	}
	rejectAll(t, ms, hxCheck(dims, 2, 2))
}

// A judge asked about other parameters must reject the same fabric.
func TestHyperXRejectsOtherParameters(t *testing.T) {
	f := hyperX([]int{3, 4}, 2, 2).build(t, nil)
	for _, c := range []struct {
		dims             []int
		trunk, endpoints int
		want             string
	}{
		{[]int{4, 3}, 2, 2, `switch "hx-sw-0-3": coordinate 2 is 3, want 0..2`},
		{[]int{3, 4}, 1, 2, `switches "hx-sw-0-0" and "hx-sw-1-0" differ in coordinate 1 only: 2 cables, want 1`},
		{[]int{3, 4}, 2, 3, `fabric has 24 HCAs, want 36`},
		{[]int{3, 4, 1}, 2, 2, `switch "hx-sw-0-0": name not of the form hx-sw-c1-…-c3`},
		{[]int{12}, 2, 2, `name not of the form hx-sw-c1-…-c1`},
		{[]int{3, 0}, 2, 2, `HyperX dims[1]=0: want ≥ 1`},
	} {
		if err := HyperX(f, c.dims, c.trunk, c.endpoints); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("HyperX(%v, %d, %d) = %v, want an error containing %q", c.dims, c.trunk, c.endpoints, err, c.want)
		}
	}
}

func TestHyperXErrors(t *testing.T) {
	x := hyperX([]int{3, 4}, 2, 2)
	check := hxCheck([]int{3, 4}, 2, 2)
	drop := x.clone()
	drop.cab = drop.cab[1:]
	wantErr(t, drop, check, `switches "hx-sw-0-0" and "hx-sw-0-1" differ in coordinate 2 only: 1 cables, want 2`)
	diag := x.clone()
	diag.cab = append(diag.cab, [2]string{"hx-sw-0-0", "hx-sw-1-1"})
	wantErr(t, diag, check, `switches "hx-sw-0-0" and "hx-sw-1-1" differ in 2 coordinates: 1 cables, want 0`)
	noHCA := x.clone()
	noHCA.hca = noHCA.hca[1:]
	wantErr(t, noHCA, check, `fabric has 23 HCAs, want 24`)
	moveHCA := x.clone()
	moveHCA.hca[0][1] = "hx-sw-2-3"
	wantErr(t, moveHCA, check, `switch "hx-sw-0-0": 1 HCAs attached, want 2`)
	wantErr(t, rename(x, "hx-hca-1-2-2", "hx-hca-1-2-0", "", ""), check,
		`switch "hx-sw-1-2": attached HCA "hx-hca-1-2-0", want names hx-hca-1-2-1 … hx-hca-1-2-2`)
}

// The degree and diameter checks follow from the cable check when the
// names are right; on their own they still judge the graph.
func TestHyperXDegreeAndDiameterOnTheirOwn(t *testing.T) {
	square, err := newView(hyperX([]int{2, 2}, 1, 0).build(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dims  []int
		trunk int
		want  string
	}{
		{[]int{2, 2}, 1, ""},
		{[]int{3}, 1, "switch graph diameter 2, want 1"},
		{[]int{2, 2}, 2, `switch "hx-sw-0-0": network degree 2, want 4`},
	} {
		err := hxDegreeAndDiameter(square, c.dims, c.trunk)
		if c.want == "" && err != nil || c.want != "" && (err == nil || err.Error() != c.want) {
			t.Errorf("dims %v trunk %d: got %v, want %q", c.dims, c.trunk, err, c.want)
		}
	}
}
