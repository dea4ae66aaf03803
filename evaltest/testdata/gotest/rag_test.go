// Package gotest is a user's test package that evaltest's tests run with a
// real `go test -json` (gotest_test.go); EVALTEST_FAIL_QUERY names a query
// that fails, EVALTEST_PANIC_QUERY one whose pipeline panics, and
// EVALTEST_MIN_NDCG the arm's ndcg@10 threshold (default 0.5). It imports only evaltest and the root package (a small build).
package gotest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
)

func TestRAG(t *testing.T) {
	minNDCG := 0.5
	if v, err := strconv.ParseFloat(os.Getenv("EVALTEST_MIN_NDCG"), 64); err == nil {
		minNDCG = v
	}
	evaltest.Run(t, evaltest.Config{
		FS:         os.DirFS("../../../fixtures"), // fixtures.Data, without linking fixtures
		Benchmarks: []string{"data/tiny.jsonl"},
		Cutoffs:    []int{10},
		Arms: []evaltest.Arm{{
			Name: "mine",
			TopK: 10,
			BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
				return perfect(b, os.Getenv("EVALTEST_FAIL_QUERY"), os.Getenv("EVALTEST_PANIC_QUERY")), nil
			},
			Thresholds: []evaltest.Threshold{evaltest.AtLeast("ndcg@10", minNDCG)},
		}},
	})
}

// perfect returns each query's relevant documents; the query failID fails
// and the query panicID panics.
func perfect(b *lasagna.Benchmark, failID, panicID string) lasagna.Retriever {
	return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
		if q.ID == panicID {
			countHit(q.ID)
		}
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

// countHit panics: it writes to a nil map.
func countHit(id string) {
	var hits map[string]int
	hits[id]++
}
