package evaltest_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/fixtures"
)

// TestEvaluationValues reads one metric of an arm and its per-query values
// from an Evaluation, on two benchmarks, and checks the errors: an unknown
// arm, benchmark or metric names what there is, with a "did you mean";
// nothing missing reads as 0.
func TestEvaluationValues(t *testing.T) {
	// synctest's clock makes each query's latency exactly its sleep.
	synctest.Test(t, testEvaluationValues)
}

func testEvaluationValues(t *testing.T) {
	t.Setenv(evaltest.EnvOut, t.TempDir())
	t.Setenv(evaltest.EnvLatency, "1")
	mine := evaltest.Arm{Name: "mine", TopK: 10, BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		r := fixtures.Failing(fixtures.Missing(b, fixtures.Perfect(b), "q02"), "q03")
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			time.Sleep(30 * time.Millisecond)
			return r.Retrieve(ctx, q, k)
		}), nil
	}}
	bm := evaltest.BM25()
	bm.TopK = 10
	one := evaltest.Config{FS: fixtures.Data, Benchmarks: []string{fixtures.TinyJSONL}, Cutoffs: []int{10}, Arms: []evaltest.Arm{mine, bm}}
	ev, err := evaltest.Evaluate(t.Context(), "TestRAG", one)
	if err != nil || ev.Bundle == nil {
		t.Fatalf("evaluate: %v, %+v", err, ev.Tests[0])
	}

	// One metric of an arm: the bundle's aggregate.
	got, err := ev.Metric("mine", "recall@10")
	if want := ev.Bundle.Results[0].Metrics["recall@10"]; err != nil || got != want || got >= 1 {
		t.Errorf(`Metric("mine", "recall@10") = %v, %v; want the bundle's %v (< 1: q02 lost its documents)`, got, err, want)
	}
	if got, err := ev.Metric("tiny/bm25", "ndcg@10"); err != nil || got != ev.Bundle.Results[1].Metrics["ndcg@10"] {
		t.Errorf(`Metric("tiny/bm25", "ndcg@10") = %v, %v`, got, err)
	}
	if got, err := ev.Metric("mine", "latency_ms"); err != nil || got != 30 {
		t.Errorf(`Metric("mine", "latency_ms") = %v, %v; want the mean pipeline time 30`, got, err)
	}

	// Per-query values: failed queries are absent, never 0.
	recall, err := ev.QueryValues("mine", "recall@10")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := recall["q03"]; ok || len(recall) != 11 || recall["q02"] != 0 || recall["q01"] != 1 {
		t.Errorf("QueryValues recall@10 = %v; want 11 queries (q03 failed), q02 0, q01 1", recall)
	}
	lat, err := ev.QueryValues("mine", "latency_ms")
	if err != nil || len(lat) != 12 || lat["q03"] != 30 {
		t.Errorf("QueryValues latency_ms = %v, %v; want 30 for each of the 12 calls, the failed one too", lat, err)
	}

	for _, tc := range []struct{ arm, metric, want string }{
		{"mien", "ndcg@10", `evaluation TestRAG has no arm "mien" (did you mean "mine"?); its arms are mine, bm25`},
		{"mine", "ndgc@10", `arm mine on local/tiny@abfc4c070c3b has no metric "ndgc@10" (did you mean "ndcg@10"?); it has `},
		{"mine", "token_f1", `has no metric "token_f1"; it has hit@10, latency_ms, map, map@10, mrr, mrr@10, ndcg, ndcg@10, precision@10, r_precision, recall@10`},
		{"tinny/mine", "ndcg@10", `evaluation TestRAG has no result for arm mine on benchmark "tinny" (did you mean "tiny"?); its benchmarks are tiny`},
	} {
		_, err := ev.Metric(tc.arm, tc.metric)
		_, qerr := ev.QueryValues(tc.arm, tc.metric)
		if err == nil || !strings.Contains(err.Error(), tc.want) || qerr == nil || qerr.Error() != err.Error() {
			t.Errorf("Metric(%q, %q) error = %v (QueryValues: %v); want %q", tc.arm, tc.metric, err, qerr, tc.want)
		}
	}

	// An arm on two benchmarks must be named with its benchmark.
	data, err := fs.ReadFile(fixtures.Data, fixtures.TinyJSONL)
	if err != nil {
		t.Fatal(err)
	}
	two := one
	two.FS = fstest.MapFS{"tiny.jsonl": {Data: data}, "small.jsonl": {Data: data}}
	two.Benchmarks = []string{"tiny.jsonl", "small.jsonl"}
	ev, err = evaltest.Evaluate(t.Context(), "TestRAG", two)
	if err != nil || ev.Bundle == nil {
		t.Fatalf("evaluate: %v", err)
	}
	if _, err := ev.Metric("bm25", "ndcg@10"); err == nil || err.Error() != `arm bm25 ran on 2 benchmarks (tiny, small); name one, e.g. "tiny/bm25"` {
		t.Errorf("an arm on two benchmarks: %v", err)
	}
	if v, err := ev.Metric("small/bm25", "ndcg@10"); err != nil || v != ev.Bundle.Results[3].Metrics["ndcg@10"] {
		t.Errorf(`Metric("small/bm25", "ndcg@10") = %v, %v; want the bundle's %v`, v, err, ev.Bundle.Results[3].Metrics["ndcg@10"])
	}
}
