package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/verify"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "judge forwarding tables from files: every LID reachable, no loop, no credit loop",
		Description: `Reads the forwarding tables a subnet manager programmed — OpenSM's LFT dump
(opensm-lfts.dump, or slimroute's opensm-lfts.txt) or ibroute's output for every switch —
with the path SLs (slimroute's path-sl.txt) and the SL-to-VL tables (sl2vl.txt, ibdmchk's -d
layout, e.g. read back from the switches), and runs slimroute's independent verifier on
them: every LID reachable from every HCA port and from every switch, no loop, no path
whose SL a switch maps onto VL 15 (the management VL: the switch drops it), no credit loop.
Without --path-sl every path uses SL 0; without --sl2vl every SL maps to VL 0. A file
given must be complete (a path-SL line for every switch with LID-holding HCAs, covering
every LID; an SL2VL row for every cabled out port and every in port cabled or 0), and may
not list a LID, a switch or a port pair twice: an incomplete file is refused, naming what
it lacks, rather than read as SL 0 or VL 0.
With --vls N, a path on VL N or above is an error too: the switches offer VLs 0..N-1 only.
The SL-to-VL tables may also be OpenSM's own dump (opensm-sl2vl.dump, written with QoS on).
Exit status: 0 verified, 1 broken tables, a credit loop or VLs the switches lack, 2 could
not read the input.

Examples:
   slimroute verify --fabric found.txt --lfts /var/log/opensm-lfts.dump --path-sl route/path-sl.txt --sl2vl route/sl2vl.txt
   slimroute verify --slimfly 5 --lfts route/opensm-lfts.txt --path-sl route/path-sl.txt --sl2vl route/sl2vl.txt --json`,
		Flags: append(sourceFlags(),
			&cli.StringFlag{Name: "lfts", Required: true, Usage: "forwarding tables `FILE`: OpenSM's LFT dump or ibroute's output"},
			&cli.StringFlag{Name: "path-sl", Usage: "path SLs `FILE` (slimroute's path-sl.txt)"},
			&cli.StringFlag{Name: "sl2vl", Usage: "SL-to-VL `FILE` (ibdmchk's -d layout, slimroute's sl2vl.txt, or OpenSM's opensm-sl2vl.dump)"},
			&cli.IntFlag{Name: "vls", Usage: "data VLs the switches offer (1..15): a path on VL `N` or above is an error (default: not checked)"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fmt.Errorf("unexpected argument %q: name the files with --lfts, --path-sl and --sl2vl", c.Args().First())
			}
			f, err := loadFabric(c)
			if err != nil {
				return err
			}
			t, err := readTables(f, c.String("lfts"), c.String("path-sl"), c.String("sl2vl"))
			if err != nil {
				fmt.Fprintln(c.App.ErrWriter, "slimroute: "+err.Error())
				return exitStatus(2)
			}
			rep, verr := verify.Check(t, runtime.GOMAXPROCS(0))
			if v := c.Int("vls"); verr == nil && c.IsSet("vls") && rep.MaxVL >= v {
				verr = fmt.Errorf("paths take VL %d, but the switches offer %d data VLs (VLs 0 to %d): those packets are dropped; route for %d VLs (route --vls %d, or vls = %d in the plugin's settings), which fits the routing to them or says what it needs", rep.MaxVL, v, v-1, v, v, v)
			}
			if c.Bool("json") {
				out := struct {
					*verify.Report
					Error string `json:"error,omitempty"`
				}{Report: rep}
				if verr != nil {
					out.Error = verr.Error()
				}
				b, _ := json.MarshalIndent(out, "", "  ")
				fmt.Fprintf(c.App.Writer, "%s\n", b)
			} else {
				printVerify(c.App.Writer, rep, verr)
			}
			if verr != nil || !rep.Acyclic() {
				return exitStatus(1)
			}
			return nil
		},
	}
}

// readTables reads the LFTs (OpenSM's dump or ibroute's output, told apart
// by their first table header) and adds the path SLs and SL2VL tables.
func readTables(f *fabric.Fabric, lfts, psl, sl2vl string) (*lft.Tables, error) {
	fh, err := openInput(lfts)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	// the first table header tells the formats apart; the tables stream
	// (a dump may run to gigabytes)
	br := bufio.NewReaderSize(fh, 64<<10)
	head, _ := br.Peek(64 << 10)
	read := lft.ReadOpenSMLFTs
	if isIBRoute(head) {
		read = lft.ReadIBRoute
	}
	t, err := read(br, lfts, f)
	if err != nil {
		return nil, err
	}
	return withParts(t, psl, sl2vl)
}

// withParts adds to t the path SLs and SL2VL tables of the files psl and
// sl2vl ("" for none).
func withParts(t *lft.Tables, psl, sl2vl string) (*lft.Tables, error) {
	for _, part := range []struct {
		path string
		read func(io.Reader, string, *lft.Tables) (*lft.Tables, error)
	}{{psl, lft.ReadPathSL}, {sl2vl, lft.ReadSL2VL}} {
		if part.path == "" {
			continue
		}
		fh, err := openInput(part.path)
		if err != nil {
			return nil, err
		}
		t, err = part.read(bufio.NewReader(fh), part.path, t)
		fh.Close()
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}

// isIBRoute tells ibroute's output from OpenSM's dump: ibroute numbers the
// LID range of its headers in hex ("Unicast lids [0x0-0x13] …").
func isIBRoute(data []byte) bool {
	i := bytes.Index(data, []byte("Unicast lids ["))
	return i >= 0 && bytes.HasPrefix(data[i+len("Unicast lids ["):], []byte("0x"))
}

func printVerify(w io.Writer, rep *verify.Report, err error) {
	fmt.Fprintf(w, "%d HCA ports, %d destination LIDs, %d paths followed\n", rep.Sources, rep.DLIDs, rep.Walks)
	switch {
	case err != nil:
		fmt.Fprintf(w, "BROKEN: %s\n", strings.TrimPrefix(err.Error(), "the forwarding tables are broken: "))
	case !rep.Acyclic():
		fmt.Fprintf(w, "CREDIT LOOP: the channel dependency graph has a cycle of %d channels:\n  %s\n", len(rep.Cycle), rep.CycleString())
	default:
		fmt.Fprintf(w, "verified: every LID reachable, no loops, no credit loop (%d channels, %d dependencies, %d VLs)\n", rep.Channels, rep.Dependencies, rep.VLs)
	}
}
