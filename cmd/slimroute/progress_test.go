package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestProgressWritesLinesWhereNoTerminalIs: into a file or a pipe (here a
// buffer) the status line is a line at every tenth of the job, the last
// one the total, with no carriage return — from 8 goroutines at once.
func TestProgressWritesLinesWhereNoTerminalIs(t *testing.T) {
	for _, total := range []int{1, 7, 98, 1000} {
		var b strings.Builder
		p := newProgress(&b, "collecting switches", total)
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < total; i += 8 {
					p.step()
				}
			}()
		}
		wg.Wait()
		p.end()
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if strings.Contains(b.String(), "\r") || len(lines) > 11 || lines[len(lines)-1] != fmt.Sprintf("collecting switches: %d of %d", total, total) {
			t.Errorf("%d items: %q", total, b.String())
		}
	}
}
