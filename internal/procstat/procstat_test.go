package procstat

import "testing"

func TestPeakRSSGrowsWithAnAllocation(t *testing.T) {
	before := PeakRSSMB()
	if before <= 0 {
		t.Skip("no /proc/self/status here")
	}
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = 1 // touch every page
	}
	if after := PeakRSSMB(); after < before+32 {
		t.Errorf("peak RSS %.1f MiB after touching 64 MiB, %.1f before", after, before)
	}
	_ = b[len(b)-1]
}
