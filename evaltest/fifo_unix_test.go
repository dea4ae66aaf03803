//go:build unix

package evaltest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFORefused: a benchmark path naming a FIFO, directly or from a
// sweep file, is refused at once instead of waiting for a writer.
func TestFIFORefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "data.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	t.Cleanup(func() { // release a reader that waits, if any
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	sweep := filepath.Join(dir, "sweep.yaml")
	if err := os.WriteFile(sweep, []byte("benchmarks:\n  - path: data.jsonl\narms:\n  - {name: bm25, retriever: bm25}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []Config{{Benchmarks: []string{fifo}, Arms: []Arm{BM25()}}, {Sweep: sweep}} {
		var got string
		done := make(chan struct{})
		go func() {
			defer close(done)
			got, _, _ = fakeEval(t, cfg, nil)
		}()
		select {
		case <-done:
		case <-time.After(time.Minute): // a safety net, not the assertion
			t.Fatalf("the run waits on the FIFO")
		}
		if !strings.Contains(got, "data.jsonl: is a named pipe (FIFO), not a regular file") {
			t.Errorf("%+v:\n%s", cfg, got)
		}
	}
}
