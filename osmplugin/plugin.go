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
// pipeline as `slimroute route` with OpenSM's LIDs (package engine, where
// the logic lives and is tested without OpenSM). The shim then copies the
// tables into new_lft and answers path_sl and update_sl2vl from the
// result. After a small change (a few cables or switches gone, LIDs as
// before) the last routing is repaired instead of recomputed, unless the
// settings say repair = false or the settings file changed since (edit it
// and SIGHUP OpenSM to force a recompute). A failed computation leaves OpenSM to the
// next engine of its routing_engine list, which then answers path records
// itself (see docs/opensm-plugin.md for a deadlock-free choice).
package main

/*
#cgo CFLAGS: -I/usr/include/infiniband -Wall -Wno-unused-function
#cgo LDFLAGS: -lopensm -losmcomp
#include <stdint.h>
#include <stdlib.h>
void slimroute_log_line(int error, const char *text);
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/osmplugin/engine"
)

var (
	mu      sync.RWMutex
	current *engine.State
	// prepared is the routing of the settings' plan, made in the
	// background from the plugin's creation (slimroutePrepare); nil when
	// none was started
	prepared atomic.Pointer[preparation]
	// ahead is the routing of the subnet as discovered on a sweep before
	// the first routing (slimrouteAhead), for that sweep to take, and for
	// every later full computation (a changed job or settings file) while
	// the subnet still fits it; nil when none was started
	ahead atomic.Pointer[preparation]
)

// preparation is a plan being routed: done closes when plan (nil on
// failure or without a plan key) is set.
type preparation struct {
	done chan struct{}
	plan *engine.Plan
}

// slimroutePrepare starts routing the plan the settings file cfgPath
// names (key plan), if any, in the background: OpenSM goes on discovering
// the fabric meanwhile, and the first sweep that routes waits for it. It
// logs the outcome in OpenSM's log.
//
//export slimroutePrepare
func slimroutePrepare(cfgPath *C.char) {
	path := C.GoString(cfgPath)
	inBackground(&prepared, "routing the plan", "prepare", func() *engine.Plan {
		plan, err := engine.Prepare(path, runtime.GOMAXPROCS(0), time.Now)
		switch {
		case err != nil:
			logLine(true, "slimroute: no routing ahead of time: "+err.Error())
		case plan != nil:
			logLine(false, plan.Summary())
		}
		return plan
	})
}

// inBackground stores a new preparation in slot and makes its plan with
// route on a goroutine of its own: a panic (or the fault injected at
// fault) is an error line naming what was being done, and the plan nil.
func inBackground(slot *atomic.Pointer[preparation], what, fault string, route func() *engine.Plan) {
	p := &preparation{done: make(chan struct{})}
	slot.Store(p)
	go func() {
		defer close(p.done)
		defer func() {
			if r := recover(); r != nil {
				caught(what, r)
			}
		}()
		injectFault(fault)
		p.plan = route()
	}()
}

// auditMu keeps one audit write at a time.
var auditMu sync.Mutex

// writeAudit writes st's audit files into dir (engine.State.WriteAudit)
// unless a newer state has replaced it meanwhile; a failure is an error
// line of OpenSM's log (the routing is in force regardless).
func writeAudit(st *engine.State, dir string) {
	defer func() {
		if r := recover(); r != nil {
			caught("writing the audit files", r)
		}
	}()
	auditMu.Lock()
	defer auditMu.Unlock()
	if currentState() != st {
		return
	}
	if err := st.WriteAudit(dir, runtime.GOMAXPROCS(0)); err != nil {
		logLine(true, "slimroute: the audit files beside OpenSM's dumps were not written: "+err.Error())
	}
}

// faultAt names the exported function that panics on purpose, from the
// environment variable SLIMROUTE_PLUGIN_FAULT (compute, lft, pathsl,
// sl2vl, prepare or ahead): for the tests that prove a panic does not take
// OpenSM down. Unset, nothing panics on purpose.
var faultAt = os.Getenv("SLIMROUTE_PLUGIN_FAULT")

// injectFault panics when faultAt names where.
func injectFault(where string) {
	if faultAt == where {
		panic("a fault injected by SLIMROUTE_PLUGIN_FAULT=" + where)
	}
}

// caught logs a panic recovered in an exported function, with its stack,
// as an error line of OpenSM's log, and returns it as an error. OpenSM
// goes on: a failed computation leaves it to the next routing engine.
// The first panic of each kind is logged with its stack, then every
// thousandth, so that a query OpenSM repeats for every path or port does
// not flood its log.
func caught(where string, r any) error {
	err := fmt.Errorf("slimroute: internal error %s: %v", where, r)
	n, _ := panics.LoadOrStore(where, new(atomic.Int64))
	switch k := n.(*atomic.Int64).Add(1); {
	case k == 1:
		logLine(true, fmt.Sprintf("%v (please report it with this stack)\n%s", err, debug.Stack()))
	case k%1000 == 0:
		logLine(true, fmt.Sprintf("%v (%d times so far)", err, k))
	}
	return err
}

// panics counts the panics recovered, per kind.
var panics sync.Map

// logLine writes text as a line of OpenSM's log, an error or information.
func logLine(isError bool, text string) {
	cs := C.CString(text)
	defer C.free(unsafe.Pointer(cs))
	e := C.int(0)
	if isError {
		e = 1
	}
	C.slimroute_log_line(e, cs)
}

// plan waits for the plan's routing, if one was started, and returns it;
// without a plan, the routing made at discovery, if one was started.
func plan() *engine.Plan {
	for _, p := range []*preparation{prepared.Load(), ahead.Load()} {
		if p == nil {
			continue
		}
		if <-p.done; p.plan != nil {
			return p.plan
		}
	}
	return nil
}

// slimrouteWantsAhead tells the shim whether to describe the subnet at
// the end of a heavy sweep for slimrouteAhead: only while no routing is
// in force (later sweeps repair it) and none is being made ahead.
//
//export slimrouteWantsAhead
func slimrouteWantsAhead() C.int {
	if currentState() != nil {
		return 0
	}
	if p := ahead.Load(); p != nil {
		select {
		case <-p.done:
		default:
			return 0
		}
	}
	return 1
}

// slimrouteAhead starts routing the subnet OpenSM has just discovered,
// given as slimroute JSON, with the settings in cfgPath, in the background
// (engine.Ahead): OpenSM assigns LIDs and sets the ports up meanwhile, and
// the sweep's routing waits for it and takes its layers if the subnet
// still fits. It logs what it routed in OpenSM's log.
//
//export slimrouteAhead
func slimrouteAhead(js *C.char, jsLen C.int, cfgPath *C.char) {
	text, path := C.GoBytes(unsafe.Pointer(js), jsLen), C.GoString(cfgPath)
	inBackground(&ahead, "routing the subnet as discovered", "ahead", func() *engine.Plan {
		plan := engine.Ahead(text, path, runtime.GOMAXPROCS(0), time.Now)
		if plan != nil {
			logLine(false, plan.Summary())
		}
		return plan
	})
}

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
// summary in msg, or -1 and the error in msg. With dumpDir (OpenSM's
// dump_files_dir when it writes its dumps; "" otherwise) it then writes
// the audit files there, in the background (writeAudit).
//
//export slimrouteCompute
func slimrouteCompute(js *C.char, jsLen C.int, cfgPath, dumpDir *C.char, msg *C.char, msgLen C.int) (rc C.int) {
	defer func() {
		if r := recover(); r != nil {
			rc = errOut(msg, msgLen, caught("computing the routing", r))
		}
	}()
	injectFault("compute")
	start := time.Now()
	st, err := plan().Compute(C.GoBytes(unsafe.Pointer(js), jsLen), C.GoString(cfgPath), runtime.GOMAXPROCS(0), currentState())
	if err != nil {
		return errOut(msg, msgLen, err)
	}
	mu.Lock()
	current = st
	mu.Unlock()
	if dir := C.GoString(dumpDir); dir != "" {
		go writeAudit(st, dir)
	}
	writeMsg(msg, msgLen, fmt.Sprintf("%s (%d ms on %d cores)", st.Summary(), time.Since(start).Milliseconds(), runtime.GOMAXPROCS(0)))
	return 0
}

func currentState() *engine.State {
	mu.RLock()
	defer mu.RUnlock()
	return current
}

// slimrouteLFT copies the table of switch guid into lft (size entries,
// indexed by LID, 0xFF where there is no route) and returns the number of
// LIDs it holds, or -1 for an unknown switch.
//
//export slimrouteLFT
func slimrouteLFT(guid C.uint64_t, out *C.uint8_t, size C.int) (n C.int) {
	defer func() {
		if r := recover(); r != nil {
			caught("copying a switch's LFT", r)
			n = -1
		}
	}()
	injectFault("lft")
	st := currentState()
	if st == nil {
		return -1
	}
	tab, ok := st.LFT(fabric.GUID(guid))
	if !ok {
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
func slimroutePathSL(slid, dlid C.uint16_t) (sl C.uint8_t) {
	defer func() {
		if r := recover(); r != nil {
			caught("answering a path record's SL (SL 0 given)", r)
			sl = 0
		}
	}()
	injectFault("pathsl")
	st := currentState()
	if st == nil {
		return 0
	}
	return C.uint8_t(st.PathSL(lft.LID(slid), lft.LID(dlid)))
}

// slimrouteSL2VL returns the VL for (node guid, in port, out port, SL); for
// an HCA, out is the port asked for and in 0.
//
//export slimrouteSL2VL
func slimrouteSL2VL(guid C.uint64_t, in, out, sl C.uint8_t) (vl C.uint8_t) {
	defer func() {
		if r := recover(); r != nil {
			caught("answering an SL2VL entry (VL 0 given)", r)
			vl = 0
		}
	}()
	injectFault("sl2vl")
	st := currentState()
	if st == nil {
		return 0
	}
	return C.uint8_t(st.SL2VL(fabric.GUID(guid), int(in), int(out), uint8(sl)))
}

func main() {}
