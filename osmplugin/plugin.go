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
// After a small change (a few cables or switches gone, LIDs as before) the
// last routing is repaired instead of recomputed (repair.go), unless the
// settings say repair = false.
package main

/*
#cgo CFLAGS: -I/usr/include/infiniband -Wall -Wno-unused-function
#cgo LDFLAGS: -lopensm -losmcomp
#include <stdint.h>
*/
import "C"

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"slimroute/deadlock"
	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/pipeline"
)

// state is one finished computation or repair; it is replaced whole,
// never edited.
type state struct {
	tables *lft.Tables
	// the last full computation's VL assignment, for an HCA's egress VL,
	// and the spare SLs repairs added since, with their VLs
	assign *deadlock.Assignment
	spares map[uint8]uint8
	nodes  map[fabric.GUID]fabric.NodeID
}

var (
	mu      sync.RWMutex
	current *state
)

// writeMsg copies text into the C buffer buf of n bytes, cut to fit and
// NUL-terminated.
func writeMsg(buf *C.char, n C.int, text string) {
	msg := []byte(text)
	if len(msg) >= int(n) {
		msg = msg[:int(n)-1]
	}
	dst := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n))
	copy(dst, msg)
	dst[len(msg)] = 0
}

func errOut(buf *C.char, n C.int, err error) C.int {
	writeMsg(buf, n, err.Error())
	return -1
}

// slimrouteCompute routes the fabric given as slimroute JSON with the
// settings in the TOML file cfgPath ("" for defaults). It returns 0 and a
// summary in msg, or -1 and the error in msg.
//
//export slimrouteCompute
func slimrouteCompute(js *C.char, jsLen C.int, cfgPath *C.char, msg *C.char, msgLen C.int) C.int {
	cfg := pipeline.Config{LMC: -1, Deadlock: "auto", Workers: runtime.GOMAXPROCS(0)}
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
	// every port's LMC is OpenSM's, as the shim reports it: 0 means lmc 0
	cfg.LIDsFromFabric, cfg.LMC = true, 0
	mu.RLock()
	last := current
	mu.RUnlock()
	if last != nil && (cfg.Repair == nil || *cfg.Repair) {
		st, text, ok := repairLast(last, f, cfg)
		if ok {
			publish(st)
			writeMsg(msg, msgLen, text)
			return 0
		}
		fmt.Fprintf(os.Stderr, "slimroute: %s\n", text)
	}
	res, err := pipeline.Run(f, cfg)
	if err != nil {
		return errOut(msg, msgLen, err)
	}
	publish(&state{tables: res.Tables, assign: res.Assignment, spares: map[uint8]uint8{}})
	writeMsg(msg, msgLen, summary(res))
	return 0
}

// publish makes st the state OpenSM's callbacks read.
func publish(st *state) {
	f := st.tables.Fabric()
	st.nodes = map[fabric.GUID]fabric.NodeID{}
	for i := range f.NumNodes() {
		st.nodes[f.Node(fabric.NodeID(i)).GUID] = fabric.NodeID(i)
	}
	mu.Lock()
	current = st
	mu.Unlock()
}

// summary is the line OpenSM logs after a successful computation.
func summary(res *pipeline.Result) string {
	a := res.Assignment
	return fmt.Sprintf("slimroute: %d switches, %d LID-holding ports, %d layers (%s), deadlock scheme %s: %d VLs, %d SLs; verifier: no loops, acyclic CDG over %d paths",
		res.Routing.NumSwitches(), len(res.LIDs.Ports), res.Routing.NumLayers(), res.Routing.Bounds, a.Scheme, a.VLs, a.SLs, res.Verify.Walks)
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
	id, ok := st.nodes[fabric.GUID(guid)]
	if !ok {
		return -1
	}
	tab := st.tables.LFT(id)
	if tab == nil {
		return -1
	}
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
	owner, _, ok := st.tables.LIDs().Owner(lft.LID(slid))
	if !ok || owner.Port.Port == 0 {
		return 0
	}
	return C.uint8_t(st.tables.PathSL(owner.Port, lft.LID(dlid)))
}

// slimrouteSL2VL returns the VL for (node guid, in port, out port, SL): a
// switch's from the tables, an HCA's as the VL assignment maps the
// scheme's first hop.
//
//export slimrouteSL2VL
func slimrouteSL2VL(guid C.uint64_t, in, out, sl C.uint8_t) C.uint8_t {
	mu.RLock()
	st := current
	mu.RUnlock()
	if st == nil {
		return 0
	}
	id, ok := st.nodes[fabric.GUID(guid)]
	switch {
	case !ok:
		return 0
	case st.tables.SL2VLClass(id, 0) >= 0:
		return C.uint8_t(st.tables.SL2VL(id, int(in), int(out), uint8(sl)))
	}
	// an HCA's table is its egress: the route's first hop, as if from the
	// HCA itself (in port 0), or a spare SL's VL
	if vl, ok := st.spares[uint8(sl)]; ok {
		return C.uint8_t(vl)
	}
	return C.uint8_t(st.assign.VL(id, 0, int(out), uint8(sl)))
}

func main() {}
