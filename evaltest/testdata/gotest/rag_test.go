// Package gotest is a user's test package as evaltest's own tests run it
// with a real `go test -json` (see gotest_test.go in the parent folder).
// EVALTEST_FAIL_QUERY names a query whose pipeline call fails.
package gotest

import (
	"context"
	"os"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/fixtures"
)

func TestRAG(t *testing.T) {
	evaltest.Run(t, evaltest.Config{
		FS:         fixtures.Data,
		Benchmarks: []string{fixtures.TinyJSONL},
		Cutoffs:    []int{10},
		Arms: []evaltest.Arm{{
			Name: "mine",
			TopK: 10,
			BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
				return fixtures.Failing(fixtures.Perfect(b), os.Getenv("EVALTEST_FAIL_QUERY")), nil
			},
			Thresholds: []evaltest.Threshold{evaltest.AtLeast("ndcg@10", 0.5)},
		}},
	})
}
