package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/pipeline"
	"slimroute/repair"
	"slimroute/transition"
	"slimroute/verify"
)

// tableFiles lists the forwarding-state files of tables tab, as route
// writes them and --previous reads them back.
func tableFiles(tab *lft.Tables) []outputFile {
	return []outputFile{
		{"opensm-lfts.txt", func(w io.Writer) error { return lft.WriteOpenSMLFTs(w, tab, runtime.GOMAXPROCS(0)) }},
		{"guid2lid", func(w io.Writer) error { return lft.WriteGUID2LID(w, tab) }},
		{"path-sl.txt", func(w io.Writer) error { return lft.WritePathSL(w, tab, runtime.GOMAXPROCS(0)) }},
		{"sl2vl.txt", func(w io.Writer) error { return lft.WriteSL2VL(w, tab) }},
		fabricFile(tab),
	}
}

// repairSummary is summary.json of a repaired routing.
type repairSummary struct {
	Previous string `json:"previous"`
	// Base is the full computation the chain of repairs started from
	// (relative to this directory where it can be; see baseOf)
	Base     string         `json:"base,omitempty"`
	Repair   repairCounts   `json:"repair"`
	Verify   *verify.Report `json:"verify"`
	Settings *routeSettings `json:"settings"` // the previous routing's, carried on
	Files    []string       `json:"files"`
}

type repairCounts struct {
	LIDs     int  `json:"lids_affected"`
	Crossed  int  `json:"entries_crossed"`
	Changed  int  `json:"entries_changed"`
	Restored int  `json:"entries_restored,omitempty"`
	FourHops bool `json:"four_hop_rule_on,omitempty"`
	GoneLIDs int  `json:"lids_gone"`
	Paths    int  `json:"paths_changed"`
	PathSLs  int  `json:"path_sls_changed"`
	Escaped  int  `json:"paths_on_spare_sl"`
	// Mended counts the entries of routes that did not break moved to
	// give MendedPairs pairs their disjoint paths back (--mend)
	Mended      int      `json:"entries_mended"`
	MendedPairs int      `json:"pairs_mended"`
	Spares      []string `json:"spare_sl2vl,omitempty"`

	// SwitchesGone are the switches of the previous routing the fabric
	// lacks: their tables are dropped, the routes that crossed them
	// repaired
	SwitchesGone []string `json:"switches_gone,omitempty"`
	// HostsAdded are the HCAs new to the previous routing or recabled to
	// another switch port, each routed as an HCA on its switch
	// (lft.WithHosts)
	HostsAdded []string `json:"hosts_added,omitempty"`
}

// droppedLIDs counts the LIDs of prev that from, prev extended to new
// hosts, gives no port of the same GUID.
func droppedLIDs(prev, from *lft.Tables) int {
	if prev == from {
		return 0
	}
	now := lft.CacheOf(from)
	n := 0
	for g, r := range lft.CacheOf(prev) {
		if now[g] != r {
			n += int(r[1]-r[0]) + 1
		}
	}
	return n
}

// lidsInForce is the LIDs of prev's ports and, beneath them, of base's
// (nil: none), by port GUID: the LIDs OpenSM's guid2lid cache keeps for
// the chain of repairs, those of ports gone since the base included.
func lidsInForce(prev, base *lft.Tables) lft.LIDCache {
	cache := lft.LIDCache{}
	if base != nil {
		cache = lft.CacheOf(base)
	}
	maps.Copy(cache, lft.CacheOf(prev))
	return cache
}

// withNewHosts is repair.WithNewHosts with route's LIDs for new ports:
// free ones beside prev's and base's (those of ports gone reserved, as
// OpenSM reserves its cache's), or with --lids-from-fabric the fabric's.
func withNewHosts(prev, base *lft.Tables, f *fabric.Fabric, cfg pipeline.Config) (*lft.Tables, *lft.Tables, []string, error) {
	cache := lidsInForce(prev, base)
	return repair.WithNewHosts(prev, base, f, func(g *fabric.Fabric) (*lft.LIDs, error) {
		return lft.AssignLIDs(g, lft.LIDOptions{LMC: int(prev.LIDs().LMC()), LFTCap: cfg.LFTCap, FromFabric: cfg.LIDsFromFabric, Keep: cache})
	})
}

// newInterSwitchCable names a cable between switches of f that the base
// routing's fabric (prev's without a base) has and cables otherwise: a
// repair, which returns routes to the base's, would leave it unused. ""
// when there is none.
func newInterSwitchCable(f *fabric.Fabric, prev, base *lft.Tables) string {
	ref := base
	if ref == nil {
		ref = prev
	}
	known := func(id fabric.NodeID) bool { // a new switch is the repair's to name
		_, ok := ref.Fabric().NodeByGUID(f.GUID(id))
		return ok && f.Kind(id) == fabric.Switch
	}
	for _, l := range f.Links() {
		if known(l.A.Node) && known(l.B.Node) && !f.CabledIn(ref.Fabric(), l) {
			return f.PortString(l.A) + "–" + f.PortString(l.B)
		}
	}
	return ""
}

// routeFromPrevious repairs the routing route wrote into prevDir for the
// fabric f, verifies it and writes it into outDir. First it merges the
// previous routing's settings into cfg, for the flags the run left out
// (isSet tells which it gave). It reports false, having said why, when the
// run asks for another routing (--layers 8 where the previous has 4), the
// fabric changed in a way a repair cannot follow (a switch or cable
// added, no VL left, …), the tables name VLs --vls does not allow, or the
// verifier refuses the result: the caller then recomputes in full with
// cfg, and compares that with the previous tables, returned when they
// were read (compareWithPrevious). Files it cannot read are an error: the
// user asked for a repair of those files.
func routeFromPrevious(out io.Writer, f *fabric.Fabric, cfg *pipeline.Config, isSet func(string) bool, prevDir, outDir string, ibdm bool, timings map[string]float64) (bool, *lft.Tables, error) {
	var read *previousRouting
	var base *lft.Tables
	refuse := func(format string, args ...any) (bool, *lft.Tables, error) {
		why := strings.TrimSuffix(fmt.Sprintf(format, args...), "; recompute in full") // the repair's own advice
		fmt.Fprintf(out, "cannot repair the routing in %s: %s; recomputing in full\n", prevDir, why)
		if read == nil {
			return false, nil, nil
		}
		if !cfg.LIDsFromFabric {
			cfg.KeepLIDs = lidsInForce(read.tab, base)
		}
		return false, read.tab, nil
	}
	start := time.Now()
	read, why, err := previousFor(prevDir, f, cfg, isSet)
	if err != nil {
		return false, nil, err
	}
	if why != "" {
		return refuse("%s", why)
	}
	timings["read_previous_ms"] = since(start)
	prev, gone := read.tab, read.gone
	st0 := gone.GoneLIDs() // dropped as the files were read onto f
	start = time.Now()
	base, baseDir, noBase := baseOf(prevDir, read.sum, prev) // (refuse reads base)
	timings["read_base_ms"] = since(start)
	if c := newInterSwitchCable(f, prev, base); c != "" {
		return refuse("the cable %s between switches is new to the routing it started from, which cannot use it", c)
	}
	from, fromBase, hosts, err := withNewHosts(prev, base, f, *cfg)
	if err != nil {
		return refuse("%v", err)
	}
	tab, st, err := repair.Repair(from, f, repair.Options{Workers: cfg.Workers, VLs: cfg.VLs, Clock: time.Now, Base: fromBase, Mend: cfg.Mending()})
	if err != nil {
		if noBase != "" {
			return refuse("%v (and no base routing to return to: %s)", err, noBase)
		}
		return refuse("%v", err)
	}
	st.GoneLIDs += st0 + droppedLIDs(prev, from) // (a replaced or recabled HCA's, as the hosts were added)
	timings["repair_ms"] = float64(st.Time.Microseconds()) / 1000
	start = time.Now()
	rep, err := checkRepair(tab, cfg.Workers)
	timings["verify_ms"] = since(start)
	if err != nil {
		return refuse("the repaired tables fail the verifier: %v", err)
	}
	if !rep.Acyclic() {
		return refuse("the repaired tables have a credit loop: %s", rep.CycleString())
	}
	keep, baseName := baseFiles(outDir, baseDir, base)
	sum := &repairSummary{Previous: prevDir, Base: baseName, Verify: rep, Settings: settingsOf(*cfg), Repair: repairCounts{
		LIDs: st.LIDs, Crossed: st.Crossed, Changed: st.Changed, Restored: st.Restored, FourHops: st.FourHops, GoneLIDs: st.GoneLIDs,
		Paths: st.Paths, PathSLs: st.PathSLs, Escaped: st.Escaped, Mended: st.Mended, MendedPairs: st.MendedPairs, SwitchesGone: switchesGone(gone, prev.Fabric(), f), HostsAdded: hosts}}
	for _, sp := range st.Spares {
		sum.Repair.Spares = append(sum.Repair.Spares, sp.String())
	}
	blocks, sl2vl := lft.Sent(prev, tab)
	// in place, every table file stays when nothing changed
	same := sameDir(outDir, prevDir) && blocks == 0 && sl2vl == 0 && st.PathSLs == 0 && st.GoneLIDs == 0 && len(sum.Repair.SwitchesGone) == 0 && len(hosts) == 0
	kept, err := writeTables(outDir, tab, sum, ibdm, timings, func(name string) bool { return same || name == "guid2lid" }, keep...)
	if err != nil {
		return false, nil, err
	}
	printRepair(out, prevDir, outDir, st, sum.Repair.SwitchesGone, hosts, rep, sum.Files, [2]int{blocks, sl2vl})
	printKept(out, kept)
	return true, nil, nil
}

// checkRepair is the verifier of repaired tables; tests make it refuse.
var checkRepair = verify.Check

// previousRouting is the routing in a --previous directory, read back.
type previousRouting struct {
	tab  *lft.Tables
	gone *lft.Shrunk      // what reading it onto the fabric dropped
	sum  *previousSummary // its summary.json
}

// previousFor reads the routing route wrote into prevDir, for fabric f
// and a run with settings cfg (isSet: the flags it gave), and merges the
// previous settings into cfg for the flags left out. It returns the
// routing read back, says why not to repair it — the run asks for another
// routing, the fabric gained a switch or cable, the SL2VL tables name a
// VL --vls lacks — or returns the error of a file it cannot read.
func previousFor(prevDir string, f *fabric.Fabric, cfg *pipeline.Config, isSet func(string) bool) (*previousRouting, string, error) {
	fail := func(err error) (*previousRouting, string, error) {
		return nil, "", fmt.Errorf("--previous %s: %w; give the directory route -o wrote, or leave --previous out to compute the routing in full", prevDir, err)
	}
	if fi, err := os.Stat(prevDir); err != nil || !fi.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		} else if errors.Is(err, fs.ErrNotExist) {
			err = errors.New("no such directory")
		}
		return fail(err)
	}
	sum, err := readSummary(prevDir)
	if err != nil {
		return fail(err)
	}
	if sum.Settings == nil && !isSet("vls") {
		// a routing of an older slimroute records no settings: the
		// switches have at least the VLs its SL2VL tables use, and a
		// repair or recompute must not count on more
		// (a file that does not read is reported below, as it is read)
		if vl, err := highestVL(filepath.Join(prevDir, "sl2vl.txt")); err == nil {
			cfg.VLs = vl + 1
		}
	}
	conflict, err := reconcile(sum.Settings, cfg, isSet)
	if err != nil {
		return fail(err)
	}
	if err := checkLMC(*cfg); err != nil {
		return nil, "", err
	}
	if conflict != "" {
		return nil, conflict, nil
	}
	pf, err := previousFabric(prevDir)
	if err != nil {
		return fail(err)
	}
	onto := f
	if pf != nil {
		onto = pf // the repair sees what failed and what came back
	}
	prev, gone, err := readPrevious(prevDir, onto)
	isNew, isCable := (*lft.NewSwitchError)(nil), (*lft.NewCableError)(nil)
	if errors.As(err, &isNew) || errors.As(err, &isCable) {
		return nil, err.Error(), nil
	}
	if err != nil {
		return fail(err)
	}
	if vl := prev.MaxVL(); vl >= max(cfg.VLs, 1) {
		return nil, fmt.Sprintf("its SL2VL tables map SLs to VL %d, and --vls %d allows VLs 0..%d", vl, cfg.VLs, cfg.VLs-1), nil
	}
	return &previousRouting{prev, gone, sum}, "", nil
}

// readPrevious reads the LFTs, path SLs and SL2VL tables route wrote into
// dir onto fabric f. Entries that name ports whose cables are gone read as
// they are; the repair finds them. The tables of switches f lacks and the
// LIDs of ports f lacks are dropped as they are read (lft.Shrunk), which
// the returned reader tells of.
func readPrevious(dir string, f *fabric.Fabric) (*lft.Tables, *lft.Shrunk, error) {
	var t *lft.Tables
	s := lft.NewShrunk(f)
	if fi, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, s, errors.New("no such directory")
	} else if err != nil {
		return nil, s, err
	} else if !fi.IsDir() {
		return nil, s, errors.New("not a directory")
	}
	for _, step := range []struct {
		name string
		read func(io.Reader, string) (*lft.Tables, error)
	}{
		{"opensm-lfts.txt", s.ReadOpenSMLFTs},
		{"path-sl.txt", func(r io.Reader, p string) (*lft.Tables, error) { return s.ReadPathSL(r, p, t) }},
		{"sl2vl.txt", func(r io.Reader, p string) (*lft.Tables, error) { return s.ReadSL2VL(r, p, t) }},
	} {
		path := filepath.Join(dir, step.name)
		file, err := openInput(path)
		if err != nil {
			return nil, s, err
		}
		t, err = step.read(file, path)
		// a file cut short may still read, its last line as a shorter,
		// wrong one, or end between two tables as if a switch were new
		isNew := (*lft.NewSwitchError)(nil)
		if err == nil || errors.As(err, &isNew) {
			if cut := endsWithNewline(file, path); cut != nil {
				err = cut
			}
		}
		if isNew != nil && errors.Is(err, isNew) && names(filepath.Join(dir, "sl2vl.txt"), isNew.GUID.String()) {
			err = &fabric.ParseError{File: path, Msg: fmt.Sprintf("no table for switch %s (%s), which sl2vl.txt has rows for: it was cut short", isNew.Name, isNew.GUID)}
		}
		file.Close()
		if err != nil {
			return nil, s, err
		}
	}
	return t, s, nil
}

// writeTables writes the forwarding-state files of tab (with ibdm,
// ibdmchk's inputs too), summary.json and timings.json into dir as a set,
// as route does, except the files that need no new bytes
// (reuseUnchanged: a file is compared with its own where likely names
// it): it returns those.
func writeTables(dir string, tab *lft.Tables, sum *repairSummary, ibdm bool, timings map[string]float64, likely func(name string) bool, more ...outputFile) (keptFiles, error) {
	files := append(tableFiles(tab), more...)
	if ibdm {
		more, err := ibdmchkFiles(tab)
		if err != nil {
			return keptFiles{}, err
		}
		files = append(files, more...)
	}
	var same map[string]string
	if reuseFiles {
		same = reuseUnchanged(dir, files, likely)
	}
	var kept keptFiles
	kept.same, kept.linked = unchangedNames(dir, files, same)
	files = append(files, jsonFile("summary.json", sum))
	sum.Files = fileNames(files)
	start := time.Now()
	// listed after: summary.json is the same on every run, timings are not
	files = append(files, outputFile{"timings.json", func(w io.Writer) error {
		timings["write_ms"] = since(start) // written last: the files before it are written, their renames left
		return jsonFile("timings.json", timings).write(w)
	}})
	if err := writeOutputsReusing(dir, "-o", files, same); err != nil {
		return keptFiles{}, err
	}
	if !ibdm {
		dropStaleIBDMChk(io.Discard, dir)
	}
	sum.Files = append(sum.Files, "timings.json")
	return kept, nil
}

// keptFiles are the files a repair did not write: those that stayed as
// they were, and those made links to the previous files (reuseUnchanged).
type keptFiles struct{ same, linked []string }

// printKept says which files a repair did not write, for people.
func printKept(out io.Writer, kept keptFiles) {
	if len(kept.same) > 0 {
		fmt.Fprintf(out, "  unchanged, left as they were: %s\n", strings.Join(kept.same, ", "))
	}
	if len(kept.linked) > 0 {
		fmt.Fprintf(out, "  the previous files are the base's: %s are links to them, not copies\n", strings.Join(kept.linked, ", "))
	}
}

// since is the time since start in milliseconds, as timings.json holds
// it.
func since(start time.Time) float64 { return float64(time.Since(start).Microseconds()) / 1000 }

// printRepair says what the repair changed and why, for people.
// sent is what a subnet manager sends the switches (lft.Sent): LFT
// blocks and SL2VL tables.
func printRepair(out io.Writer, prevDir, outDir string, st repair.Stats, gone, hosts []string, rep *verify.Report, files []string, sent [2]int) {
	fmt.Fprintf(out, "repaired the routing in %s for this fabric in %.1f ms instead of recomputing it:\n", prevDir, float64(st.Time.Microseconds())/1000)
	if len(hosts) > 0 {
		fmt.Fprintf(out, "  HCAs new to the routing or recabled (%d): %s; each takes the routes of the HCA with the lowest port GUID that stays on its switch, a new one at free LIDs\n", len(hosts), strings.Join(hosts, ", "))
	}
	if len(gone) > 0 {
		fmt.Fprintf(out, "  switches of the previous routing the fabric lacks (%d): %s; their tables are dropped, the routes that crossed them repaired\n", len(gone), strings.Join(gone, ", "))
	}
	fmt.Fprintf(out, "  %d destination LIDs had routes over a cable or switch that is gone; %d LFT entries (switch, LID) led over it; %d entries now name another port, %d of them back to the base routing's (their route there is whole again)\n", st.LIDs, st.Crossed, st.Changed-st.Mended, st.Restored)
	if st.Mended > 0 {
		fmt.Fprintf(out, "  %d entries of routes that did not break moved, each giving a pair (source switch, destination HCA) whose routes broke more disjoint paths (--mend=false keeps them)\n", st.Mended)
	}
	fmt.Fprintln(out, "  every other entry is as before")
	if st.GoneLIDs > 0 {
		fmt.Fprintf(out, "  %d LIDs are gone with their ports (an HCA lost its cable or switch); no switch forwards them any more\n", st.GoneLIDs)
	}
	fmt.Fprintf(out, "  %d routes from switches with HCAs changed; %d of their path SLs changed, every other path SL is as before\n", st.Paths, st.PathSLs)
	if len(st.Spares) > 0 {
		var sp []string
		for _, s := range st.Spares {
			sp = append(sp, s.String())
		}
		fmt.Fprintf(out, "  %d new routes fit no SL in use under the SL2VL tables and go on a spare SL (%s)\n", st.Escaped, strings.Join(sp, ", "))
	} else if st.Escaped > 0 {
		fmt.Fprintf(out, "  %d new routes fit no SL in use under the SL2VL tables and go on the spare SL an earlier repair opened\n", st.Escaped)
	}
	if st.FourHops {
		fmt.Fprintln(out, "  the four-hop rule is on now: a switch fed by a switch whose colour is not the route's SL puts it on VL 3 (hop 3)")
	}
	fmt.Fprintf(out, "  to send: %d LFT blocks of 64 LIDs and %d SL2VL tables (switch, in port, out port) differ from the previous routing's\n", sent[0], sent[1])
	fmt.Fprintf(out, "verifier: every LID reachable, no loops, no CDG cycle (%d paths, %d channels, %d dependencies, %d VLs)\n", rep.Walks, rep.Channels, rep.Dependencies, rep.VLs)
	fmt.Fprintf(out, "wrote %s/{%s}\n", filepath.Clean(outDir), strings.Join(files, ","))
}

// endsWithNewline refuses a file route wrote that does not end with a
// newline, as every file it writes does: it was cut short, and its last
// line may still read as a shorter, wrong one.
func endsWithNewline(file *os.File, path string) error {
	fi, err := file.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	last := make([]byte, 1)
	if _, err := file.ReadAt(last, fi.Size()-1); err != nil {
		return err
	}
	if last[0] != '\n' {
		return &fabric.ParseError{File: path, Msg: "does not end with a newline, as every file route writes does: it was cut short"}
	}
	return nil
}

// highestVL reads the highest VL an SL2VL file (ibdmchk's -d rows:
// "GUID in out" and eight bytes 0x(VL)(VL)) maps an SL to; a row it
// cannot read is left to the reader that reads the file in full.
func highestVL(path string) (int, error) {
	file, err := openInput(path)
	if err != nil {
		return 0, err
	}
	defer file.Close()
	vl := 0
	err = fabric.ScanLines(file, path, func(_ int, line string) error {
		fs := strings.Fields(line)
		for _, b := range fs[min(3, len(fs)):] {
			if v, err := strconv.ParseUint(strings.TrimPrefix(b, "0x"), 16, 8); err == nil {
				for _, x := range []int{int(v >> 4), int(v & 15)} {
					if x != 15 { // dropped: no data VL
						vl = max(vl, x)
					}
				}
			}
		}
		return nil
	})
	return vl, err
}

// names reports whether the file at path holds the text word; a file that
// does not read holds nothing.
func names(path, word string) bool {
	file, err := openInput(path)
	if err != nil {
		return false
	}
	defer file.Close()
	found := false
	fabric.ScanLines(file, path, func(_ int, line string) error {
		if strings.Contains(line, word) {
			found = true
			return io.EOF // stop
		}
		return nil
	})
	return found
}

// againstPrevious is what a full recompute changes against the routing
// route wrote into Previous, where --previous asked for a repair: the
// LFT entries (switch, LID) and path SLs (HCA port, LID) that differ
// (lft.Changed), and the LFT blocks and switches' SL2VL tables a subnet
// manager would send (lft.SentToSwitches: route's files do not record
// the HCA ports' SL2VL tables).
type againstPrevious struct {
	Previous string `json:"previous"`
	Entries  int    `json:"lft_entries_changed"`
	PathSLs  int    `json:"path_sls_changed"`
	Blocks   int    `json:"lft_blocks_to_send"`
	SL2VL    int    `json:"sl2vl_tables_to_send"`
	// Unread says why the previous tables were not compared (the other
	// fields are then 0)
	Unread string `json:"unread,omitempty"`
	// SwitchOver is package transition's judgement of the switch-over
	// from the previous tables to these while the switches are
	// programmed one by one and hosts keep their path records
	SwitchOver *switchOverJudged `json:"switch_over,omitempty"`
}

// switchOverJudged is a switch-over's judgement: safe, or its first
// finding, or why it was not judged.
type switchOverJudged struct {
	Safe      bool   `json:"safe"`
	Finding   string `json:"finding,omitempty"`
	NotJudged string `json:"not_judged,omitempty"`
}

// judgeSwitchOver judges the switch-over from prev to tab; err is why the
// tables could not be judged.
func judgeSwitchOver(prev, tab *lft.Tables, workers int) (j *switchOverJudged, err error) {
	rep, err := transition.CheckWith(prev, tab, transition.Options{Workers: workers})
	switch {
	case err != nil:
		return &switchOverJudged{NotJudged: err.Error()}, err
	case rep.Safe():
		return &switchOverJudged{Safe: true}, nil
	}
	return &switchOverJudged{Finding: rep.Findings()[0]}, nil
}

func (j *switchOverJudged) String() string {
	switch {
	case j.NotJudged != "":
		return "WARNING: switch-over not judged (" + j.NotJudged + "): load these tables while no traffic runs"
	case j.Safe:
		return "switch-over judged safe: no mix of the two, programmed switch by switch under either path SL, loops, holds a credit loop or drops"
	}
	return "WARNING: switch-over NOT safe while the switches are programmed: " + j.Finding + "; load these tables while no traffic runs"
}

// compareWithPrevious compares tab with prev, the tables route wrote into
// prevDir as routeFromPrevious read them, or, when it did not (nil), read
// here the same way: onto the fabric they were routed for (its
// fabric.json; without one, onto f).
func compareWithPrevious(prevDir string, f *fabric.Fabric, tab, prev *lft.Tables, workers int) *againstPrevious {
	out := &againstPrevious{Previous: prevDir}
	if prev == nil {
		var err error
		if prev, err = readPreviousAsRouted(prevDir, f); err != nil {
			out.Unread = err.Error()
			return out
		}
	}
	out.Entries, out.PathSLs = lft.Changed(prev, tab)
	out.Blocks, out.SL2VL = lft.SentToSwitches(prev, tab)
	var err error
	out.SwitchOver, err = judgeSwitchOver(prev, tab, workers)
	if err != nil && !errors.Is(err, transition.ErrTooLarge) {
		// another fabric (cables, switches or hosts gone or added): the
		// previous tables read onto this one, as the switches hold them
		// while the new ones are programmed
		if onto, _, err := readPrevious(prevDir, f); err == nil {
			if j, err := judgeSwitchOver(onto, tab, workers); err == nil {
				out.SwitchOver = j
			}
		}
	}
	return out
}

// readPreviousAsRouted reads the tables route wrote into prevDir onto the
// fabric they were routed for (its fabric.json; without one, onto f).
func readPreviousAsRouted(prevDir string, f *fabric.Fabric) (*lft.Tables, error) {
	onto, err := previousFabric(prevDir)
	if err != nil {
		return nil, err
	}
	if onto == nil {
		onto = f
	}
	prev, _, err := readPrevious(prevDir, onto)
	return prev, err
}

// keepPreviousLIDs has a full recompute after --previous keep the LIDs
// in force in prevDir — every port keeps its LIDs, as OpenSM keeps its
// guid2lid cache, those of ports gone stay reserved, new ports take free
// ones — so that hosts keep their addresses and only what changed is
// sent: the LIDs a refused repair set (its previous routing's and its
// base's), else those of the previous tables (*prev, read here when the
// caller has not) and their base routing's, else, where they do not read
// onto any fabric, those of prevDir's guid2lid. With --lids-from-fabric
// the fabric's LIDs rule. A guid2lid that does not read is an error;
// without one, the LIDs are assigned afresh, as the output says.
func keepPreviousLIDs(out io.Writer, prevDir string, f *fabric.Fabric, cfg *pipeline.Config, prev **lft.Tables) error {
	if cfg.LIDsFromFabric || cfg.KeepLIDs != nil {
		return nil
	}
	if *prev == nil {
		if t, err := readPreviousAsRouted(prevDir, f); err == nil {
			*prev = t
		} else {
			name := filepath.Join(prevDir, "guid2lid")
			fh, ferr := os.Open(name)
			if errors.Is(ferr, fs.ErrNotExist) {
				fmt.Fprintf(out, "cannot keep the LIDs of the routing in %s (%v; no guid2lid): assigning LIDs afresh\n", prevDir, err)
				return nil
			}
			if ferr != nil {
				return fmt.Errorf("--previous %s: %w", prevDir, ferr)
			}
			defer fh.Close()
			cache, rerr := lft.ReadGUID2LID(fh, name)
			if rerr != nil {
				return fmt.Errorf("--previous %s: %w; it keeps the LIDs of the routing there: restore it from the routing's files, or remove it to assign LIDs afresh", prevDir, rerr)
			}
			fmt.Fprintf(out, "keeping the LIDs in %s (the tables beside it do not read onto this fabric, and %s has no fabric.json)\n", name, prevDir)
			cfg.KeepLIDs = cache
			return nil
		}
	}
	var base *lft.Tables
	if sum, err := readSummary(prevDir); err == nil {
		base, _, _ = baseOf(prevDir, sum, *prev)
	}
	cfg.KeepLIDs = lidsInForce(*prev, base)
	return nil
}

func (p *againstPrevious) String() string {
	if p.Unread != "" {
		return fmt.Sprintf("against the routing in %s: not compared (%s)", p.Previous, p.Unread)
	}
	return fmt.Sprintf("against the routing in %s: %d LFT entries and %d path SLs changed; to send: %d LFT blocks of 64 LIDs and %d SL2VL tables (switch, in port, out port)\n%s", p.Previous, p.Entries, p.PathSLs, p.Blocks, p.SL2VL, p.SwitchOver)
}
