//go:build osmplugin

// Command osmplugin is slimroute as an OpenSM routing engine: a c-shared
// library OpenSM loads as an event plugin (event_plugin_name slimroute),
// which registers the routing engine "slimroute" (select it with -R
// slimroute). Build it with `make plugin` (go build -buildmode=c-shared
// -tags osmplugin) against Debian's libopensm-dev; see docs/opensm-plugin.md.
//
// The C shim (shim.c) is a thin adapter: on every heavy sweep it writes
// OpenSM's discovered subnet — nodes, cables, LIDs, LMC — in slimroute's
// JSON fabric format and hands it to slimrouteCompute, which runs the same
// pipeline as `slimroute route` with OpenSM's LIDs. The shim then copies
// the tables into new_lft and answers path_sl and update_sl2vl from the
// result. A failed computation leaves OpenSM to its default engine; the
// previous result keeps serving path records until a new one is complete.
package main

/*
#cgo CFLAGS: -I/usr/include/infiniband -Wall -Wno-unused-function
#cgo LDFLAGS: -lopensm -losmcomp
#include <stdint.h>
*/
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"unsafe"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/pipeline"
)

// state is one finished computation; it is replaced whole, never edited.
type state struct {
	res    *pipeline.Result
	f      *fabric.Fabric
	sw     map[fabric.GUID]fabric.NodeID
	hca    map[fabric.GUID]bool
	scheme string
	vls    int
}

var (
	mu      sync.RWMutex
	current *state
)

// inSettingsTerms rewrites the command-line flags in an error's advice as
// the keys of the plugin's settings file, where the advice is followed.
func inSettingsTerms(err error) error {
	msg := flagDeadlock.ReplaceAllString(err.Error(), `deadlock = "$1"`)
	return errors.New(flagKeys.Replace(msg))
}

var (
	flagDeadlock = regexp.MustCompile(`--deadlock (\w+)`)
	flagKeys     = strings.NewReplacer("--vls ", "vls = ", "(--vls)", "(vls)", "--best-effort", "best_effort = true", "--max-len ", "max_len = ", "--min-len ", "min_len = ", "--layers", "layers")
)

func errOut(buf *C.char, n C.int, err error) C.int {
	msg := []byte(err.Error())
	if len(msg) >= int(n) {
		msg = msg[:int(n)-1]
	}
	dst := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n))
	copy(dst, msg)
	dst[len(msg)] = 0
	return -1
}

// slimrouteCompute routes the fabric given as slimroute JSON with the
// settings in the TOML file cfgPath ("" for defaults). It returns 0 and a
// summary in msg, or -1 and the error in msg.
//
//export slimrouteCompute
func slimrouteCompute(js *C.char, jsLen C.int, cfgPath *C.char, msg *C.char, msgLen C.int) C.int {
	cfg := pipeline.Config{LMC: -1, Deadlock: "auto"}
	if p := C.GoString(cfgPath); p != "" {
		fh, err := os.Open(p)
		if err != nil {
			return errOut(msg, msgLen, fmt.Errorf("reading the plugin settings: %w", err))
		}
		cfg, err = pipeline.ParseConfig(fh, p)
		fh.Close()
		if err != nil {
			return errOut(msg, msgLen, err)
		}
		if cfg.Deadlock == "" {
			cfg.Deadlock = "auto" // a failing cable must not push OpenSM off the plugin
		}
	}
	data := C.GoBytes(unsafe.Pointer(js), jsLen)
	f, err := fabric.ReadJSON(bytes.NewReader(data), "OpenSM subnet")
	if err == nil {
		// OpenSM's tables are not in GUID order; route as offline does
		f, err = f.Canonical()
	}
	if err != nil {
		return errOut(msg, msgLen, err)
	}
	cfg.LIDsFromFabric = true
	res, err := pipeline.Run(f, cfg)
	if err != nil {
		return errOut(msg, msgLen, inSettingsTerms(err))
	}
	st := &state{res: res, f: f, sw: map[fabric.GUID]fabric.NodeID{}, hca: map[fabric.GUID]bool{}, scheme: string(res.Assignment.Scheme), vls: res.Assignment.VLs}
	for i := range f.Nodes() {
		n := f.Node(fabric.NodeID(i))
		if n.Kind == fabric.Switch {
			st.sw[n.GUID] = fabric.NodeID(i)
		} else {
			st.hca[n.GUID] = true
		}
	}
	mu.Lock()
	current = st
	mu.Unlock()
	a := res.Assignment
	summary := fmt.Errorf("slimroute: %d switches, %d LID-holding ports, %d layers (%s), deadlock scheme %s: %d VLs, %d SLs; verifier: no loops, acyclic CDG over %d paths",
		len(st.sw), len(res.LIDs.Ports), res.Routing.NumLayers(), res.Routing.Bounds, a.Scheme, a.VLs, a.SLs, res.Verify.Walks)
	errOut(msg, msgLen, summary)
	return 0
}

// slimrouteLFT copies the table of switch guid into lft (size entries,
// indexed by LID, 0xFF where there is no route) and returns the number of
// LIDs it holds, or -1 for an unknown switch.
//
//export slimrouteLFT
func slimrouteLFT(guid C.uint64_t, out *C.uint8_t, size C.int) C.int {
	mu.RLock()
	st := current
	mu.RUnlock()
	if st == nil {
		return -1
	}
	sw, ok := st.sw[fabric.GUID(guid)]
	if !ok {
		return -1
	}
	tab := st.res.Tables.LFT(sw)
	dst := unsafe.Slice((*byte)(unsafe.Pointer(out)), int(size))
	for i := range dst {
		dst[i] = lft.Drop
	}
	return C.int(copy(dst, tab))
}

// slimroutePathSL answers a path record's SL for host-order LIDs.
//
//export slimroutePathSL
func slimroutePathSL(slid, dlid C.uint16_t) C.uint8_t {
	mu.RLock()
	st := current
	mu.RUnlock()
	if st == nil {
		return 0
	}
	owner, _, ok := st.res.LIDs.Owner(lft.LID(slid))
	if !ok || owner.Port.Port == 0 {
		return 0
	}
	return C.uint8_t(st.res.Tables.PathSL(owner.Port, lft.LID(dlid)))
}

// slimrouteSL2VL returns the VL for (node guid, in port, out port, SL). An
// HCA maps its SLs as the scheme's first hop does: identity for dfsssp, VL 0
// otherwise.
//
//export slimrouteSL2VL
func slimrouteSL2VL(guid C.uint64_t, in, out, sl C.uint8_t) C.uint8_t {
	mu.RLock()
	st := current
	mu.RUnlock()
	if st == nil {
		return 0
	}
	if sw, ok := st.sw[fabric.GUID(guid)]; ok {
		return C.uint8_t(st.res.Tables.SL2VL(sw, int(in), int(out), uint8(sl)))
	}
	if st.scheme == "dfsssp" && int(sl) < st.vls {
		return C.uint8_t(sl)
	}
	return 0
}

func main() {}
