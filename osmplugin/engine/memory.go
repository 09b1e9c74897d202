package engine

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"slimroute/fabric"
)

// A Go program that runs out of memory dies, and inside OpenSM it takes
// OpenSM with it: no recover catches it. So the plugin estimates what a
// routing needs from the subnet's size before it starts, refuses one that
// would not fit its budget (OpenSM then routes with the next engine), and
// tells the Go runtime the budget (debug.SetMemoryLimit), so that garbage
// collection keeps the heap under it; within it, the collector runs less
// often than Go's default (gcPercent).

// memoryNeed bounds the heap a routing of f with layers layers (LID
// offsets) on workers goroutines takes, from its sizes: per switch a
// forwarding table and a row of path SLs over the LID space (the last
// routing's and its base's kept beside the new one), per layer and
// destination a next hop and an SL per switch, and per worker the
// verifier's marks over every (channel, SL). The factors are above what
// TestMemoryNeedBoundsTheHeap measures.
func memoryNeed(f *fabric.Fabric, layers, workers int) int64 {
	S, H, ports := int64(0), int64(0), int64(0)
	for i := range f.NumNodes() {
		id := fabric.NodeID(i)
		if f.Kind(id) == fabric.Switch {
			S++
			ports += int64(f.Ports(id)) + 1
		} else {
			H += int64(f.Ports(id))
		}
	}
	L := int64(max(layers, 1))
	lids := S + H*L // every HCA port one LID per layer
	dests := S + H
	return 64<<20 + 12*S*lids + 4*L*dests*S + 512*ports*16*int64(max(workers, 1))
}

// memoryBudget is the budget the settings give (memory_limit, such as
// "4GiB"), or by default half the memory of the machine or of the cgroup
// OpenSM runs in, whichever is less.
func memoryBudget(setting string) (int64, error) {
	if setting == "" {
		return defaultBudget(), nil
	}
	n, err := parseBytes(setting)
	if err != nil {
		return 0, fmt.Errorf("memory_limit = %q: %w (e.g. \"4GiB\", \"512MiB\")", setting, err)
	}
	return n, nil
}

// parseBytes reads a size such as 512MiB, 4GiB, 4G or a number of bytes.
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		scale  float64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	scale := 1.0
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, scale = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.scale
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || math.IsInf(v*scale, 0) || v*scale > math.MaxInt64/2 {
		return 0, fmt.Errorf("not a size")
	}
	return int64(v * scale), nil
}

// defaultBudget is half of the memory this process may use: the machine's
// (MemTotal) or its cgroup's limit (memory.max), whichever is less; 4 GiB
// when neither can be read.
func defaultBudget() int64 {
	limit := int64(0)
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 {
			limit = v
		}
	}
	if total := memTotal(); total > 0 && (limit == 0 || total < limit) {
		limit = total
	}
	if limit == 0 {
		return 8 << 30 / 2
	}
	return limit / 2
}

// memTotal reads MemTotal from /proc/meminfo, in bytes (0 if unknown).
func memTotal() int64 {
	fh, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// withinBudget refuses a routing of f whose estimated need exceeds the
// budget of setting, with what it needs and how to allow it; otherwise it
// sets the Go runtime's memory limit to the budget.
func withinBudget(f *fabric.Fabric, layers, workers int, setting, cfgPath string) error {
	if layers <= 0 {
		layers = 4 // the settings' default
	}
	budget, err := memoryBudget(setting)
	if err != nil {
		return fmt.Errorf("%s: %w", cfgPath, err)
	}
	need := memoryNeed(f, layers, workers)
	if need > budget {
		where := "the default, half of this machine's memory"
		if setting != "" {
			where = fmt.Sprintf("memory_limit = %q in %s", setting, cfgPath)
		}
		return fmt.Errorf("the routing of %d nodes in %d layers needs about %d MiB, over the plugin's memory budget of %d MiB (%s): raise memory_limit (memory_limit = \"%dMiB\") if the machine has the memory, or route fewer layers",
			f.NumNodes(), layers, need>>20, budget>>20, where, (need>>20)+1)
	}
	debug.SetMemoryLimit(budget)
	if os.Getenv("GOGC") == "" { // (an operator's GOGC stands)
		debug.SetGCPercent(gcPercent)
	}
	return nil
}

// gcPercent lets the heap grow to 5 × what is live before the collector
// runs (Go's default: 2 ×); the memory limit still holds it under the
// budget. A routing's heap is small and short-lived, and a collection
// inside OpenSM's lock holds the lock longer: measured on ibsim
// (bench/compare 7 11, REPEAT=5, runs of either in turn; medians of 20
// and 25 sweeps), the routing callback took 21.0 instead of 23.0 ms on
// q = 7 and 152 instead of 164.5 ms on q = 11, the routing phase 82 instead
// of 90 ms and 413 instead of 422 ms, for 8 MB more peak RSS (50 → 58 MB,
// 214 → 222 MB); in-process (go test ./osmplugin/engine -bench
// ComputeWithPlan) 19.6 → 15.6 ms and 113 → 106 ms.
const gcPercent = 400
