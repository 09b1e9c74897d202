package lft

import (
	"io"
	"sync"

	"slimroute/fabric"
)

func hexDigit(v int) byte { return "0123456789abcdef"[v&15] }

// writeBlocks writes one block of text per switch, in order. Up to
// workers goroutines format the blocks, a few ahead of the writer, so the
// file's bytes do not depend on their number.
func writeBlocks(w io.Writer, workers int, switches []fabric.NodeID, block func(buf []byte, sw fabric.NodeID) []byte) error {
	workers = max(1, workers)
	ready := make([]chan []byte, len(switches))
	for i := range ready {
		ready[i] = make(chan []byte, 1)
	}
	free := make(chan []byte, 2*workers) // buffers, and the window ahead of the writer
	for i := 0; i < 2*workers; i++ {
		free <- nil
	}
	type job struct {
		j   int
		buf []byte
	}
	jobs := make(chan job)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for jb := range jobs {
				ready[jb.j] <- block(jb.buf, switches[jb.j]) // ready[j] has room: never blocks
			}
		}()
	}
	// the feeder takes a buffer before it hands out a block, in file
	// order, so the block the writer waits for always has one
	go func() {
		defer close(jobs)
		for j := range switches {
			var buf []byte
			select {
			case buf = <-free:
			case <-stop:
				return
			}
			select {
			case jobs <- job{j, buf}:
			case <-stop:
				return
			}
		}
	}()
	for j := range switches {
		b := <-ready[j]
		if _, err := w.Write(b); err != nil {
			close(stop) // workers finish what they hold; ready has room for it
			wg.Wait()
			return err
		}
		free <- b[:0]
	}
	wg.Wait()
	return nil
}
