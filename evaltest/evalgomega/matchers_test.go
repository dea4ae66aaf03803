package evalgomega_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/onsi/gomega"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/evaltest/evalgomega"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/results"
)

// evaluate runs the tiny benchmark with a perfect arm and an arm whose
// list for q02 misses its relevant documents (a low score, which fails
// nothing here: no per-query threshold is set) and for q05 holds an id that
// is not in the corpus.
func evaluate(t *testing.T) *evaltest.Evaluation {
	t.Helper()
	ev, err := tiny()
	if err != nil {
		t.Fatal(err)
	}
	if ev.Bundle == nil {
		t.Fatalf("no bundle: %s", ev.Tests[0].Failure())
	}
	return ev
}

// tiny evaluates once for the package's tests (TestMain points
// LASAGNA_OUT at a temporary folder).
var tiny = sync.OnceValues(func() (*evaltest.Evaluation, error) {
	return evaltest.Evaluate(context.Background(), "TestTiny", evaltest.Config{
		FS:         fixtures.Data,
		Benchmarks: []string{fixtures.TinyJSONL},
		Arms: []evaltest.Arm{
			{Name: "perfect", BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
				return fixtures.Perfect(b), nil
			}},
			{Name: "broken", BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
				r := fixtures.Missing(b, fixtures.Perfect(b), "q02")
				return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
					if q.ID == "q05" {
						return []lasagna.Hit{{ID: "no-such-doc", Score: 1}}, nil
					}
					return r.Retrieve(ctx, q, k)
				}), nil
			}},
		},
	})
})

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "evalgomega-")
	if err != nil {
		panic(err)
	}
	os.Setenv("LASAGNA_OUT", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func match(t *testing.T, m interface {
	Match(any) (bool, error)
	FailureMessage(any) string
	NegatedFailureMessage(any) string
}, actual any) (bool, string) {
	t.Helper()
	ok, err := m.Match(actual)
	if err != nil {
		t.Fatalf("Match(%T): %v", actual, err)
	}
	if ok {
		return ok, m.NegatedFailureMessage(actual)
	}
	return ok, m.FailureMessage(actual)
}

func TestHaveMetric(t *testing.T) {
	ev := evaluate(t)
	perfect, _ := ev.Bundle.Result(ev.Bundle.Results[0].BenchmarkName, "perfect")
	broken, _ := ev.Bundle.Result(ev.Bundle.Results[0].BenchmarkName, "broken")

	for _, tc := range []struct {
		name   string
		m      *evalgomega.MetricMatcher
		actual any
		ok     bool
		msg    []string // substrings of the message
	}{
		{"result", evalgomega.HaveMetric("ndcg@10", 1.0), *perfect, true, nil},
		{"plain int", evalgomega.HaveMetric("recall@10", 1), perfect, true, nil},
		{"result pointer", evalgomega.HaveMetric("recall@10", gomega.BeNumerically(">=", 0.99)), broken, false,
			[]string{"Expected recall@10 to match:", "the result of arm broken on local/tiny@", "recall@10 = 0.833333", "to be >=", "0.99"}},
		{"evaluation, one arm", evalgomega.HaveMetric("ndcg@10", gomega.BeNumerically(">=", 0.99)).ForArm("perfect"), ev, true, nil},
		{"evaluation, every arm", evalgomega.HaveMetric("ndcg@10", gomega.BeNumerically(">=", 0.99)), ev, false,
			[]string{"arm broken on local/tiny@"}},
		{"bundle, short benchmark name", evalgomega.HaveMetric("mrr", 1.0).ForArm("perfect").ForBenchmark("tiny"), ev.Bundle, true, nil},
		{"unknown arm", evalgomega.HaveMetric("mrr", 1.0).ForArm("perfekt"), ev.Bundle, false,
			[]string{`the bundle has no arm "perfekt" (did you mean "perfect"?); its arms are perfect, broken`}},
		{"unknown benchmark", evalgomega.HaveMetric("mrr", 1.0).ForBenchmark("faq"), ev.Bundle, false,
			[]string{`the bundle has no result for benchmark "faq"`, "its benchmarks are local/tiny@"}},
		{"unknown metric", evalgomega.HaveMetric("ndgc@10", 1.0), *perfect, false,
			[]string{`has no metric "ndgc@10" (did you mean "ndcg@10"?); it has `, "mrr"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, msg := match(t, tc.m, tc.actual)
			if ok != tc.ok {
				t.Fatalf("Match = %v, want %v; message:\n%s", ok, tc.ok, msg)
			}
			for _, want := range tc.msg {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q:\n%s", want, msg)
				}
			}
			if strings.Contains(tc.name, "every arm") && strings.Contains(msg, "arm perfect") {
				t.Errorf("message names the passing arm too:\n%s", msg)
			}
		})
	}

	// Per-query scores of a sample; a missing metric is never read as 0.
	var q02 *results.Sample
	for i := range broken.PerSampleScores {
		if broken.PerSampleScores[i].QueryID == "q02" {
			q02 = &broken.PerSampleScores[i]
		}
	}
	if ok, msg := match(t, evalgomega.HaveMetric("recall@10", 1.0), q02); ok || !strings.Contains(msg, "query q02: recall@10 = 0") {
		t.Errorf("q02 recall@10 matched %v:\n%s", ok, msg)
	}
	if _, err := evalgomega.HaveMetric("mrr", 1.0).Match(42); err == nil || !strings.Contains(err.Error(), "not int") {
		t.Errorf("Match(42) error = %v, want one naming the accepted types", err)
	}
}

func TestHaveNoBlockingIntegrity(t *testing.T) {
	ev := evaluate(t)
	ok, msg := match(t, evalgomega.HaveNoBlockingIntegrity(), ev)
	if ok {
		t.Fatal("HaveNoBlockingIntegrity matched an evaluation with an unknown doc id")
	}
	for _, want := range []string{
		"Expected no blocking integrity finding, found 1:",
		"  UNKNOWN_DOC_ID (blocking)\n    where: local/tiny@",
		"/broken\n    what:  1 ranked lists hold ids missing from the corpus of 12 documents: q05 (\"no-such-doc\")",
		"\n    fix:   return the corpus ids the benchmark defines",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if ok, _ := match(t, evalgomega.HaveNoBlockingIntegrity(), results.Integrity{Warnings: []results.Finding{finding("SMALL_SAMPLE: few")}}); !ok {
		t.Error("a warning failed HaveNoBlockingIntegrity")
	}
}

func TestPass(t *testing.T) {
	ev := evaluate(t)
	ok, msg := match(t, evalgomega.Pass(), ev)
	if ok {
		t.Fatal("Pass matched a failed evaluation")
	}
	for _, want := range []string{
		"--- FAIL: TestTiny\n    integrity: UNKNOWN_DOC_ID at local/tiny@",
		"data/tiny.jsonl:5: query q05",
		"--- FAIL: TestTiny/tiny/broken/q05\n",
		"UNKNOWN_DOC_ID",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	q01, _ := ev.Test("TestTiny/tiny/broken/q01")
	if ok, msg := match(t, evalgomega.Pass(), q01); !ok {
		t.Errorf("Pass did not match a passing query:\n%s", msg)
	}
}

// TestWithT uses the matchers from a plain go test through gomega.NewWithT.
func TestWithT(t *testing.T) {
	ev := evaluate(t)
	g := gomega.NewWithT(t)
	g.Expect(ev).To(evalgomega.HaveMetric("ndcg@10", gomega.BeNumerically("==", 1)).ForArm("perfect"))
	g.Expect(ev).NotTo(evalgomega.HaveNoBlockingIntegrity())
	g.Expect(ev).NotTo(evalgomega.Pass())
}

// TestShortName checks that the matchers name benchmarks as evaltest's
// subtests do ("beir/scifact" becomes one subtest level, "beir_scifact").
func TestShortName(t *testing.T) {
	for in, want := range map[string]string{"local/faq@ea3e86b12545": "faq", "faq": "faq", "beir/scifact@0123": "beir_scifact", "local/a b@12": "a_b"} {
		if got := evaltest.ShortName(in); got != want {
			t.Errorf("ShortName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDescribeFindingFixForGoTest: a bundle's PIPELINE_ERRORS line holds
// the CLI's fix (rerun with --resume); described inside a test, the fix is
// worded for go test.
func TestDescribeFindingFixForGoTest(t *testing.T) {
	var in results.Integrity
	in.Add(lasagna.Finding{Code: lasagna.PipelineErrors, Where: "local/tiny@abc/mine", Detail: "1 of 12 queries failed: q03"})
	line := in.Blocking[0]
	got := evalgomega.DescribeFinding(line)
	if strings.Contains(got, "--") || !strings.Contains(got, "fix:   fix the failing calls (each query's subtest shows its error)") ||
		!strings.Contains(got, "what:  1 of 12 queries failed: q03\n") {
		t.Errorf("DescribeFinding(%q) =\n%s", line, got)
	}
}
