package engine

import (
	"fmt"
	"io"
	"path/filepath"

	"slimroute/internal/atomicfile"
	"slimroute/lft"
)

// Audit file names, written beside OpenSM's dumps (WriteAudit).
const (
	AuditPathSL  = "slimroute-path-sl.txt"
	AuditSL2VL   = "slimroute-sl2vl.txt"
	AuditSummary = "slimroute-summary.txt"
)

// WriteAudit writes into dir (OpenSM's dump_files_dir) what st answers
// OpenSM beyond the LFTs, which OpenSM dumps itself, in the formats
// `slimroute verify` reads: the path SLs the SA hands out
// (slimroute-path-sl.txt), the SL2VL tables of every switch
// (slimroute-sl2vl.txt; OpenSM's opensm-sl2vl.dump holds what it
// programmed, with QoS on), and the summary with the command that checks
// the fabric against them (slimroute-summary.txt; --vls as the settings'
// vls). Each file is replaced
// atomically, the set as one.
func (st *State) WriteAudit(dir string, workers int) error {
	vls := st.vls
	if vls == 0 {
		vls = 8
	}
	summary := fmt.Sprintf("%s\n\nWhat the fabric holds, judged by slimroute's verifier from OpenSM's dumps:\n  slimroute verify --fabric %s --lfts %s --path-sl %s --sl2vl %s --vls %d\n",
		st.summary, filepath.Join(dir, "opensm-subnet.lst"), filepath.Join(dir, "opensm-lfts.dump"), filepath.Join(dir, AuditPathSL), filepath.Join(dir, "opensm-sl2vl.dump"), vls)
	return atomicfile.WriteAll(
		atomicfile.File{Path: filepath.Join(dir, AuditPathSL), Perm: 0o644, Write: func(w io.Writer) error { return lft.WritePathSL(w, st.tables, workers) }},
		atomicfile.File{Path: filepath.Join(dir, AuditSL2VL), Perm: 0o644, Write: func(w io.Writer) error { return lft.WriteSL2VL(w, st.tables) }},
		atomicfile.File{Path: filepath.Join(dir, AuditSummary), Perm: 0o644, Write: func(w io.Writer) error {
			_, err := io.WriteString(w, summary)
			return err
		}},
	)
}
