package fabric

import (
	"bytes"
	"strings"
)

// Sniff recognises a fabric file's format from its first bytes (a few KiB
// are plenty), so a file's name need not tell. It returns "" for content
// that is none of ReadFormats.
//
// slimroute JSON is an object; OpenSM's subnet list starts with "{ SW",
// "{ CA" or "{ Rt". ibnetdiscover output has vendid=, devid= or
// sysimgguid= lines, "Chassis" groups, or node headers whose id is a
// GUID key ("S-248a070300f8f3a0") followed by a comment with the node
// description; an ibsim net file has none of these, and "Hca" headers
// only it writes.
func Sniff(head []byte) Format {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")) // UTF-8 byte order mark
	if bytes.IndexByte(head, 0) >= 0 {
		return "" // binary
	}
	t := bytes.TrimLeft(head, " \t\r\n")
	if bytes.HasPrefix(t, []byte("{ SW")) || bytes.HasPrefix(t, []byte("{ CA")) || bytes.HasPrefix(t, []byte("{ Rt")) {
		return FormatOpenSMSubnet
	}
	if len(t) > 0 && t[0] == '{' {
		return FormatJSON
	}
	for _, line := range strings.Split(string(head), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "" || t[0] == '#' || strings.HasPrefix(t, "switchguid") || strings.HasPrefix(t, "caguid") || strings.HasPrefix(t, "hcaguids"):
			continue // both formats
		case strings.HasPrefix(t, "vendid="), strings.HasPrefix(t, "devid="), strings.HasPrefix(t, "sysimgguid="),
			strings.HasPrefix(t, "Non-Chassis Nodes"), strings.HasPrefix(t, "Chassis"):
			return FormatIBNetDiscover
		case strings.HasPrefix(t, "Hca"):
			return FormatIBSim
		case strings.HasPrefix(t, "Switch"), strings.HasPrefix(t, "Ca"):
			key, rest, ok := quoted(t)
			if !ok {
				return ""
			}
			if guidFromIBNDKey(key) != 0 && strings.HasPrefix(strings.TrimSpace(rest), "#") {
				return FormatIBNetDiscover
			}
			return FormatIBSim
		default:
			return ""
		}
	}
	return ""
}
