package llmarms_test

import (
	"os"
	"testing"

	"github.com/lasagna-go/lasagna/internal/engine"
)

func tinyBench(t testing.TB) *engine.BenchmarkRun {
	t.Helper()
	// engine's own test benchmark: 6 answerable rows (d1..d6 named by
	// expected_docs; q5 and q6 share d5) and one unanswerable row.
	fsys := os.DirFS("../testdata")
	runs, err := engine.LoadBenchmarks(fsys, &engine.Sweep{Benchmarks: []engine.BenchmarkEntry{{Path: "tiny.jsonl"}}})
	if err != nil {
		t.Fatal(err)
	}
	return runs[0]
}
