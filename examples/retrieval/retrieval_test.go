package retrieval

import (
	"context"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
)

// TestRAG evaluates Keyword beside the BM25 baseline on the shipped FAQ
// dataset. Each query is a subtest (TestRAG/faq/keyword/glass-01, …) that
// records its metrics as lasagna.* attrs and needs a relevant document in
// its top 10; the keyword arm must also keep its mean nDCG@10 and
// recall@10 above fixed floors and must not regress significantly against
// testdata/baseline.json. Refresh that file after an intended change with
//
//	LASAGNA_UPDATE_BASELINE=1 go test -run '^TestRAG$' -count=1 ./examples/retrieval
func TestRAG(t *testing.T) {
	bm25 := evaltest.BM25() // the built-in baseline, to the same depth
	bm25.TopK = 10
	evaltest.Run(t, evaltest.Config{
		Benchmarks: []string{"../data/faq.jsonl"},
		Arms: []evaltest.Arm{
			{
				Name: "keyword",
				BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
					return NewKeyword(b), nil
				},
				Stages: map[lasagna.Stage]string{lasagna.StageRetriever: "keyword-overlap"},
				TopK:   10,
				Thresholds: []evaltest.Threshold{
					evaltest.AtLeast("ndcg@10", 0.9),
					evaltest.AtLeast("recall@10", 0.95),
					// Every question finds a relevant document in its top 10.
					evaltest.PerQuery(evaltest.AtLeast("recall@10", 1)),
				},
			},
			bm25,
		},
		Baseline: "testdata/baseline.json",
	})
}
