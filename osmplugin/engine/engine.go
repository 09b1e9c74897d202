// Package engine is what the OpenSM plugin (package osmplugin) answers,
// in Go terms: it routes the subnet OpenSM hands over with the same
// pipeline as `slimroute route`, and answers OpenSM's questions — a
// switch's LFT, a path record's SL, an SL2VL entry — from the result. The
// cgo plugin only translates C values to and from these calls, so this is
// where its logic is tested, without OpenSM.
package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"slimroute/fabric"
	"slimroute/jobs"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/transition"
)

// State is one finished computation or repair; it is replaced whole,
// never edited. Its methods answer OpenSM's questions in Go terms; the
// exported cgo functions only translate C values.
type State struct {
	tables *lft.Tables
	// base is the routing the repairs since the last full computation
	// started from (of the whole fabric as far as known): a repair returns
	// routes to it as cables and switches come back
	base *lft.Tables
	// origin is the full computation of the largest fabric seen: kept
	// while the fabric has nothing it lacks, however much is gone, so
	// that a sweep whose full recompute does not fit can still repair the
	// last routing with routes returning to it (keepLast)
	origin *lft.Tables
	nodes  map[fabric.GUID]fabric.NodeID
	// dark are the switches of the subnet the routing leaves out
	// (keepLast): their tables drop every packet
	dark map[fabric.GUID]bool
	// settings is the settings file's text this state was routed with:
	// a sweep that finds it changed recomputes in full (see Compute)
	settings []byte
	// jobs is the job file's text this state was routed for (settings
	// key jobs): a sweep that finds it changed recomputes in full
	jobs []byte
	// summary is the line OpenSM logs: what was computed or repaired,
	// and why a repair was not used
	summary string
	// vls: the data VLs the settings say the switches offer (0: 8)
	vls int
	// result is the full computation this state is (nil after a repair):
	// a changed job file is routed from it (pipeline.Config.SwitchOverFrom)
	result *pipeline.Result
}

// Compute routes the subnet OpenSM discovered, given as slimroute JSON,
// with the settings in the TOML file cfgPath ("" for the defaults) on up
// to workers goroutines. With the last state and a small change (a few
// cables or switches gone, LIDs as before; settings key repair, default
// true) it repairs the last routing instead (see repairLast), unless the
// settings file's text differs from the last state's: editing it (a
// comment will do) and sending OpenSM SIGHUP, which starts a heavy sweep,
// is how an operator forces a full recompute.
func Compute(js []byte, cfgPath string, workers int, last *State) (*State, error) {
	return (*Plan)(nil).Compute(js, cfgPath, workers, last)
}

// Compute is engine.Compute with the plan's routing (Prepare) for a
// fabric that fits it: the same Slim Fly, however named, numbered and
// ordered, with as many HCAs on every switch, and the same settings. p
// may be nil (no plan).
func (p *Plan) Compute(js []byte, cfgPath string, workers int, last *State) (*State, error) {
	cfg, settings, err := readSettings(cfgPath)
	if err != nil {
		return nil, err
	}
	f, err := readSubnet(js)
	if err != nil {
		return nil, err
	}
	if err := withinBudget(f, cfg.Layers, workers, cfg.MemoryLimit, cfgPath); err != nil {
		return nil, err
	}
	// every port's LMC is OpenSM's, as the shim reports it: 0 means lmc 0
	cfg.LIDsFromFabric, cfg.LMC, cfg.Workers = true, 0, workers
	jobsText, why := jobsFor(f, &cfg, cfgPath)
	// a changed job file's switch-over is judged whether or not the
	// routing would otherwise be repaired
	jobsChanged := last != nil && !bytes.Equal(last.jobs, jobsText)
	switch {
	case last == nil:
	case !bytes.Equal(last.settings, settings):
		why += fmt.Sprintf("the settings file %s changed since the last routing; recomputing in full; ", cfgPath)
	case jobsChanged:
		why += fmt.Sprintf("the job file %s changed since the last routing; ", cfg.Jobs)
	case cfg.Repair != nil && !*cfg.Repair:
	default:
		st, text, ok := repairLast(last, f, cfg)
		if ok {
			return st.indexed(), nil
		}
		why = text + "; "
	}
	if p != nil {
		cfg.Template = p.template
	}
	if jobsChanged && last.result != nil && cfg.Traffic != nil && bytes.Equal(last.settings, settings) {
		// a safe switch-over where the subnet is the same (pipeline);
		// editing the settings file asks for a full recompute
		cfg.SwitchOverFrom = last.result
	}
	res, err := pipeline.Run(f, cfg)
	if err != nil {
		err = inSettingsTerms(fmt.Errorf("%s%w", why, err))
		if last != nil && (cfg.Repair == nil || *cfg.Repair) && bytes.Equal(last.settings, settings) {
			if st, ok := keepLast(last, f, cfg, err); ok {
				return st.indexed(), nil
			}
		}
		return nil, err
	}
	if jobsChanged {
		if res.SwitchOver {
			why += "routed for the jobs from the last routing's tables, every mix with them kept deadlock-free under its VLs; "
		} else if bytes.Equal(last.settings, settings) {
			why += "recomputing in full; "
		}
		why += switchOver(last.tables, res.Tables, cfg.Workers)
	}
	sent := ""
	if last != nil {
		// what the full recompute moves: OpenSM sends what differs, and
		// hosts ask the SA again for the path SLs that change
		blocks, sl2vl := lft.Sent(last.tables, res.Tables)
		entries, sls := lft.Changed(last.tables, res.Tables)
		sent = fmt.Sprintf("; against the last routing %d LFT entries and %d path SLs change; to send: %d LFT blocks, %d SL2VL tables", entries, sls, blocks, sl2vl)
	}
	st := &State{tables: res.Tables, base: res.Tables, origin: res.Tables, settings: settings, jobs: jobsText, summary: why + Summary(res) + p.used(res) + sent, vls: cfg.VLs, result: res}
	if last != nil && last.base != nil && bytes.Equal(last.settings, settings) && smallChange(last.base.Fabric(), f) == "" {
		// a full recompute of a fabric with some of the base's cables or
		// switches gone: routes still return to the base as they come back
		st.base = last.base
	}
	if last != nil && last.origin != nil && bytes.Equal(last.settings, settings) && added(last.origin.Fabric(), f) == "" {
		st.origin = last.origin
	}
	return st.indexed(), nil
}

// readSubnet reads the subnet the shim describes (slimroute JSON) in
// GUID order: OpenSM's tables are not, and the routing is made as offline.
func readSubnet(js []byte) (*fabric.Fabric, error) {
	f, err := fabric.ReadJSON(bytes.NewReader(js), "OpenSM subnet")
	if err != nil {
		return nil, err
	}
	return f.Canonical()
}

// switchOver is what OpenSM's log says of the switch-over from the last
// routing to the new one (package transition: every mix of their LFT
// entries, path SLs and SL2VL tables while the switches are programmed
// one after the other and hosts still hold old path records).
func switchOver(old, new *lft.Tables, workers int) string {
	rep, err := transition.CheckWith(old, new, transition.Options{Workers: workers})
	switch {
	case err != nil:
		return fmt.Sprintf("switch-over not judged (%v); ", err)
	case rep.Safe():
		return fmt.Sprintf("switch-over judged safe (%d LFT entries, %d path SLs change); ", rep.Changed.Entries, rep.Changed.PathSLs)
	}
	return fmt.Sprintf("WARNING: switch-over NOT safe while the switches are programmed (%d LFT entries, %d path SLs change): %s; ", rep.Changed.Entries, rep.Changed.PathSLs, strings.Join(rep.Findings(), "; "))
}

// jobsFor sets cfg.Traffic from the job file the settings name (jobs =
// FILE, relative to the settings file cfgPath) for fabric f, and returns
// the file's text. A job file that cannot be read, or names hosts the
// subnet lacks, leaves the routing without it: the note says why, for
// OpenSM's log.
func jobsFor(f *fabric.Fabric, cfg *pipeline.Config, cfgPath string) (text []byte, note string) {
	if cfg.Jobs == "" {
		return nil, ""
	}
	file := besideSettings(cfgPath, cfg.Jobs)
	text, err := os.ReadFile(file)
	if err == nil {
		var js []jobs.Job
		if js, err = jobs.Read(bytes.NewReader(text), file); err == nil {
			cfg.Traffic, err = jobs.Traffic(f, js, file)
		}
	}
	if err != nil {
		return text, fmt.Sprintf("jobs = %q: %v; routing without the jobs; ", cfg.Jobs, err)
	}
	return text, ""
}

// besideSettings is the path of a file the settings file cfgPath names:
// relative to the settings file's directory unless absolute.
func besideSettings(cfgPath, file string) string {
	if filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(filepath.Dir(cfgPath), file)
}

// readSettings reads the plugin's settings file ("" for the defaults) and
// returns them with the file's text.
func readSettings(path string) (pipeline.Config, []byte, error) {
	cfg := pipeline.Config{LMC: -1, Deadlock: "auto"}
	if path == "" {
		return cfg, nil, nil
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return cfg, nil, fmt.Errorf("reading the plugin settings: %w", err)
	}
	cfg, err = pipeline.ParseConfig(bytes.NewReader(text), path)
	if err != nil {
		return cfg, nil, err
	}
	if cfg.Deadlock == "" {
		cfg.Deadlock = "auto" // a failing cable must not push OpenSM off the plugin
	}
	return cfg, text, nil
}

// RecordLIDs returns f with the LIDs of lids recorded on its ports (LID
// and LMC of each port's attributes): the subnet as the shim hands it
// over once OpenSM has assigned them, for tests and tools that play
// OpenSM's part.
func RecordLIDs(f *fabric.Fabric, lids *lft.LIDs) (*fabric.Fabric, error) {
	return lft.RecordLIDs(f, lids.Ports())
}

// indexed fills the node index of st.
func (st *State) indexed() *State {
	f := st.tables.Fabric()
	st.nodes = map[fabric.GUID]fabric.NodeID{}
	for i := range f.NumNodes() {
		st.nodes[f.GUID(fabric.NodeID(i))] = fabric.NodeID(i)
	}
	return st
}

// Summary is the line OpenSM logs for this state.
func (st *State) Summary() string { return st.summary }

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

// Summary is the line OpenSM logs after a full computation.
func Summary(res *pipeline.Result) string {
	a := res.Assignment
	jobs := ""
	if t := res.Routing.Traffic; t != nil {
		jobs = fmt.Sprintf(", routed for the jobs' %d flows (%d moves, %d entries)", t.Flows, t.Moves, t.Entries)
	}
	design := ""
	if c := res.Completed; c != nil {
		design = "; " + c.String()
	}
	if res.Plain != "" {
		design += "; " + res.Plain
	}
	// after a completion the repair may have put routes on the spare VL:
	// the VLs are those the paths take
	return fmt.Sprintf("slimroute: %d switches, %d LID-holding ports, %d layers (%s)%s, deadlock scheme %s: %d VLs, %d SLs%s; verifier: no loops, acyclic CDG over %d paths",
		res.Routing.NumSwitches(), len(res.LIDs.Ports()), res.Routing.NumLayers(), res.Routing.Bounds, jobs, a.Scheme, max(a.VLs, res.Verify.VLs), a.SLs, design, res.Verify.Walks)
}

// LFT returns the table of the switch with node GUID guid: empty for a
// switch the routing leaves out (keepLast), false for one it does not
// know.
func (st *State) LFT(guid fabric.GUID) ([]uint8, bool) {
	id, ok := st.nodes[guid]
	if !ok {
		return []uint8{}, st.dark[guid]
	}
	tab := st.tables.LFT(id)
	return tab, tab != nil
}

// PathSL is the SL of a path record from slid to dlid: 0 unless slid is
// an HCA port's.
func (st *State) PathSL(slid, dlid lft.LID) uint8 {
	owner, _, ok := st.tables.LIDs().Owner(slid)
	if !ok || owner.Port.Port == 0 {
		return 0
	}
	return st.tables.PathSL(owner.Port, dlid)
}

// SL2VL is the VL node guid puts a packet on from port in to port out with
// SL sl, from the tables: a switch's SL-to-VL table, or the VLs an HCA's
// port out sends on (in does not matter).
func (st *State) SL2VL(guid fabric.GUID, in, out int, sl uint8) uint8 {
	id, ok := st.nodes[guid]
	if !ok {
		return 0
	}
	return st.tables.SL2VL(id, in, out, sl)
}
