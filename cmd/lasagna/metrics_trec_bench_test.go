package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkMetricsTrecFile times `lasagna metrics trec` end to end (reading,
// parsing, evaluating, printing) on the files scripts/bench-trec.sh
// generates; set LASAGNA_TREC_BENCH_DIR to the directory holding run.txt and
// qrels.txt. Without it the benchmark is skipped.
func BenchmarkMetricsTrecFile(b *testing.B) {
	dir := os.Getenv("LASAGNA_TREC_BENCH_DIR")
	if dir == "" {
		b.Skip("set LASAGNA_TREC_BENCH_DIR to a directory with run.txt and qrels.txt (scripts/bench-trec.sh makes them)")
	}
	runFile := filepath.Join(dir, "run.txt")
	st, err := os.Stat(runFile)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		if err := run(context.Background(), []string{"metrics", "trec", "-m", "all_trec", filepath.Join(dir, "qrels.txt"), runFile}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
