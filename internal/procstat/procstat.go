// Package procstat reads figures of the running process that benchmarks
// report.
package procstat

import (
	"os"
	"strconv"
	"strings"
)

// PeakRSSMB returns the process's peak resident set size so far (VmHWM of
// /proc/self/status) in MiB, or 0 where that is not available.
func PeakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
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
