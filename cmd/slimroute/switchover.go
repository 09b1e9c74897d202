package main

import (
	"fmt"
	"io"
	"time"

	"slimroute/fabric"
	"slimroute/lft"
	"slimroute/pipeline"
)

// route --jobs NEW --previous DIR: a safe switch-over offline.
//
// The plugin keeps the routing in force in memory and routes a changed
// job file from it (pipeline.Config.SwitchOverFrom), making only moves
// that keep every mix of the old and new tables deadlock-free. Offline,
// route rebuilds that routing by replaying it: DIR's summary.json keeps
// the text of the job file DIR was routed for and of those of the
// routings before it since the last full computation, and routing is
// deterministic, so the same settings on the same fabric give the same
// tables — which the replay checks against DIR's files before it starts
// from them.

// maxReplay bounds the routings a switch-over replays: a chain of
// switch-overs this long is recomputed in full (and judged, as any).
const maxReplay = 32

// switchOverFrom rebuilds the routing route wrote into prevDir for a
// switch-over to the jobs of cfg.Traffic on fabric f, merging prevDir's
// settings into cfg for the flags the run left out (isSet). It returns
// the replayed routing and the job files it was replayed from, or says
// why it cannot (the caller then recomputes in full); read is the
// previous tables where they were read (for compareWithPrevious). Files
// it cannot read are an error, as for a repair.
func switchOverFrom(out io.Writer, f *fabric.Fabric, cfg *pipeline.Config, isSet func(string) bool, prevDir string) (from *pipeline.Result, chain []string, read *lft.Tables, why string, err error) {
	prev, why, err := previousFor(prevDir, f, cfg, isSet)
	if err != nil || why != "" {
		return nil, nil, nil, why, err
	}
	read = prev.tab
	sum := prev.sum
	switch {
	case sum.Settings == nil:
		return nil, nil, read, "its summary.json records no settings (an older slimroute's routing)", nil
	case sum.Previous != nil:
		return nil, nil, read, fmt.Sprintf("it is a repair of %s, not a computation to replay", *sum.Previous), nil
	case prev.gone.GoneLIDs() > 0 || len(switchesGone(prev.gone, read.Fabric(), f)) > 0:
		return nil, nil, read, "the fabric lost switches or ports since", nil
	case sum.Jobs != nil && sum.Jobs.Text == nil:
		return nil, nil, read, "its summary.json keeps no job file text (an older slimroute's routing)", nil
	}
	chain = []string{""} // routed without jobs
	if sum.Jobs != nil {
		chain = append(append([]string(nil), sum.Jobs.History...), *sum.Jobs.Text)
	}
	if len(chain) > maxReplay {
		return nil, nil, read, fmt.Sprintf("it is routing %d since the last full computation, and route replays at most %d", len(chain), maxReplay), nil
	}
	start := time.Now()
	c := *cfg
	if !c.LIDsFromFabric { // its LIDs, which a full recompute before it may have kept from another
		c.KeepLIDs = lft.CacheOf(read)
	}
	from, why = replay(f, c, chain, prevDir)
	if why != "" {
		return nil, nil, read, why, nil
	}
	if e, s := lft.Changed(read, from.Tables); e > 0 || s > 0 {
		return nil, nil, read, fmt.Sprintf("replaying it gave other tables than its files hold (%d LFT entries, %d path SLs differ): the fabric, its LIDs or slimroute changed since", e, s), nil
	}
	if b, v := lft.SentToSwitches(read, from.Tables); b > 0 || v > 0 {
		return nil, nil, read, fmt.Sprintf("replaying it gave other SL2VL tables than its files hold (%d of a switch's in and out ports differ)", v), nil
	}
	if p := lft.OtherLIDs(read.Fabric(), read.LIDs(), from.Tables.Fabric(), from.Tables.LIDs()); p != "" {
		return nil, nil, read, fmt.Sprintf("replaying it gave %s other LIDs than its files do", p), nil
	}
	fmt.Fprintf(out, "replayed the routing in %s (a full computation and %s after it, from the job files its summary.json keeps) in %.1f s: the same tables\n", prevDir, plural(len(chain)-1, "switch-over"), time.Since(start).Seconds())
	return from, chain, read, "", nil
}

// replay routes f with cfg for each job file of chain in turn, each from
// the routing before it, and returns the last routing, or why it cannot.
func replay(f *fabric.Fabric, cfg pipeline.Config, chain []string, prevDir string) (*pipeline.Result, string) {
	var last *pipeline.Result
	for i, text := range chain {
		c := cfg
		c.Traffic, c.SwitchOverFrom = nil, last
		if text != "" || i > 0 { // ("" after the first: an empty job file, switched over to)
			var err error
			name := fmt.Sprintf("%s/summary.json's job file %d of %d", prevDir, i+1, len(chain))
			if c.Traffic, err = trafficOf(f, text, name); err != nil {
				return nil, fmt.Sprintf("its jobs no longer fit the fabric (%v)", err)
			}
		}
		res, err := pipeline.Run(f, c)
		if err != nil {
			return nil, fmt.Sprintf("replaying it failed (%v)", err)
		}
		if i > 0 && !res.SwitchOver {
			return nil, fmt.Sprintf("replaying routing %d of the %d since the last full computation did not switch over", i+1, len(chain))
		}
		last = res
	}
	return last, ""
}

// plural writes n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
