package transition

import (
	"fmt"
	"slices"

	"slimroute/fabric"
	"slimroute/lft"
)

// comparable returns why old and new cannot be judged as two states of one
// fabric (a sentence naming the first difference), or nil. Both must
// program the same nodes, cables and LID plan; the fabric values need not
// be the same pointer (tables read from files carry fabrics of their own).
func comparable(old, new *lft.Tables) error {
	if old == nil || new == nil {
		return fmt.Errorf("transition: nil tables")
	}
	if err := sameFabric(old.Fabric(), new.Fabric()); err != nil {
		return err
	}
	return sameLIDs(old.Fabric(), old.LIDs(), new.LIDs())
}

// sameFabric compares nodes (kind, name, GUID, ports) and cables.
func sameFabric(a, b *fabric.Fabric) error {
	if a == b {
		return nil
	}
	if a.NumNodes() != b.NumNodes() {
		return fmt.Errorf("transition: different fabrics: %d nodes in the old tables' fabric, %d in the new", a.NumNodes(), b.NumNodes())
	}
	for i := range a.NumNodes() {
		id := fabric.NodeID(i)
		if a.Kind(id) != b.Kind(id) || a.Name(id) != b.Name(id) || a.GUID(id) != b.GUID(id) || a.Ports(id) != b.Ports(id) {
			return fmt.Errorf("transition: different fabrics: node %d is %s %q (%s, %d ports) in the old tables' fabric, %s %q (%s, %d ports) in the new",
				i, a.Kind(id), a.Name(id), a.GUID(id), a.Ports(id), b.Kind(id), b.Name(id), b.GUID(id), b.Ports(id))
		}
	}
	if a.NumLinks() != b.NumLinks() {
		return fmt.Errorf("transition: different fabrics: %d cables in the old tables' fabric, %d in the new", a.NumLinks(), b.NumLinks())
	}
	for i := range a.NumLinks() {
		la, lb := a.Link(i), b.Link(i)
		if la.A != lb.A || la.B != lb.B {
			return fmt.Errorf("transition: different fabrics: cable %s–%s in the old tables' fabric, %s–%s in the new",
				a.PortString(la.A), a.PortString(la.B), b.PortString(lb.A), b.PortString(lb.B))
		}
	}
	return nil
}

// sameLIDs compares the LID plans: LMC and every port's LID range.
func sameLIDs(f *fabric.Fabric, a, b *lft.LIDs) error {
	if a.LMC() != b.LMC() {
		return fmt.Errorf("transition: different LID plans: LMC %d in the old tables, %d in the new", a.LMC(), b.LMC())
	}
	pa, pb := a.Ports(), b.Ports()
	if slices.Equal(pa, pb) {
		return nil
	}
	for i := range min(len(pa), len(pb)) {
		if pa[i] != pb[i] {
			return fmt.Errorf("transition: different LID plans: %s holds LID %#04x (LMC %d) in the old tables, %s LID %#04x (LMC %d) in the new",
				f.PortString(pa[i].Port), uint16(pa[i].Base), pa[i].LMC, f.PortString(pb[i].Port), uint16(pb[i].Base), pb[i].LMC)
		}
	}
	return fmt.Errorf("transition: different LID plans: %d LID-holding ports in the old tables, %d in the new", len(pa), len(pb))
}
