package cabling

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"slimroute/fabric"
)

// NetBox bulk-import files, so that the plan can live in a site's DCIM.
//
// The columns are those of NetBox's CSV import forms, checked against
// netbox/dcim/forms/bulk_import.py (netbox-community/netbox, 4.x):
//   - DeviceImportForm: name, role, manufacturer, device_type, status,
//     site, rack, position, face (role, manufacturer, device_type, status
//     and site required; face required with a position);
//   - InterfaceImportForm: device, name, type;
//   - CableImportForm: side_a_device, side_a_type, side_a_name,
//     side_b_device, side_b_type, side_b_name, type, status, label, length,
//     length_unit.
//
// and the choice values against netbox/dcim/choices.py: CableTypeChoices
// ("dac-passive", "aoc"), LinkStatusChoices and DeviceStatusChoices
// ("planned"), CableLengthUnitChoices ("m"), DeviceFaceChoices ("front"),
// InterfaceTypeChoices ("infiniband-sdr" … "infiniband-xdr", "other"); the
// cable type and length unit values also against the REST API schema of
// NetBox 4.6 (the netbox-openapi crate's models on docs.rs). The optional
// side_a_site/side_b_site columns are left out: older NetBox versions do
// not have them, and device names are unique within the one site here.
//
// NetBox looks site, rack ("R01"…), role, manufacturer and device type up
// by name: they must exist before the devices are imported. Interfaces are
// named by port number ("7"), the number the sheets and ibnetdiscover use.

// Device roles, manufacturer and device types written to the device list;
// rename them in NetBox or in the file to match the site's own.
const (
	netboxSwitchRole   = "InfiniBand switch"
	netboxHostRole     = "Server"
	netboxManufacturer = "Generic"
	netboxHostType     = "Server with InfiniBand HCA"
)

// netboxSwitchType names the device type of a switch by its port count.
func netboxSwitchType(ports int) string {
	return fmt.Sprintf("InfiniBand switch %d-port", ports)
}

// WriteNetBoxDevices writes the plan's nodes as NetBox devices of the given
// site, status "planned", with rack "R01"… and, where the node has a unit
// to itself, its position on the rack's front. Hosts that share a unit
// (the default layout's dense racks) get no position: NetBox would reject
// two devices in one unit.
func WriteNetBoxDevices(w io.Writer, p *Plan, site string) error {
	if strings.TrimSpace(site) == "" {
		return fmt.Errorf("NetBox site: give the name of the site the devices go to")
	}
	perUnit := map[fabric.Placement]int{}
	for _, n := range p.Fabric.Nodes() {
		perUnit[n.Place]++
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"name", "role", "manufacturer", "device_type", "status", "site", "rack", "position", "face"})
	for _, n := range p.Fabric.Nodes() {
		role, typ := netboxHostRole, netboxHostType
		if n.Kind == fabric.Switch {
			role, typ = netboxSwitchRole, netboxSwitchType(n.Ports)
		}
		rack, pos, face := "", "", ""
		if n.Place.Rack > 0 {
			rack = fmt.Sprintf("R%02d", n.Place.Rack)
			if n.Place.U > 0 && perUnit[n.Place] == 1 {
				pos, face = strconv.Itoa(n.Place.U), "front"
			}
		}
		cw.Write([]string{n.Name, role, netboxManufacturer, typ, "planned", site, rack, pos, face})
	}
	cw.Flush()
	return cw.Error()
}

// WriteNetBoxInterfaces writes one NetBox interface per cabled port, for
// device types that do not define their ports already. The type is the
// link's InfiniBand speed when the plan has one (--rate), else "other".
func WriteNetBoxInterfaces(w io.Writer, p *Plan) error {
	f := p.Fabric
	speed := make([]map[int]fabric.Speed, f.NumNodes()) // per node: cabled port → speed
	for _, l := range f.Links() {
		for _, e := range []fabric.PortRef{l.A, l.B} {
			if speed[e.Node] == nil {
				speed[e.Node] = map[int]fabric.Speed{}
			}
			speed[e.Node][e.Port] = l.Speed
		}
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"device", "name", "type"})
	for id, n := range f.Nodes() {
		for port := 1; port <= n.Ports; port++ {
			if s, ok := speed[id][port]; ok {
				cw.Write([]string{n.Name, strconv.Itoa(port), netboxInterfaceType(s)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// netboxInterfaceType maps a link speed to NetBox's InfiniBand interface
// types, which are named by speed alone.
func netboxInterfaceType(s fabric.Speed) string {
	if s == 0 || strings.HasPrefix(s.String(), "speed(") {
		return "other"
	}
	return "infiniband-" + strings.ToLower(s.String())
}

// WriteNetBoxCables writes one NetBox cable per planned cable: both ends as
// interfaces of devices, the cable ID as its label, DAC ("dac-passive") for
// copper and AOC ("aoc") for optical, the length class in metres, status
// "planned".
func WriteNetBoxCables(w io.Writer, p *Plan) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type", "side_b_name", "type", "status", "label", "length", "length_unit"})
	for _, c := range p.Cables {
		typ := "dac-passive"
		if c.Kind == "optical" {
			typ = "aoc"
		}
		cw.Write([]string{c.A.Node, "dcim.interface", strconv.Itoa(c.A.Port), c.B.Node, "dcim.interface", strconv.Itoa(c.B.Port),
			typ, "planned", c.ID, strconv.FormatFloat(c.Length, 'f', -1, 64), "m"})
	}
	cw.Flush()
	return cw.Error()
}
