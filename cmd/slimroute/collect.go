package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"slimroute/check"
	"slimroute/fabric"
	"slimroute/lft"
)

// collectLive reads the fabric as it runs with the infiniband-diags tools
// every InfiniBand host has: ibnetdiscover for the fabric, then for every
// switch ibroute (its LFT) and smpquery sl2vl for each cabled out port (the
// SL2VL tables it holds), workers at a time, with a progress line on
// progress. Tool names and places come from PATH, their environment from
// ours (LD_PRELOAD and IBSIM_SOCKNAME reach a simulator).
func collectLive(ctx context.Context, progress io.Writer, workers int) (*fabric.Fabric, *lft.Tables, error) {
	disc, err := runTool(ctx, "ibnetdiscover")
	if err != nil {
		return nil, nil, err
	}
	f, err := fabric.ReadIBNetDiscover(strings.NewReader(disc), "ibnetdiscover")
	if err == nil {
		f, err = f.Canonical() // as from the dumps: the same quality samples
	}
	if err != nil {
		return nil, nil, err
	}
	sws := f.IDsOf(fabric.Switch)
	lids := make([]uint16, len(sws))
	for i, sw := range sws {
		if lids[i] = f.Node(sw).Attrs[0].LID; lids[i] == 0 {
			return nil, nil, fmt.Errorf("ibnetdiscover shows switch %s without a LID: is a subnet manager running?", f.Name(sw))
		}
	}
	routes := make([]string, len(sws))
	sl2vl := make([]string, len(sws))
	status := newProgress(progress, "collecting switches", len(sws))
	err = eachSwitch(len(sws), workers, func(i int) error {
		var err error
		if routes[i], err = runTool(ctx, "ibroute", fmt.Sprint(lids[i])); err != nil {
			return err
		}
		if sl2vl[i], err = switchSL2VL(ctx, f, sws[i], lids[i]); err != nil {
			return err
		}
		status.step()
		return nil
	})
	status.end()
	if err != nil {
		return nil, nil, err
	}
	t, err := lft.ReadIBRoute(strings.NewReader(strings.Join(routes, "")), "ibroute", f)
	if err != nil {
		return nil, nil, err
	}
	t, err = lft.ReadSL2VL(strings.NewReader(strings.Join(sl2vl, "")), "smpquery sl2vl", t)
	return f, t, err
}

// eachSwitch runs do(0..n−1) (for switches, or any other items) on up to workers goroutines and returns the
// first error.
func eachSwitch(n, workers int, do func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, max(1, min(workers, n)))
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n && errs[w] == nil; i = int(next.Add(1) - 1) {
				errs[w] = do(i)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

var smpSL2VLRow = regexp.MustCompile(`(?m)^ports: in\s+(\d+), out\s+(\d+):((?:\s*\|\s*\d+)+)\|`)

// switchSL2VL reads switch sw's SL2VL tables with smpquery, one call per
// cabled out port, as rows of the -d layout (lft.ReadSL2VL): every in
// port that is cabled or 0.
func switchSL2VL(ctx context.Context, f *fabric.Fabric, sw fabric.NodeID, lid uint16) (string, error) {
	var b strings.Builder
	n := f.Node(sw)
	cabled := func(p int) bool {
		_, ok := f.Peer(fabric.PortRef{Node: sw, Port: p})
		return ok
	}
	for out := 1; out <= n.Ports; out++ {
		if !cabled(out) {
			continue
		}
		text, err := runTool(ctx, "smpquery", "sl2vl", fmt.Sprint(lid), fmt.Sprint(out))
		if err != nil {
			return "", err
		}
		rows := smpSL2VLRow.FindAllStringSubmatch(text, -1)
		if len(rows) == 0 {
			return "", fmt.Errorf("smpquery sl2vl %d %d (%s): no SL2VL rows in its output", lid, out, n.Name)
		}
		for _, row := range rows {
			in, _ := strconv.Atoi(row[1])
			if in == out || (in != 0 && !cabled(in)) {
				continue
			}
			vls := strings.Split(strings.Trim(strings.TrimSpace(row[3]), "|"), "|")
			if len(vls) != 16 {
				return "", fmt.Errorf("smpquery sl2vl %d %d (%s): %d VLs in a row, want 16", lid, out, n.Name, len(vls))
			}
			fmt.Fprintf(&b, "%s %d %d", n.GUID, in, out)
			for sl := 0; sl < 16; sl += 2 {
				x, _ := strconv.Atoi(strings.TrimSpace(vls[sl]))
				y, _ := strconv.Atoi(strings.TrimSpace(vls[sl+1]))
				fmt.Fprintf(&b, " 0x%x%x", x&15, y&15)
			}
			b.WriteString("\n")
		}
	}
	return b.String(), nil
}

// runTool runs an infiniband-diags tool and returns its standard output.
func runTool(ctx context.Context, name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("%s is not installed (Debian: apt-get install infiniband-diags)", name)
		}
		return "", fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

var saSLField = regexp.MustCompile(`(?m)^\s*sl\.+0x([0-9a-fA-F]+)`)

// samplePathRecords asks the SA (saquery PR) for n path records between
// HCA ports of t, drawn with a generator seeded by seed: each from a
// source port's base LID to a random LID of another HCA port (any LID
// offset), workers at a time.
func samplePathRecords(ctx context.Context, t *lft.Tables, n int, seed uint64, workers int) ([]check.PathRecord, error) {
	var hcas []lft.PortLIDs
	for _, p := range t.LIDs().Ports() {
		if p.Port.Port != 0 {
			hcas = append(hcas, p)
		}
	}
	if len(hcas) < 2 || n <= 0 {
		return nil, nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x5a))
	out := make([]check.PathRecord, n)
	for i := range out {
		s := hcas[rng.IntN(len(hcas))]
		d := hcas[rng.IntN(len(hcas))]
		for d.Port == s.Port {
			d = hcas[rng.IntN(len(hcas))]
		}
		out[i] = check.PathRecord{SLID: uint16(s.Base), DLID: uint16(d.Base) + uint16(rng.IntN(1<<d.LMC))}
	}
	err := eachSwitch(n, workers, func(i int) error {
		text, err := runTool(ctx, "saquery", "PR", "--slid", fmt.Sprint(out[i].SLID), "--dlid", fmt.Sprint(out[i].DLID))
		if err != nil {
			return err
		}
		m := saSLField.FindStringSubmatch(text)
		if m == nil {
			return fmt.Errorf("saquery PR --slid %d --dlid %d: no SL in its answer", out[i].SLID, out[i].DLID)
		}
		sl, err := strconv.ParseUint(m[1], 16, 8)
		out[i].SL = uint8(sl)
		return err
	})
	return out, err
}
