package htmlreport

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

func contextWithBundle(path string) context.Context {
	return reporters.WithBundlePath(context.Background(), path)
}

// bigBundle runs two instant arms over n generated queries (100 hits each;
// each query's one relevant document sits at a rank that varies by query
// and arm) and returns the bundle.
func bigBundle(tb testing.TB, n int) *results.Bundle {
	tb.Helper()
	var sb strings.Builder
	for i := range n {
		d := (i * 7) % 100 * 37
		fmt.Fprintf(&sb, `{"id": "q%05d", "question": "question %d", "answer": "a", "contexts": ["passage %d"], "expected_docs": ["d%d"]}`+"\n", i, i, d, d)
	}
	s := &engine.Sweep{Benchmarks: []engine.BenchmarkEntry{{Path: "big.jsonl"}}}
	runs, err := engine.LoadBenchmarks(fstest.MapFS{"big.jsonl": {Data: []byte(sb.String())}}, s)
	if err != nil {
		tb.Fatal(err)
	}
	arm := func(name string, shift int) engine.Arm {
		return engine.Arm{Name: name, TopK: 100, Varied: []string{"retriever"}, Retriever: func(context.Context, *lasagna.Benchmark) (lasagna.Retriever, error) {
			return lasagna.RetrieverFunc(func(_ context.Context, q lasagna.Query, _ int) ([]lasagna.Hit, error) {
				var i int
				fmt.Sscanf(q.ID, "q%d", &i)
				hits := make([]lasagna.Hit, 100)
				for j := range hits {
					hits[j] = lasagna.Hit{ID: fmt.Sprintf("d%d", (j+i*shift)%100*37), Score: float64(100 - j)}
				}
				return hits, nil
			}), nil
		}}
	}
	rep, err := engine.Run(context.Background(), runs, []engine.Arm{arm("rotate-3", 3), arm("rotate-5", 5)}, engine.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	b, err := rep.Bundle(engine.BundleOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
