package scorer

import (
	"context"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/examples/retrieval"
)

// TestRAG retrieves with the keyword retriever of examples/retrieval,
// answers with Quoting and scores every answer with cites_source beside
// the built-in metrics; the arm must cite a source in at least 90% of its
// answers. Each query's subtest records lasagna.cites_source, and the
// bundle holds it per query and as a mean with its confidence interval.
func TestRAG(t *testing.T) {
	evaltest.Run(t, config())
}

// config is TestRAG's run.
func config() evaltest.Config {
	return evaltest.Config{
		Benchmarks: []string{"../data/faq.jsonl"},
		Scorers: []evaltest.Scorer{{
			Name:    "cites-source",
			Version: "1",
			Metrics: []string{"cites_source"},
			Scorer:  lasagna.ScorerFunc(CitesSource),
		}},
		Arms: []evaltest.Arm{{
			Name: "rag",
			BuildRetriever: func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
				return retrieval.NewKeyword(b), nil
			},
			Generator: Quoting("glass-04"),
			Stages:    map[lasagna.Stage]string{lasagna.StageRetriever: "keyword-overlap", lasagna.StageGenerator: "quoting"},
			TopK:      10,
			Thresholds: []evaltest.Threshold{
				evaltest.AtLeast("cites_source", 0.9),
			},
		}},
	}
}
