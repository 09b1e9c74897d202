package designcheck

import (
	"fmt"
	"testing"

	"slimroute/fabric"
)

func leafName(g, j int) string  { return fmt.Sprintf("dfp-leaf-%d-%d", g, j) }
func spineName(g, j int) string { return fmt.Sprintf("dfp-spine-%d-%d", g, j) }

// dragonflyPlus builds a Dragonfly+ from the definition: each group a
// complete bipartite leaf/spine graph; for every two groups g < h, m
// global cables, each taking the next free global slot of g and of h (slot
// k of a group belongs to spine k mod spines, so every spine ends with
// exactly global of them).
func dragonflyPlus(groups, leaves, spines, global, endpoints int) fx {
	var x fx
	for g := range groups {
		for j := range leaves {
			x.sw = append(x.sw, leafName(g, j))
			for h := 1; h <= endpoints; h++ {
				x.hca = append(x.hca, [2]string{fmt.Sprintf("dfp-hca-%d-%d-%d", g, j, h), leafName(g, j)})
			}
		}
		for j := range spines {
			x.sw = append(x.sw, spineName(g, j))
			for l := range leaves {
				x.cab = append(x.cab, [2]string{leafName(g, l), spineName(g, j)})
			}
		}
	}
	slot := make([]int, groups)
	next := func(g int) string { slot[g]++; return spineName(g, (slot[g]-1)%spines) }
	for g := range groups {
		for h := g + 1; h < groups; h++ {
			for range spines * global / (groups - 1) {
				x.cab = append(x.cab, [2]string{next(g), next(h)})
			}
		}
	}
	return x
}

func dfpCheck(groups, leaves, spines, global, endpoints int) func(*fabric.Fabric) error {
	return func(f *fabric.Fabric) error { return DragonflyPlus(f, groups, leaves, spines, global, endpoints) }
}

var dfpCases = [][5]int{{3, 2, 2, 1, 2}, {4, 2, 3, 1, 1}, {3, 3, 2, 2, 1}, {5, 1, 2, 2, 2}, {1, 2, 3, 0, 1}, {2, 2, 2, 3, 0}}

func TestDragonflyPlusAccepts(t *testing.T) {
	for _, c := range dfpCases {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			accept(t, dragonflyPlus(c[0], c[1], c[2], c[3], c[4]), dfpCheck(c[0], c[1], c[2], c[3], c[4]))
		})
	}
}

func TestDragonflyPlusRejectsMutants(t *testing.T) {
	for _, c := range dfpCases[:3] {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			x := dragonflyPlus(c[0], c[1], c[2], c[3], c[4])
			ms := append(cableMutants(x), hcaMutants(x)...)
			ms = append(ms, crossGroupSwaps(x, c[0], c[1], c[2])...)
			rejectAll(t, ms, dfpCheck(c[0], c[1], c[2], c[3], c[4]))
		})
	}
}

// crossGroupSwaps exchanges the names (and HCA names) of every two
// switches in different groups. Swaps inside a group are left out: two
// leaves of a group have the same neighbours, so swapping them is an
// automorphism and the result is still a correct Dragonfly+.
func crossGroupSwaps(x fx, groups, leaves, spines int) []mutant {
	type sw struct{ name, hca string }
	var all [][]sw
	for g := range groups {
		var in []sw
		for j := range leaves {
			in = append(in, sw{leafName(g, j), fmt.Sprintf("dfp-hca-%d-%d", g, j)})
		}
		for j := range spines {
			in = append(in, sw{spineName(g, j), "none"})
		}
		all = append(all, in)
	}
	var out []mutant
	for g := range groups {
		for h := g + 1; h < groups; h++ {
			for _, a := range all[g] {
				for _, b := range all[h] {
					out = append(out, mutant{"swap " + a.name + " " + b.name, swapNames(x, a.name, b.name, a.hca, b.hca)})
				}
			}
		}
	}
	return out
}

// Re-pairing two global cables keeps every spine's global count but can
// give one group pair two cables and another none.
func TestDragonflyPlusRejectsUnevenGlobalCabling(t *testing.T) {
	// 4 groups, 3 spines, 1 global cable each: m = 1. The builder above
	// cables (0,3) as spine 0-2 – 3-0 and (1,2) as 1-1 – 2-1; re-pair them
	// as 0-2 – 1-1 and 3-0 – 2-1.
	x := dragonflyPlus(4, 2, 3, 1, 1)
	if err := DragonflyPlus(x.build(t, nil), 4, 2, 3, 1, 1); err != nil {
		t.Fatal(err)
	}
	swapEnds(t, &x, [2]string{spineName(0, 2), spineName(3, 0)}, [2]string{spineName(1, 1), spineName(2, 1)})
	wantErr(t, x, dfpCheck(4, 2, 3, 1, 1), `groups 0 and 1: 2 global cables, want 1`)

	// With 3 groups every spine count fixes every pair count, so the only
	// re-pairing that makes (0,1) two cables and (0,2) none puts a cable
	// inside group 2.
	y := dragonflyPlus(3, 2, 2, 1, 2)
	swapEnds(t, &y, [2]string{spineName(0, 1), spineName(2, 0)}, [2]string{spineName(1, 1), spineName(2, 1)})
	wantErr(t, y, dfpCheck(3, 2, 2, 1, 2), `spines "dfp-spine-2-0" and "dfp-spine-2-1" of group 2: 1 cables, want 0`)
}

// swapEnds replaces cables a = (a0, a1) and b = (b0, b1) of x with
// (a0, b0) and (a1, b1).
func swapEnds(t *testing.T, x *fx, a, b [2]string) {
	t.Helper()
	ia, ib := -1, -1
	for i, c := range x.cab {
		switch c {
		case a:
			ia = i
		case b:
			ib = i
		}
	}
	if ia < 0 || ib < 0 {
		t.Fatalf("cables %v and %v not both in the fixture", a, b)
	}
	x.cab[ia], x.cab[ib] = [2]string{a[0], b[0]}, [2]string{a[1], b[1]}
}

func TestDragonflyPlusErrors(t *testing.T) {
	x := dragonflyPlus(3, 2, 2, 1, 2)
	check := dfpCheck(3, 2, 2, 1, 2)
	drop := x.clone()
	drop.cab = drop.cab[1:] // leaf 0-0 – spine 0-0
	wantErr(t, drop, check, `leaf "dfp-leaf-0-0": cabled to 1 of its group's 2 spines, want all`)
	ll := x.clone()
	ll.cab = append(ll.cab, [2]string{leafName(1, 0), leafName(1, 1)})
	wantErr(t, ll, check, `leaf 0 of group 1 "dfp-leaf-1-0" cabled to leaf 1 of group 1 "dfp-leaf-1-1" (1 cables), want none`)
	hcaOnSpine := x.clone()
	hcaOnSpine.hca[0][1] = spineName(0, 0)
	wantErr(t, hcaOnSpine, check, `switch "dfp-leaf-0-0": 1 HCAs attached, want 2`)
	spineHCA := x.clone()
	spineHCA.hca = append(spineHCA.hca, [2]string{"dfp-hca-9-9-9", spineName(2, 1)})
	wantErr(t, spineHCA, check, `fabric has 13 HCAs, want 12`)
	noGlobal := x.clone()
	noGlobal.cab = noGlobal.cab[:len(noGlobal.cab)-1]
	wantErr(t, noGlobal, check, `spine "dfp-spine-1-1": 0 global cables, want 1`)
	wantErr(t, x, dfpCheck(3, 2, 2, 2, 2), `spine "dfp-spine-0-0": 1 global cables, want 2`)
	if err := DragonflyPlus(x.build(t, nil), 4, 2, 2, 1, 2); err == nil {
		t.Error("groups=4 spines=2 global=1 accepted; want a precondition error (3 does not divide 2)")
	}
}

// Leaf distances are checked too: with global = 0 every count above holds
// (m = 0), but leaves of different groups are disconnected.
func TestDragonflyPlusDistances(t *testing.T) {
	wantErr(t, dragonflyPlus(2, 2, 1, 0, 0), dfpCheck(2, 2, 1, 0, 0),
		`leaves "dfp-leaf-0-0" and "dfp-leaf-1-0" of groups 0 and 1: -1 switch hops apart (-1: disconnected), want at most 3`)
}

func TestDiameter(t *testing.T) {
	f := hyperX([]int{3, 4}, 2, 1).build(t, nil)
	if d := Diameter(f, f.IDsOf(fabric.Switch)); d != 2 {
		t.Errorf("3×4 HyperX diameter %d, want 2", d)
	}
	if d := Diameter(f, f.IDsOf(fabric.HCA)[:2]); d != -1 {
		t.Errorf("diameter among HCAs %d, want -1", d)
	}
	g := dragonflyPlus(2, 2, 1, 0, 0).build(t, nil)
	if d := Diameter(g, g.IDsOf(fabric.Switch)); d != -1 {
		t.Errorf("disconnected fabric diameter %d, want -1", d)
	}
}
