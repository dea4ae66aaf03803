package trecparse

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkStreamRun times StreamRun on one worker over the first 32 MB of
// the run scripts/bench-trec.sh generates (LASAGNA_TREC_BENCH_DIR), with a
// visit that does nothing: tokenizing, score parsing, ranking and
// duplicate checks.
func BenchmarkStreamRun(b *testing.B) {
	dir := os.Getenv("LASAGNA_TREC_BENCH_DIR")
	if dir == "" {
		b.Skip("set LASAGNA_TREC_BENCH_DIR to a directory with run.txt (scripts/bench-trec.sh makes it)")
	}
	data, err := os.ReadFile(filepath.Join(dir, "run.txt"))
	if err != nil {
		b.Fatal(err)
	}
	data = data[:chunkBounds(data[:32<<20], 2)[1]]
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, _, ok := StreamRun(data, 1, func(int, string, []Hit) {}); !ok {
			b.Fatal("not streamed")
		}
	}
}
