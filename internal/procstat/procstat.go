// Package procstat reads figures of the running process that benchmarks
// report.
package procstat

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// PeakRSSMB returns the process's peak resident set size so far (VmHWM of
// /proc/self/status) in MiB, or 0 where that is not available.
func PeakRSSMB() float64 { return peakRSSMB("/proc/self/status") }

// PeakRSSMBOf returns the peak resident set size of process pid (VmHWM of
// /proc/PID/status) in MiB, or 0 where that is not available.
func PeakRSSMBOf(pid int) float64 { return peakRSSMB(fmt.Sprintf("/proc/%d/status", pid)) }

func peakRSSMB(status string) float64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// Allocated returns the bytes of heap that f allocates (runtime.MemStats
// TotalAlloc before and after), for tests that bound a function's memory.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
