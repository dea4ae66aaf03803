package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/cputime"
)

// BenchmarkEngineInstant measures the engine's own overhead: 10,000 queries
// through an instant in-process pipeline that returns 100 hits each,
// scored on every retrieval metric. It reports queries scored per second of
// wall time and per second of CPU time (all threads: the engine runs
// queries in parallel, so on a shared or many-core machine the two differ;
// the target is 50,000 queries per CPU-second).
func BenchmarkEngineInstant(b *testing.B) {
	const n = 10000
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, `{"id": "q%d", "question": "question %d", "answer": "a", "contexts": ["passage %d"], "expected_docs": ["d%d"]}`+"\n", i, i, i, i)
	}
	runs, err := LoadBenchmarks(fstest.MapFS{"big.jsonl": {Data: []byte(sb.String())}}, &Sweep{Benchmarks: []BenchmarkEntry{{Path: "big.jsonl"}}})
	if err != nil {
		b.Fatal(err)
	}
	hits := make([]lasagna.Hit, 100)
	for i := range hits {
		hits[i] = lasagna.Hit{ID: fmt.Sprintf("d%d", i*37), Score: float64(100 - i)}
	}
	arm := Arm{Name: "instant", TopK: 100, Retriever: func(context.Context, *lasagna.Benchmark) (lasagna.Retriever, error) {
		return lasagna.RetrieverFunc(func(context.Context, lasagna.Query, int) ([]lasagna.Hit, error) { return hits, nil }), nil
	}}
	b.ReportAllocs()
	cpu := cputime.Used()
	for b.Loop() {
		if _, err := Run(context.Background(), runs, []Arm{arm}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	used := cputime.Used() - cpu
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "queries/s")
	if used > 0 {
		b.ReportMetric(float64(n*b.N)/used.Seconds(), "queries/CPU-s")
	}
}
