package fabric

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Format names a file format of this package.
type Format string

// The formats slimroute reads and writes.
const (
	FormatIBSim         Format = "ibsim"         // ibsim net file (read, write)
	FormatIBNetDiscover Format = "ibnetdiscover" // ibnetdiscover topology (read, write)
	FormatJSON          Format = "json"          // slimroute JSON (read, write)
	FormatOpenSMSubnet  Format = "opensm-subnet" // OpenSM's opensm-subnet.lst (read)
	FormatDOT           Format = "dot"           // Graphviz (write)
	FormatNodeNameMap   Format = "node-name-map" // GUID → name map (write; read with ReadNodeNameMap)
)

// WriteFormats lists the formats Write accepts, in the order help texts show.
// Each call returns a new slice.
func WriteFormats() []Format {
	return []Format{FormatIBSim, FormatIBNetDiscover, FormatJSON, FormatDOT, FormatNodeNameMap}
}

// ReadFormats lists the formats Read accepts. Each call returns a new slice.
func ReadFormats() []Format {
	return []Format{FormatIBSim, FormatIBNetDiscover, FormatJSON, FormatOpenSMSubnet}
}

// Extension is the file name extension slimroute uses for a format.
func (f Format) Extension() string {
	switch f {
	case FormatIBSim:
		return ".net"
	case FormatIBNetDiscover:
		return ".ibnetdiscover"
	case FormatJSON:
		return ".json"
	case FormatOpenSMSubnet:
		return ".lst"
	case FormatDOT:
		return ".dot"
	case FormatNodeNameMap:
		return ".node-name-map"
	}
	return ""
}

func formatList(fs []Format) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

// Write writes f in the named format.
func Write(w io.Writer, f *Fabric, format Format) error {
	switch format {
	case FormatIBSim:
		return WriteIBSimNet(w, f)
	case FormatIBNetDiscover:
		return WriteIBNetDiscover(w, f)
	case FormatJSON:
		return WriteJSON(w, f)
	case FormatDOT:
		return WriteDOT(w, f)
	case FormatNodeNameMap:
		return WriteNodeNameMap(w, f)
	}
	return fmt.Errorf("unknown format %q: want one of %s", format, formatList(WriteFormats()))
}

// Read reads a fabric in the named format.
func Read(r io.Reader, file string, format Format) (*Fabric, error) {
	switch format {
	case FormatIBSim:
		return ReadIBSimNet(r, file)
	case FormatIBNetDiscover:
		return ReadIBNetDiscover(r, file)
	case FormatJSON:
		return ReadJSON(r, file)
	case FormatOpenSMSubnet:
		return ReadOpenSMSubnet(r, file)
	}
	return nil, fmt.Errorf("cannot read format %q: want one of %s", format, formatList(ReadFormats()))
}

// DetectFormat guesses a fabric file's format from its name: .net and
// .ibsim are ibsim net files, .json slimroute JSON, and anything else is
// taken for ibnetdiscover output, which has no name of its own (byName
// false).
func DetectFormat(path string) (f Format, byName bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".net", ".ibsim":
		return FormatIBSim, true
	case ".json":
		return FormatJSON, true
	case ".lst":
		return FormatOpenSMSubnet, true
	}
	return FormatIBNetDiscover, false
}
