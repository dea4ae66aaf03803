package cputime

import (
	"runtime/metrics"
	"sync"
	"time"
)

// PeakHeap samples the heap's objects (live and not yet swept) every 2 ms
// until the returned stop is called, which returns the largest value seen,
// in MiB: a benchmark's peak memory without a separate process.
func PeakHeap() (stop func() float64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var (
		peak uint64
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Go(func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() float64 {
		close(done)
		wg.Wait() // peak is read only after the sampler has stopped
		return float64(peak) / (1 << 20)
	}
}
