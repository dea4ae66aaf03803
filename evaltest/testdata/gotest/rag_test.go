// Package gotest is a user's test package that evaltest's tests run with a
// real `go test -json` (gotest_test.go); EVALTEST_FAIL_QUERY names a query
// that fails. It imports only evaltest and the root package (a small build).
package gotest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
)

func TestRAG(t *testing.T) {
	evaltest.Run(t, evaltest.Config{
		FS:         os.DirFS("../../../fixtures"), // fixtures.Data, without linking fixtures
		Benchmarks: []string{"data/tiny.jsonl"},
		Cutoffs:    []int{10},
		Arms: []evaltest.Arm{{
			Name: "mine",
			TopK: 10,
			BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
				return perfect(b, os.Getenv("EVALTEST_FAIL_QUERY")), nil
			},
			Thresholds: []evaltest.Threshold{evaltest.AtLeast("ndcg@10", 0.5)},
		}},
	})
}

// perfect returns each query's relevant documents; the query failID fails.
func perfect(b *lasagna.Benchmark, failID string) lasagna.Retriever {
	return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
		if q.ID == failID {
			return nil, fmt.Errorf("search backend timed out for query %s", q.ID)
		}
		var hits []lasagna.Hit
		for i, id := range b.Qrels.Relevant(q.ID) {
			if i < k {
				hits = append(hits, lasagna.Hit{ID: id, Score: float64(k - i)})
			}
		}
		return hits, nil
	})
}
