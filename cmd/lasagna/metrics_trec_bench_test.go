package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
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

// BenchmarkMetricsTrec times `lasagna metrics trec` end to end on a
// generated 200-query x 1,000-document run (200k lines, ~8 MB); MB/s is run
// file throughput. scripts/bench-trec.sh runs the 5M-line version.
func BenchmarkMetricsTrec(b *testing.B) {
	dir := b.TempDir()
	var runData, qrels []byte
	x := uint64(1)
	next := func(n uint64) uint64 { x = x*6364136223846793005 + 1442695040888963407; return (x >> 33) % n }
	for q := range 200 {
		qid := strconv.Itoa(100000 + q)
		score := 30.0
		for r := range 1000 {
			doc := uint64(r)*10007 + next(10007) // distinct within a query
			runData = fmt.Appendf(runData, "%s Q0 doc-%d %d %.4f bench\n", qid, doc, r+1, score)
			score -= float64(next(30)) * 0.0001
			if r%30 == 0 {
				qrels = fmt.Appendf(qrels, "%s 0 doc-%d %d\n", qid, doc, next(4))
			}
		}
	}
	runFile, qrelsFile := filepath.Join(dir, "run.txt"), filepath.Join(dir, "qrels.txt")
	if err := os.WriteFile(runFile, runData, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(qrelsFile, qrels, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(runData)))
	b.ReportAllocs()
	for b.Loop() {
		if err := run(context.Background(), []string{"metrics", "trec", "-m", "all_trec", qrelsFile, runFile}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
