package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
)

// progress counts finished items of a job on a status line: rewritten in
// place (carriage return) on a terminal, and elsewhere — a log file, a
// pipe — a line at every tenth of the job, so that the file reads as
// lines. Safe for concurrent use.
type progress struct {
	w         io.Writer
	what      string
	total     int
	terminal  bool
	mu        sync.Mutex
	done      int
	lastTenth int
}

func newProgress(w io.Writer, what string, total int) *progress {
	p := &progress{w: w, what: what, total: total}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&fs.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
}

// step counts one more item done.
func (p *progress) step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	switch {
	case p.terminal:
		fmt.Fprintf(p.w, "\r%s: %d of %d", p.what, p.done, p.total)
	case p.done*10/max(p.total, 1) > p.lastTenth || p.done == p.total:
		p.lastTenth = p.done * 10 / max(p.total, 1)
		fmt.Fprintf(p.w, "%s: %d of %d\n", p.what, p.done, p.total)
	}
}

// end finishes the status line on a terminal.
func (p *progress) end() {
	if p.terminal {
		fmt.Fprintln(p.w)
	}
}
