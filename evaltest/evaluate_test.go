package evaltest_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/fixtures"
)

func TestEvaluate(t *testing.T) {
	// The fake clock of synctest makes the simulated network calls
	// instant while keeping them concurrent.
	synctest.Test(t, testEvaluate)
}

func testEvaluate(t *testing.T) {
	t.Setenv(evaltest.EnvOut, t.TempDir())
	t.Setenv(evaltest.EnvConcurrency, "4")
	var inFlight, peak atomic.Int32
	arm := evaltest.Arm{Name: "mine", TopK: 10, BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		r := fixtures.Failing(fixtures.Perfect(b), "q03")
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(20 * time.Millisecond) // a network call, on synctest's clock
			return r.Retrieve(ctx, q, k)
		}), nil
	}}
	ev, err := evaltest.Evaluate(t.Context(), "TestRAG", evaltest.Config{
		FS: fixtures.Data, Benchmarks: []string{fixtures.TinyJSONL}, Cutoffs: []int{10},
		Arms: []evaltest.Arm{arm},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !ev.Failed() {
		t.Error("evaluation passed; want q03 and the integrity check to fail it")
	}
	if got := len(ev.Level(3)); got != 12 {
		t.Errorf("%d query tests, want 12", got)
	}
	q3, ok := ev.Test("TestRAG/tiny/mine/q03")
	if !ok || !q3.Failed || !strings.Contains(q3.Failure(), "pipeline failed: search backend timed out for query q03") {
		t.Errorf("q03 = %+v", q3)
	}
	if !ok || !strings.HasPrefix(q3.Benchmark, "local/tiny@") || q3.Arm != "mine" || q3.Query != "q03" {
		t.Errorf("q03 says benchmark %q, arm %q, query %q; want local/tiny@…, mine, q03", q3.Benchmark, q3.Arm, q3.Query)
	}
	if b, _ := ev.Test("TestRAG/tiny"); b == nil || b.Benchmark != q3.Benchmark || b.Arm != "" {
		t.Errorf("the benchmark test = %+v, want benchmark %s and no arm", b, q3.Benchmark)
	}
	q1, _ := ev.Test("TestRAG/tiny/mine/q01")
	if v, ok := q1.Attr("lasagna.ndcg@10"); q1.Failed || v != "1" || !ok {
		t.Errorf("q01 = %+v", q1)
	}
	if arm, _ := ev.Test("TestRAG/tiny/mine"); !arm.Failed {
		t.Error("a failed query did not fail its arm")
	}
	if root := ev.Tests[0]; !strings.Contains(root.Failure(), "integrity: PIPELINE_ERRORS at local/tiny@") {
		t.Errorf("root errors = %q", root.Errors)
	}
	if ev.Bundle == nil || ev.BundlePath == "" || len(ev.Bundle.Results[0].PerSampleScores) != 12 {
		t.Errorf("bundle %v at %q", ev.Bundle, ev.BundlePath)
	}
	if p := peak.Load(); p < 2 || p > 4 {
		t.Errorf("peak pipeline calls in flight = %d, want 2..4 (LASAGNA_CONCURRENCY=4)", p)
	}
}
