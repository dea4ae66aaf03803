package treceval

import (
	"runtime/debug"
	"testing"
)

// TestPauseGCRestores checks that `metrics trec` pauses the collector with
// a heap limit and gives the process its settings back afterwards.
func TestPauseGCRestores(t *testing.T) {
	percent := debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	limit := debug.SetMemoryLimit(-1)

	restore := pauseGC(1 << 30)
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("GC percent while paused = %d, want -1 (off)", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 1<<30 {
		t.Errorf("memory limit while paused = %d, want %d", l, 1<<30)
	}
	restore()
	if p := debug.SetGCPercent(percent); p != percent {
		t.Errorf("GC percent after restore = %d, want %d", p, percent)
	}
	if l := debug.SetMemoryLimit(-1); l != limit {
		t.Errorf("memory limit after restore = %d, want %d", l, limit)
	}

	restore = pauseGC(1) // a tiny run still gets a workable limit
	if l := debug.SetMemoryLimit(-1); l != trecHeapLimitMin {
		t.Errorf("memory limit for a 1-byte run = %d, want %d", l, trecHeapLimitMin)
	}
	restore()
}
