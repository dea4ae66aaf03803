package evalginkgo_test

import (
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/evaltest/evalginkgo"
	"github.com/lasagna-go/lasagna/evaltest/evalgomega"
	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/reporters"
	"github.com/lasagna-go/lasagna/results"
)

// The suite's shared state: set while Ginkgo builds the tree, read by the
// specs and by TestSuite after RunSpecs.
var (
	outDir   string
	ev       *evaltest.Evaluation
	evalErr  error
	reported *results.Bundle
)

// TestSuite runs the Ginkgo suite, then checks what ReportAfterSuite did.
func TestSuite(t *testing.T) {
	outDir = t.TempDir()
	t.Setenv("LASAGNA_OUT", outDir)
	RegisterFailHandler(Fail)
	if !RunSpecs(t, "evalginkgo") {
		return
	}
	if reported == nil || reported.RunID != ev.Bundle.RunID {
		t.Fatalf("ReportAfterSuite passed bundle %v to the reporter, want the evaluation's", reported)
	}
	copied, err := results.ReadFile(filepath.Join(outDir, "copy.json"))
	if err != nil || copied.RunID != ev.Bundle.RunID {
		t.Fatalf("the JSONFile reporter's copy: %v", err)
	}
}

// tinyEval evaluates the tiny benchmark: a perfect arm, and an arm whose
// list for q05 holds an id missing from the corpus.
func tinyEval() (*evaltest.Evaluation, error) {
	return evaltest.Evaluate(context.Background(), "tiny-suite", evaltest.Config{
		FS:         fixtures.Data,
		Benchmarks: []string{fixtures.TinyJSONL},
		Arms: []evaltest.Arm{
			{Name: "perfect", BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
				return fixtures.Perfect(b), nil
			}, Thresholds: []evaltest.Threshold{evaltest.PerQuery(evaltest.AtLeast("recall@10", 1))}},
			{Name: "bad ids", BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
				p := fixtures.Perfect(b)
				return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
					if q.ID == "q05" {
						return []lasagna.Hit{{ID: "no-such-doc", Score: 1}}, nil
					}
					return p.Retrieve(ctx, q, k)
				}), nil
			}},
		},
	})
}

var _ = Describe("an evaluation", func() {
	ev, evalErr = tinyEval()

	It("ran", func() {
		Expect(evalErr).NotTo(HaveOccurred())
		Expect(ev.Bundle).NotTo(BeNil())
	})

	It("reads metrics per arm", func() {
		Expect(ev).To(evalgomega.HaveMetric("ndcg@10", 1.0).ForArm("perfect"))
		Expect(ev).To(evalgomega.HaveMetric("ndcg@10", BeNumerically("<", 1)).ForArm("bad ids"))
	})

	It("reports the blocking finding with its code, where and fix", func() {
		failures := InterceptGomegaFailures(func() {
			Expect(ev).To(evalgomega.HaveNoBlockingIntegrity())
		})
		Expect(failures).To(HaveLen(1))
		Expect(failures[0]).To(And(
			ContainSubstring("UNKNOWN_DOC_ID (blocking)"),
			ContainSubstring("/bad ids\n"),
			ContainSubstring("fix:   return the corpus ids"),
		))
	})

	DescribeTable("the perfect arm's queries pass and record their metrics",
		func(q evalginkgo.Query) {
			q.Record()
			Expect(q.Test).To(evalgomega.Pass())
			Expect(q.Sample).To(evalgomega.HaveMetric("recall@10", 1.0))
			entries := map[string]any{}
			for _, e := range CurrentSpecReport().ReportEntries {
				entries[e.Name] = e.GetRawValue()
				// Printed for a failed spec or a verbose run only.
				Expect(e.Visibility).To(Equal(types.ReportEntryVisibilityFailureOrVerbose), e.Name)
			}
			Expect(entries).To(HaveKeyWithValue("lasagna.ndcg@10", 1.0))
			Expect(entries).To(HaveKeyWithValue("lasagna.query_id", q.ID))
		},
		evalginkgo.Entries(ev, "perfect"))

	It("makes one entry per query, named benchmark/arm/id", func() {
		qs, err := evalginkgo.Queries(ev, "bad ids")
		Expect(err).NotTo(HaveOccurred())
		Expect(qs).To(HaveLen(12))
		Expect(qs[4].String()).To(Equal("tiny/bad ids/q05"))
		Expect(qs[4].Test.Name).To(Equal("tiny-suite/tiny/bad_ids/q05"))
		failures := InterceptGomegaFailures(func() { Expect(qs[4].Test).To(evalgomega.Pass()) })
		Expect(failures).To(HaveLen(1))
		Expect(failures[0]).To(ContainSubstring(`data/tiny.jsonl:5: query q05`))
		Expect(failures[0]).To(ContainSubstring(`UNKNOWN_DOC_ID`))
	})

	It("names the arms when asked for one it does not have", func() {
		_, err := evalginkgo.Queries(ev, "perfekt")
		Expect(err).To(MatchError(`evaluation tiny-suite has no arm "perfekt"; its arms are perfect, bad_ids`))
		Expect(evalginkgo.Entries(ev, "perfekt")).To(HaveLen(1))
	})
})

var _ = evalginkgo.ReportAfterSuite("lasagna bundle", func() *evaltest.Evaluation { return ev },
	reporters.Func(func(ctx context.Context, b *results.Bundle) error {
		reported = b
		return nil
	}),
	// A copy beside the suite's reports (outDir is known once TestSuite runs).
	reporters.Func(func(ctx context.Context, b *results.Bundle) error {
		return reporters.JSONFile{Path: filepath.Join(outDir, "copy.json")}.Report(ctx, b)
	}),
)
