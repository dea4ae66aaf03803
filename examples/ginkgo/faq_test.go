package ginkgo_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/evaltest/evalginkgo"
	. "github.com/lasagna-go/lasagna/evaltest/evalgomega"
	"github.com/lasagna-go/lasagna/examples/retrieval"
)

// config is the evaluation: the keyword retriever and the BM25 baseline,
// both to depth 10, on the shipped FAQ dataset.
func config() evaltest.Config {
	bm25 := evaltest.BM25()
	bm25.TopK = 10
	return evaltest.Config{
		Benchmarks: []string{"../data/faq.jsonl"},
		Arms: []evaltest.Arm{
			{Name: "keyword", TopK: 10, BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
				return retrieval.NewKeyword(b), nil
			}, Thresholds: []evaltest.Threshold{evaltest.PerQuery(evaltest.AtLeast("recall@10", 1))}},
			bm25,
		},
	}
}

// ev is the evaluation, made while Ginkgo builds the spec tree so that
// its queries can become table entries.
var ev *evaltest.Evaluation

var _ = Describe("the keyword retriever on the FAQ", func() {
	var err error
	ev, err = evaltest.Evaluate(context.Background(), "faq", config())

	It("evaluates offline", func() {
		Expect(err).NotTo(HaveOccurred())
		Expect(ev).To(HaveNoBlockingIntegrity())
	})

	It("ranks well", func() {
		Expect(ev).To(HaveMetric("ndcg@10", BeNumerically(">=", 0.9)).ForArm("keyword"))
		Expect(ev).To(HaveMetric("recall@10", BeNumerically(">=", 0.95)).ForArm("keyword"))
	})

	It("stays within 0.05 nDCG@10 of BM25", func() {
		bm25, _ := ev.Bundle.Result(ev.Bundle.Results[0].BenchmarkName, "bm25")
		Expect(ev).To(HaveMetric("ndcg@10", BeNumerically("~", bm25.Metrics["ndcg@10"], 0.05)).ForArm("keyword"))
	})

	// One spec per question: it fails with the query's own message (the
	// dataset file:line, `recall@10 = 0, want >= 1`, the missing documents).
	DescribeTable("finds the documents of every question",
		func(q evalginkgo.Query) {
			q.Record() // lasagna.* metrics as report entries
			Expect(q.Test).To(Pass())
		},
		evalginkgo.Entries(ev, "keyword"))
})

var _ = evalginkgo.ReportAfterSuite("lasagna results", func() *evaltest.Evaluation { return ev })
